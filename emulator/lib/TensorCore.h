//===- TensorCore.h - mma.sync, ldmatrix and wgmma semantics ----*- C++ -*-===//
//
// Part of the Quilt project.
//
// What the warp-level tensor-core instructions compute, per the PTX ISA:
// mma.sync (section 9.7.14.5, "Matrix Fragments for mma.m16n8k*"), ldmatrix
// (9.7.14.5.15) and wgmma.mma_async (9.7.15.5, register fragments, shared
// memory matrix layouts and the matrix descriptor). The interpreter hands
// these functions the registers of a whole warp (or warpgroup) at once and
// gets the destination registers back.
//
// Where each element of a fragment lives is written down once, in the
// *FragmentPosition functions, which transcribe the ISA's "row = ..., col =
// ..." formulas; the instructions are implemented through them, and the unit
// tests check them against the ISA's tables on their own.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_TENSORCORE_H
#define QUILT_EMULATOR_TENSORCORE_H

#include "Swizzle.h"

#include <cstdint>
#include <functional>
#include <string>

namespace quilt::emu {

//===----------------------------------------------------------------------===//
// mma.sync
//===----------------------------------------------------------------------===//

enum class MmaType { F16, BF16, TF32, F32 };

struct MmaShape {
  int m, n, k;
};

/// Which operand of D = A * B + C a fragment belongs to. D has C's layout.
enum class MmaOperand { A, B, C };

/// Elements one 32-bit register holds: 2 for f16/bf16 (lower 16 bits = the
/// lower-numbered element), 1 for tf32/f32.
int mmaElementsPerRegister(MmaType Type);

/// The number of fragment elements (a0, a1, ... in the ISA) one lane holds
/// for Operand of an mma of Shape with element type Type, or 0 where this
/// emulator does not support the combination.
int mmaFragmentElements(MmaShape Shape, MmaType Type, MmaOperand Operand);

/// The number of 32-bit registers of that fragment.
int mmaFragmentRegisters(MmaShape Shape, MmaType Type, MmaOperand Operand);

/// The (Row, Col) within the operand matrix (A: m x k, B: k x n, C/D: m x n)
/// of fragment element Elem held by Lane. False where the combination is not
/// supported (see mmaFragmentElements) or Lane/Elem is out of range.
bool mmaFragmentPosition(MmaShape Shape, MmaType Type, MmaOperand Operand,
                         int Lane, int Elem, int &Row, int &Col);

/// One mma.sync.aligned.<shape>.row.col.<cd>.<ab>.<ab>.<cd> for a warp.
///
/// A[lane][i], B[lane][i], C[lane][i]: the 32-bit registers of each lane in
/// the order the instruction lists them ({%r0, %r1, ...}); f16/bf16 operands
/// are packed two per register, lower 16 bits = lower-indexed element.
/// D[lane][i] receives the result; registers beyond the fragment's are left
/// alone. Supported: m16n8k16 with f16 or bf16 A/B and f32 C/D, or f16 A/B
/// and f16 C/D; m16n8k8 with tf32 A/B and f32 C/D, bf16 A/B and f32 C/D, or
/// f16 A/B and f16/f32 C/D; m16n8k4 with tf32 A/B and f32 C/D (A: a0, a1 in
/// two registers; B: b0 in one). Only .row.col exists for these shapes.
///
/// Products of the inputs are exact in float; they are summed in float in
/// k order starting from C (the hardware's order is unspecified). An f16 D
/// is rounded to nearest even from that float. tf32 operands use only the
/// upper 19 bits of their register.
bool mmaSync(MmaShape Shape, MmaType AB, MmaType CD, bool ARowMajor,
             bool BColMajor, const uint32_t A[32][4], const uint32_t B[32][4],
             const uint32_t C[32][4], uint32_t D[32][4], std::string *Why);

//===----------------------------------------------------------------------===//
// ldmatrix
//===----------------------------------------------------------------------===//

/// The (Row, Col) within its 8x8 b16 matrix of the element in half Half (0 =
/// lower 16 bits) of the register that Lane receives from ldmatrix without
/// .trans (ISA Figure 104: row = lane / 4, col = (lane % 4) * 2 + half).
/// With .trans the same register holds the element at (Row, Col) of the
/// matrix whose *columns* are the 16-byte rows in memory.
void ldmatrixFragmentPosition(int Lane, int Half, int &Row, int &Col);

/// ldmatrix.sync.aligned.m8n8.<num>{.trans}.shared.b16 for a warp.
///
/// Num: 1, 2 or 4 matrices. RowAddress[lane]: the shared-memory byte address
/// each lane supplies; lanes 8j..8j+7 give the rows of matrix j, so .x1 reads
/// only lanes 0-7 and .x2 lanes 0-15 (the rest are ignored). ReadRow(addr,
/// bytes) returns the 16 bytes at addr. Out[lane][j] = register j of lane,
/// holding two elements of matrix j. Num outside {1, 2, 4} writes nothing.
void ldmatrix(
    int Num, bool Trans, const uint32_t RowAddress[32],
    const std::function<void(uint32_t Addr, uint8_t Bytes[16])> &ReadRow,
    uint32_t Out[32][4]);

//===----------------------------------------------------------------------===//
// wgmma.mma_async
//===----------------------------------------------------------------------===//

/// A decoded wgmma matrix descriptor (ISA 9.7.15.5.1.2.2), in bytes.
struct WgmmaDescriptor {
  uint32_t startAddress;
  uint32_t leadingByteOffset;
  uint32_t strideByteOffset;
  uint32_t baseOffset; ///< Bits 49-51, in units of 128-byte rows.
  Swizzle swizzle;
};

/// Decodes the 64-bit descriptor: bits 0-13 start address >> 4, 16-29
/// leading dimension byte offset >> 4, 32-45 stride dimension byte offset
/// >> 4, 49-51 base offset, 62-63 swizzle (0 none, 1 128B, 2 64B, 3 32B).
WgmmaDescriptor decodeWgmmaDescriptor(uint64_t Desc);

/// The inverse of decodeWgmmaDescriptor (byte fields must be multiples of 16
/// and below 2^18).
uint64_t encodeWgmmaDescriptor(const WgmmaDescriptor &Desc);

/// The shared-memory byte address of element (MN, K) of a wgmma operand
/// described by Desc: A(m, k) has MN = m, B(k, n) has MN = n. MNMajor is the
/// instruction's imm-trans-a/imm-trans-b (1 = M/N-major). Follows the ISA's
/// canonical layouts (9.7.15.5.1.2.1.3), in units of ElementBytes, then the
/// swizzle of the descriptor's mode applied to the address.
uint32_t wgmmaElementAddress(const WgmmaDescriptor &Desc, bool MNMajor,
                             unsigned ElementBytes, int MN, int K);

/// The (Row, Col) of element Elem (0..7) of the A register fragment of
/// Thread (0..127) for wgmma .m64nNk16 with A in registers (ISA Figure 148):
/// warp w = thread / 32 owns rows 16w..16w+15 and holds them like
/// mma.m16n8k16's A fragment.
void wgmmaAFragmentPosition(int Thread, int Elem, int &Row, int &Col);

/// The (Row, Col) of accumulator register Reg (0..N/2-1) of Thread for
/// wgmma .m64nNk16 (ISA Figure 149): warp w owns rows 16w..16w+15, laid out
/// like mma.m16n8k*'s C fragment, repeated over N in steps of 8 columns.
void wgmmaAccumulatorPosition(int Thread, int Reg, int &Row, int &Col);

/// One wgmma.mma_async.sync.aligned.m64n<N>k16.<d>.<ab>.<ab> for a
/// warpgroup (128 threads), A and B f16 or bf16, D f32 (or f16 with f16
/// A/B).
///
/// A comes from ARegs (four f16x2 registers per thread, the fragment of
/// wgmmaAFragmentPosition) when AFromRegisters, else from shared memory via
/// DescA; B always from shared memory via DescB. TransA/TransB are
/// imm-trans-a/b (1 = M/N-major; TransA must be 0 with A in registers).
/// ScaleA/ScaleB (imm-scale-a/b) are 1 or -1; ScaleD false means D = A * B,
/// ignoring the old accumulator. ReadShared(addr, dst, bytes) reads shared
/// memory.
///
/// Acc[t * (N/2) + i] is accumulator register i of thread t. For an f16 D,
/// Acc still holds one float per element, element d_i of thread t at the
/// same index, already rounded to f16 (packing d_{2j}, d_{2j+1} into f16x2
/// register j is the caller's job). Accumulation is in float in k order.
bool wgmma(int N, MmaType AB, MmaType D, bool AFromRegisters,
           const uint32_t ARegs[128][4], uint64_t DescA, uint64_t DescB,
           bool TransA, bool TransB, int ScaleA, int ScaleB, bool ScaleD,
           const std::function<void(uint32_t Addr, void *Dst, unsigned Bytes)>
               &ReadShared,
           float *Acc, std::string *Why);

} // namespace quilt::emu

#endif // QUILT_EMULATOR_TENSORCORE_H
