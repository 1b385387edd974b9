//===- TensorCore.cpp - mma.sync, ldmatrix and wgmma semantics ------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "TensorCore.h"

#include "FloatFormats.h"

#include <cstring>
#include <vector>

namespace quilt::emu {

namespace {

bool isShape(MmaShape S, int M, int N, int K) {
  return S.m == M && S.n == N && S.k == K;
}

bool isHalfType(MmaType T) { return T == MmaType::F16 || T == MmaType::BF16; }

bool fail(std::string *Why, const std::string &Message) {
  if (Why)
    *Why = Message;
  return false;
}

/// The value of fragment element Elem stored in Regs with type Type.
float elementValue(const uint32_t *Regs, MmaType Type, int Elem) {
  switch (Type) {
  case MmaType::F16:
    return f16ToF32(uint16_t(Regs[Elem / 2] >> (16 * (Elem % 2))));
  case MmaType::BF16:
    return bf16ToF32(uint16_t(Regs[Elem / 2] >> (16 * (Elem % 2))));
  case MmaType::TF32:
    return tf32ToF32(Regs[Elem]);
  case MmaType::F32:
    return detail::floatFromBits(Regs[Elem]);
  }
  return 0;
}

/// Stores Value as fragment element Elem of Regs with type Type (f16 and
/// bf16 rounded to nearest even).
void setElement(uint32_t *Regs, MmaType Type, int Elem, float Value) {
  if (isHalfType(Type)) {
    uint32_t Bits = Type == MmaType::F16
                        ? f32ToF16(Value, Rounding::NearestEven)
                        : f32ToBf16(Value, Rounding::NearestEven);
    int Shift = 16 * (Elem % 2);
    uint32_t &Reg = Regs[Elem / 2];
    Reg = (Reg & ~(0xffffu << Shift)) | (Bits << Shift);
    return;
  }
  Regs[Elem] = detail::bitsOf(Value);
}

/// The ISA's groupID and threadID_in_group of a lane.
int groupOf(int Lane) { return Lane >> 2; }
int threadInGroupOf(int Lane) { return Lane % 4; }

// Fragment layouts, transcribed from PTX ISA 9.7.14.5.6 (m16n8k4),
// 9.7.14.5.7 (m16n8k8) and 9.7.14.5.8 (m16n8k16 with floating point type).
// G = groupID, T = threadID_in_group, I = element index.

void m16n8k16A(int G, int T, int I, int &Row, int &Col) {
  // row = G for a0,a1,a4,a5, G + 8 otherwise;
  // col = T*2 + (i & 1), + 8 for i >= 4.
  Row = G + (((I >> 1) & 1) ? 8 : 0);
  Col = T * 2 + (I & 1) + (I >= 4 ? 8 : 0);
}

void m16n8k16B(int G, int T, int I, int &Row, int &Col) {
  // row = T*2 + (i & 1), + 8 for i >= 2; col = G.
  Row = T * 2 + (I & 1) + (I >= 2 ? 8 : 0);
  Col = G;
}

void m16n8k8HalfA(int G, int T, int I, int &Row, int &Col) {
  // row = G for a0,a1, G + 8 for a2,a3; col = T*2 + (i & 1).
  Row = G + (I >= 2 ? 8 : 0);
  Col = T * 2 + (I & 1);
}

void m16n8k8HalfB(int G, int T, int I, int &Row, int &Col) {
  // row = T*2 + i; col = G.
  Row = T * 2 + I;
  Col = G;
}

void m16n8k8Tf32A(int G, int T, int I, int &Row, int &Col) {
  // row = G for a0,a2, G + 8 for a1,a3; col = T for a0,a1, T + 4 for a2,a3.
  Row = G + ((I & 1) ? 8 : 0);
  Col = T + (I >= 2 ? 4 : 0);
}

void m16n8k8Tf32B(int G, int T, int I, int &Row, int &Col) {
  // row = T for b0, T + 4 for b1; col = G.
  Row = T + (I ? 4 : 0);
  Col = G;
}

void m16n8k4Tf32A(int G, int T, int I, int &Row, int &Col) {
  // row = G for a0, G + 8 for a1; col = T.
  Row = G + (I ? 8 : 0);
  Col = T;
}

void m16n8k4Tf32B(int G, int T, int I, int &Row, int &Col) {
  // b0 only: row = T; col = G.
  (void)I;
  Row = T;
  Col = G;
}

void m16n8Accumulator(int G, int T, int I, int &Row, int &Col) {
  // row = G for c0,c1, G + 8 for c2,c3; col = T*2 + (i & 1).
  Row = G + (I >= 2 ? 8 : 0);
  Col = T * 2 + (I & 1);
}

/// Whether the emulator implements mma.sync with these types and shape.
bool mmaSupported(MmaShape Shape, MmaType AB, MmaType CD, std::string *Why) {
  const bool K4 = isShape(Shape, 16, 8, 4);
  if (!isShape(Shape, 16, 8, 16) && !isShape(Shape, 16, 8, 8) && !K4)
    return fail(Why, "mma.sync: only shapes m16n8k16, m16n8k8 and m16n8k4 "
                     "are supported");
  if (AB == MmaType::F32)
    return fail(Why, "mma.sync: f32 is not a multiplicand type");
  if (AB == MmaType::TF32 && isShape(Shape, 16, 8, 16))
    return fail(Why, "mma.sync: tf32 multiplicands are supported only for "
                     "m16n8k8 and m16n8k4");
  if (K4 && AB != MmaType::TF32)
    return fail(Why, "mma.sync: m16n8k4 is supported only with tf32 "
                     "multiplicands");
  if (K4 && CD != MmaType::F32)
    return fail(Why, "mma.sync: m16n8k4 with tf32 multiplicands needs an f32 "
                     "accumulator");
  if (CD == MmaType::F32)
    return true;
  if (CD == MmaType::F16 && AB == MmaType::F16)
    return true;
  return fail(Why, "mma.sync: accumulator type must be f32, or f16 with f16 "
                   "multiplicands");
}

} // namespace

int mmaElementsPerRegister(MmaType Type) { return isHalfType(Type) ? 2 : 1; }

int mmaFragmentElements(MmaShape Shape, MmaType Type, MmaOperand Operand) {
  const bool K16 = isShape(Shape, 16, 8, 16), K8 = isShape(Shape, 16, 8, 8);
  if (isShape(Shape, 16, 8, 4)) {
    // Only .tf32 multiplicands with .f32 accumulators (9.7.14.5.6).
    if (Operand == MmaOperand::C)
      return Type == MmaType::F32 ? 4 : 0;
    if (Type != MmaType::TF32)
      return 0;
    return Operand == MmaOperand::A ? 2 : 1;
  }
  if (!K16 && !K8)
    return 0;
  if (Operand == MmaOperand::C)
    return Type == MmaType::F16 || Type == MmaType::F32 ? 4 : 0;
  if (Type == MmaType::F32 || (Type == MmaType::TF32 && !K8))
    return 0;
  if (Type == MmaType::TF32)
    return Operand == MmaOperand::A ? 4 : 2;
  // f16 / bf16: A holds m*k/32 elements, B k*n/32.
  if (Operand == MmaOperand::A)
    return K16 ? 8 : 4;
  return K16 ? 4 : 2;
}

int mmaFragmentRegisters(MmaShape Shape, MmaType Type, MmaOperand Operand) {
  return mmaFragmentElements(Shape, Type, Operand) /
         mmaElementsPerRegister(Type);
}

bool mmaFragmentPosition(MmaShape Shape, MmaType Type, MmaOperand Operand,
                         int Lane, int Elem, int &Row, int &Col) {
  if (Lane < 0 || Lane >= 32 || Elem < 0 ||
      Elem >= mmaFragmentElements(Shape, Type, Operand))
    return false;
  const int G = groupOf(Lane), T = threadInGroupOf(Lane);
  if (Operand == MmaOperand::C) {
    m16n8Accumulator(G, T, Elem, Row, Col);
    return true;
  }
  const bool A = Operand == MmaOperand::A;
  if (Shape.k == 16) {
    (A ? m16n8k16A : m16n8k16B)(G, T, Elem, Row, Col);
  } else if (Shape.k == 4) {
    (A ? m16n8k4Tf32A : m16n8k4Tf32B)(G, T, Elem, Row, Col);
  } else if (Type == MmaType::TF32) {
    (A ? m16n8k8Tf32A : m16n8k8Tf32B)(G, T, Elem, Row, Col);
  } else {
    (A ? m16n8k8HalfA : m16n8k8HalfB)(G, T, Elem, Row, Col);
  }
  return true;
}

bool mmaSync(MmaShape Shape, MmaType AB, MmaType CD, bool ARowMajor,
             bool BColMajor, const uint32_t A[32][4], const uint32_t B[32][4],
             const uint32_t C[32][4], uint32_t D[32][4], std::string *Why) {
  if (!ARowMajor || !BColMajor)
    return fail(Why, "mma.sync: only the .row.col layout exists for shapes "
                     "m16n8k4, m16n8k8 and m16n8k16");
  if (!mmaSupported(Shape, AB, CD, Why))
    return false;

  // Gather the three matrices from the fragments, multiply, scatter D.
  const int M = Shape.m, N = Shape.n, K = Shape.k;
  std::vector<float> MatA(M * K), MatB(K * N), MatC(M * N);
  int Row, Col;
  for (int Lane = 0; Lane < 32; ++Lane) {
    for (int I = 0; I < mmaFragmentElements(Shape, AB, MmaOperand::A); ++I) {
      mmaFragmentPosition(Shape, AB, MmaOperand::A, Lane, I, Row, Col);
      MatA[Row * K + Col] = elementValue(A[Lane], AB, I);
    }
    for (int I = 0; I < mmaFragmentElements(Shape, AB, MmaOperand::B); ++I) {
      mmaFragmentPosition(Shape, AB, MmaOperand::B, Lane, I, Row, Col);
      MatB[Row * N + Col] = elementValue(B[Lane], AB, I);
    }
    for (int I = 0; I < mmaFragmentElements(Shape, CD, MmaOperand::C); ++I) {
      mmaFragmentPosition(Shape, CD, MmaOperand::C, Lane, I, Row, Col);
      MatC[Row * N + Col] = elementValue(C[Lane], CD, I);
    }
  }

  for (int Lane = 0; Lane < 32; ++Lane) {
    for (int I = 0; I < mmaFragmentElements(Shape, CD, MmaOperand::C); ++I) {
      mmaFragmentPosition(Shape, CD, MmaOperand::C, Lane, I, Row, Col);
      float Sum = MatC[Row * N + Col];
      for (int Kk = 0; Kk < K; ++Kk)
        Sum += MatA[Row * K + Kk] * MatB[Kk * N + Col];
      setElement(D[Lane], CD, I, Sum);
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// ldmatrix
//===----------------------------------------------------------------------===//

void ldmatrixFragmentPosition(int Lane, int Half, int &Row, int &Col) {
  Row = Lane >> 2;
  Col = (Lane % 4) * 2 + Half;
}

void ldmatrix(
    int Num, bool Trans, const uint32_t RowAddress[32],
    const std::function<void(uint32_t Addr, uint8_t Bytes[16])> &ReadRow,
    uint32_t Out[32][4]) {
  if (Num != 1 && Num != 2 && Num != 4)
    return;
  for (int Matrix = 0; Matrix < Num; ++Matrix) {
    // Row r of matrix j (a column of it with .trans) is at the address of
    // lane 8j + r.
    uint8_t Rows[8][16];
    for (int R = 0; R < 8; ++R)
      ReadRow(RowAddress[8 * Matrix + R], Rows[R]);
    for (int Lane = 0; Lane < 32; ++Lane) {
      uint32_t Reg = 0;
      for (int Half = 0; Half < 2; ++Half) {
        int Row, Col;
        ldmatrixFragmentPosition(Lane, Half, Row, Col);
        const uint8_t *Element =
            Trans ? &Rows[Col][2 * Row] : &Rows[Row][2 * Col];
        uint32_t Value = uint32_t(Element[0]) | (uint32_t(Element[1]) << 8);
        Reg |= Value << (16 * Half);
      }
      Out[Lane][Matrix] = Reg;
    }
  }
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

WgmmaDescriptor decodeWgmmaDescriptor(uint64_t Desc) {
  WgmmaDescriptor D;
  D.startAddress = uint32_t(Desc & 0x3fff) << 4;
  D.leadingByteOffset = uint32_t((Desc >> 16) & 0x3fff) << 4;
  D.strideByteOffset = uint32_t((Desc >> 32) & 0x3fff) << 4;
  D.baseOffset = uint32_t((Desc >> 49) & 0x7);
  static const Swizzle Modes[4] = {Swizzle::None, Swizzle::B128, Swizzle::B64,
                                   Swizzle::B32};
  D.swizzle = Modes[(Desc >> 62) & 3];
  return D;
}

uint64_t encodeWgmmaDescriptor(const WgmmaDescriptor &D) {
  auto Encode = [](uint32_t X) { return uint64_t((X & 0x3ffff) >> 4); };
  uint64_t Mode = 0;
  switch (D.swizzle) {
  case Swizzle::None:
    Mode = 0;
    break;
  case Swizzle::B128:
    Mode = 1;
    break;
  case Swizzle::B64:
    Mode = 2;
    break;
  case Swizzle::B32:
    Mode = 3;
    break;
  }
  return Encode(D.startAddress) | (Encode(D.leadingByteOffset) << 16) |
         (Encode(D.strideByteOffset) << 32) |
         (uint64_t(D.baseOffset & 7) << 49) | (Mode << 62);
}

namespace {

/// Byte offset of (MN, K) in the K-major canonical layout: in units of T =
/// 16 / ElementBytes elements, ((8,m),(T,2k)):((W*T,SBO),(1,LBO)) without
/// swizzle (W = 1, each core matrix 8 rows of 16 contiguous bytes) and
/// ((8,m),(T,2k)):((W*T,SBO),(1,T)) with a swizzle of W 16-byte chunks per
/// row: the K chunks of a row are contiguous within the swizzle span.
uint32_t kMajorOffset(const WgmmaDescriptor &D, unsigned ElementBytes, int MN,
                      int K) {
  const unsigned T = 16 / ElementBytes;
  const unsigned RowBytes = swizzleSpanBytes(D.swizzle);
  const unsigned Chunk = K / T, Within = K % T;
  const unsigned ChunkStride =
      D.swizzle == Swizzle::None ? D.leadingByteOffset : 16;
  return (MN % 8) * RowBytes + (MN / 8) * D.strideByteOffset +
         Chunk * ChunkStride + Within * ElementBytes;
}

/// Byte offset of (MN, K) in the MN-major canonical layout:
/// ((T,1,m),(8,k)):((1,T,SBO),(T,LBO)) without swizzle and
/// ((T,W,m),(8,k)):((1,T,LBO),(W*T,SBO)) with a swizzle of W chunks: MN runs
/// contiguously for a swizzle span, K rows are a span apart, and the two
/// byte offsets step to the next span of MN and the next 8 K rows (the roles
/// of LBO and SBO swap between the unswizzled and swizzled layouts).
uint32_t mnMajorOffset(const WgmmaDescriptor &D, unsigned ElementBytes, int MN,
                       int K) {
  const unsigned T = 16 / ElementBytes;
  const unsigned W = swizzleSpanBytes(D.swizzle) / 16;
  const unsigned Within = MN % T, Chunk = (MN / T) % W, Span = MN / (T * W);
  const bool Swizzled = D.swizzle != Swizzle::None;
  const unsigned SpanStride =
      Swizzled ? D.leadingByteOffset : D.strideByteOffset;
  const unsigned KGroupStride =
      Swizzled ? D.strideByteOffset : D.leadingByteOffset;
  return Within * ElementBytes + Chunk * 16 + Span * SpanStride +
         (K % 8) * (W * 16) + (K / 8) * KGroupStride;
}

} // namespace

uint32_t wgmmaElementAddress(const WgmmaDescriptor &D, bool MNMajor,
                             unsigned ElementBytes, int MN, int K) {
  const uint32_t Offset = MNMajor ? mnMajorOffset(D, ElementBytes, MN, K)
                                  : kMajorOffset(D, ElementBytes, MN, K);
  return swizzleAddress(D.startAddress + Offset, D.swizzle,
                        D.swizzle == Swizzle::None ? 0 : D.baseOffset);
}

void wgmmaAFragmentPosition(int Thread, int Elem, int &Row, int &Col) {
  const int Lane = Thread % 32;
  m16n8k16A(groupOf(Lane), threadInGroupOf(Lane), Elem, Row, Col);
  Row += 16 * (Thread / 32);
}

void wgmmaAccumulatorPosition(int Thread, int Reg, int &Row, int &Col) {
  const int Lane = Thread % 32;
  // Registers 4j..4j+3 cover columns 8j..8j+7 like c0..c3 of mma.m16n8k*.
  m16n8Accumulator(groupOf(Lane), threadInGroupOf(Lane), Reg % 4, Row, Col);
  Row += 16 * (Thread / 32);
  Col += 8 * (Reg / 4);
}

namespace {

bool wgmmaSupported(int N, MmaType AB, MmaType D, bool AFromRegisters,
                    bool TransA, int ScaleA, int ScaleB, std::string *Why) {
  if (N < 8 || N > 256 || N % 8)
    return fail(Why, "wgmma: N must be a multiple of 8 in [8, 256]");
  if (!isHalfType(AB))
    return fail(Why, "wgmma: only f16 and bf16 multiplicands are supported");
  if (D != MmaType::F32 && !(D == MmaType::F16 && AB == MmaType::F16))
    return fail(Why, "wgmma: D must be f32, or f16 with f16 multiplicands");
  if (AFromRegisters && TransA)
    return fail(Why, "wgmma: imm-trans-a is not allowed with A in registers");
  if ((ScaleA != 1 && ScaleA != -1) || (ScaleB != 1 && ScaleB != -1))
    return fail(Why, "wgmma: imm-scale-a/b must be 1 or -1");
  return true;
}

float readHalf(const std::function<void(uint32_t, void *, unsigned)> &Read,
               uint32_t Addr, MmaType Type) {
  uint16_t Bits;
  Read(Addr, &Bits, 2);
  return Type == MmaType::F16 ? f16ToF32(Bits) : bf16ToF32(Bits);
}

} // namespace

bool wgmma(int N, MmaType AB, MmaType D, bool AFromRegisters,
           const uint32_t ARegs[128][4], uint64_t DescA, uint64_t DescB,
           bool TransA, bool TransB, int ScaleA, int ScaleB, bool ScaleD,
           const std::function<void(uint32_t Addr, void *Dst, unsigned Bytes)>
               &ReadShared,
           float *Acc, std::string *Why) {
  if (!wgmmaSupported(N, AB, D, AFromRegisters, TransA, ScaleA, ScaleB, Why))
    return false;
  constexpr int M = 64, K = 16;

  std::vector<float> MatA(M * K), MatB(K * N);
  if (AFromRegisters) {
    for (int Thread = 0; Thread < 128; ++Thread)
      for (int I = 0; I < 8; ++I) {
        int Row, Col;
        wgmmaAFragmentPosition(Thread, I, Row, Col);
        MatA[Row * K + Col] = elementValue(ARegs[Thread], AB, I);
      }
  } else {
    const WgmmaDescriptor DA = decodeWgmmaDescriptor(DescA);
    for (int Row = 0; Row < M; ++Row)
      for (int Col = 0; Col < K; ++Col)
        MatA[Row * K + Col] = readHalf(
            ReadShared, wgmmaElementAddress(DA, TransA, 2, Row, Col), AB);
  }
  const WgmmaDescriptor DB = decodeWgmmaDescriptor(DescB);
  for (int Kk = 0; Kk < K; ++Kk)
    for (int Col = 0; Col < N; ++Col)
      MatB[Kk * N + Col] =
          readHalf(ReadShared, wgmmaElementAddress(DB, TransB, 2, Col, Kk), AB);

  // imm-scale negates every element of the operand; exact in float.
  const float SA = float(ScaleA), SB = float(ScaleB);
  for (int Thread = 0; Thread < 128; ++Thread)
    for (int Reg = 0; Reg < N / 2; ++Reg) {
      int Row, Col;
      wgmmaAccumulatorPosition(Thread, Reg, Row, Col);
      float &Out = Acc[Thread * (N / 2) + Reg];
      float Sum = ScaleD ? Out : 0.0f;
      for (int Kk = 0; Kk < K; ++Kk)
        Sum += (SA * MatA[Row * K + Kk]) * (SB * MatB[Kk * N + Col]);
      Out = D == MmaType::F16 ? f16ToF32(f32ToF16(Sum, Rounding::NearestEven))
                              : Sum;
    }
  return true;
}

} // namespace quilt::emu
