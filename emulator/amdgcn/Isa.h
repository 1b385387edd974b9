//===- Isa.h - Decoded AMDGCN instructions and wave state -------*- C++ -*-===//
//
// Part of the Quilt project.
//
// The emulator decodes a kernel once (Decoder.h) into Instructions whose
// operands are resolved to register-file indices or constant bit patterns
// and whose semantics are bound to a Handler; executing is then a loop of
// indirect calls with no string or map lookup. A Wave holds what the ISA
// manuals give a wavefront: the SGPRs (with VCC, M0 and EXEC at their
// encoding indices, so `vcc` and `exec` are register pairs like any other),
// SCC, the VGPRs and, on gfx90a/gfx942, the AGPRs.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_AMDGCN_ISA_H
#define QUILT_EMULATOR_AMDGCN_ISA_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace quilt::amdgcn {

struct Wave;
struct Instruction;
using Handler = void (*)(Wave &, const Instruction &);

/// Scalar register file indices of the special registers (their operand
/// encodings in the ISA manuals).
enum : uint16_t {
  kVccLo = 106,
  kVccHi = 107,
  kTtmp0 = 108,
  kM0 = 124,
  kNull = 125,
  kExecLo = 126,
  kExecHi = 127,
  kScalarFileSize = 128,
};
/// AGPRs follow the 256 VGPRs in the vector file.
constexpr unsigned kAgprBase = 256;
constexpr unsigned kVectorFileSize = 512;
/// A vector register no program names (gfx11 has no AGPRs): VOPD's X
/// result waits there until Y has read its sources.
constexpr unsigned kDualIssueTemporary = kVectorFileSize - 1;

enum class OperandKind : uint8_t {
  None,
  Scalar,   ///< s#, vcc, exec, m0, null: the scalar file
  Vector,   ///< v# and a#: the vector file
  Constant, ///< inline constant or literal, as bits of the op's type
  Scc,      ///< the SCC bit as a source (s_cselect and friends use it)
  Off,      ///< `off`: no address register (global and scratch)
};

struct Operand {
  OperandKind kind = OperandKind::None;
  uint8_t count = 1;  ///< dwords
  bool neg = false;   ///< -x (VOP3 source modifier)
  bool abs = false;   ///< |x|
  uint8_t half = 0;   ///< gfx11 16-bit register halves: 1 = v#.l, 2 = v#.h
  bool sext = false;  ///< sext(x) (SDWA integer source modifier)
  uint16_t index = 0; ///< first register
  uint64_t bits = 0;  ///< Constant: the value in the op's source type
};

/// Modifier bits (Instruction::flags).
enum : uint32_t {
  kClamp = 1u << 0,
  kGlc = 1u << 1, ///< also sc0
  kSlc = 1u << 2, ///< also sc1 / nt
  kBranch = 1u << 3, ///< its first operand is a word offset to resolve
  kOffen = 1u << 4,  ///< buffer: the address VGPR holds a byte offset
  kIdxen = 1u << 5,  ///< buffer: the address VGPR holds a record index
};

/// SDWA selections: bytes 0-3, words 0-1, the whole dword; and what the
/// bits of the destination outside its field become.
enum : uint8_t { kSelectByte0 = 0, kSelectWord0 = 4, kSelectDword = 6 };
enum : uint8_t { kUnusedPad = 0, kUnusedSext = 1, kUnusedPreserve = 2 };

/// What executes an instruction, for the counters.
enum class Unit : uint8_t {
  Salu,
  Valu,
  Matrix,
  ScalarMemory,
  Lds,
  GlobalLoad,  ///< global, flat and buffer loads
  GlobalStore, ///< global, flat and buffer stores and atomics
  Scratch,
  Barrier, ///< s_barrier
  Control, ///< branches, waits, s_endpgm
  Count
};

struct Instruction {
  Handler handler = nullptr;
  Unit unit = Unit::Control;
  uint32_t address = 0; ///< byte offset in the kernel
  uint8_t size = 4;     ///< bytes
  uint8_t numOperands = 0;
  uint32_t flags = 0;
  Operand ops[6];
  int32_t offset = 0;  ///< offset: / offset0:
  int32_t offset1 = 0; ///< offset1:
  uint8_t opSel = 0, opSelHi = 0x7, negLo = 0, negHi = 0;
  uint8_t cbsz = 0, abid = 0, blgp = 0;
  int8_t outputScale = 0; ///< omod: mul:2 (1), mul:4 (2), div:2 (-1)
  uint32_t target = 0;    ///< branches: index of the target instruction
  /// VOPD (gfx11 dual issue): the X and Y halves, which read their
  /// sources before either writes.
  std::shared_ptr<const Instruction> dualX, dualY;
  /// SDWA: the field each source reads and the destination writes
  /// (kSelect*), what becomes of the destination's other bits
  /// (kUnused*), and the operation itself, on temporaries.
  uint8_t srcSel[2] = {6, 6}, dstSel = 6, dstUnused = 0;
  std::shared_ptr<const Instruction> subDword;
  std::string text;       ///< as LLVM prints it, for reports
};

struct Workgroup;
struct Dispatch;

/// Room past the register files, so that a register range a malformed
/// instruction names past the end reads and writes scratch, not memory
/// that is not the wave's.
constexpr unsigned kRegisterSlack = 16;
/// SDWA (gfx9, whose AGPRs fill the vector file): the sources' selected
/// fields and the result wait in three registers past the file, which no
/// instruction names.
constexpr unsigned kSubDwordTemporary = kVectorFileSize;
static_assert(kRegisterSlack >= 3, "SDWA's temporaries live in the slack");

struct Wave {
  uint32_t s[kScalarFileSize + kRegisterSlack] = {};
  bool scc = false;
  unsigned width = 64; ///< lanes: 64 (gfx9) or 32 (gfx11)
  unsigned index = 0;  ///< wave within the workgroup
  uint32_t pc = 0;     ///< index of the next instruction
  enum class State : uint8_t { Running, AtBarrier, Ended } state =
      State::Running;
  uint64_t executed = 0;
  std::vector<uint32_t> v; ///< kVectorFileSize x 64 lanes, [register][lane]
  std::vector<uint8_t> scratch; ///< 64 lanes' private segments, one after another
  Workgroup *group = nullptr;
  Dispatch *dispatch = nullptr;
  const Instruction *current = nullptr;

  uint64_t exec() const {
    return width == 64 ? (uint64_t(s[kExecHi]) << 32) | s[kExecLo]
                       : s[kExecLo];
  }
  void setExec(uint64_t mask) {
    s[kExecLo] = uint32_t(mask);
    if (width == 64)
      s[kExecHi] = uint32_t(mask >> 32);
  }
  uint64_t laneMask() const {
    return width == 64 ? ~uint64_t(0) : 0xffffffffull;
  }
  uint32_t *vreg(unsigned reg) { return &v[size_t(reg) * 64]; }
  const uint32_t *vreg(unsigned reg) const { return &v[size_t(reg) * 64]; }
};

/// Bit reversal (s_brev, v_bfrev): GCC has no builtin for it.
inline uint32_t reverseBits(uint32_t v) {
  v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
  v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
  v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(v);
}

/// Calls f(lane) for every lane of the EXEC mask.
template <typename F> inline void forEachActiveLane(const Wave &w, F &&f) {
  for (uint64_t mask = w.exec(); mask; mask &= mask - 1)
    f(unsigned(__builtin_ctzll(mask)));
}

/// Reads dword `dword` of a source operand for one lane (no modifiers).
inline uint32_t read32(const Wave &w, const Operand &o, unsigned lane,
                       unsigned dword = 0) {
  switch (o.kind) {
  case OperandKind::Vector: {
    uint32_t bits = w.v[size_t(o.index + dword) * 64 + lane];
    // gfx11 16-bit halves (v#.l, v#.h) read as the low 16 bits.
    return o.half == 0 ? bits : o.half == 2 ? bits >> 16 : bits & 0xffffu;
  }
  case OperandKind::Scalar:
    return o.index + dword == kNull ? 0 : w.s[o.index + dword];
  case OperandKind::Constant:
    return uint32_t(o.bits >> (32 * dword));
  case OperandKind::Scc:
    return w.scc;
  default:
    return 0;
  }
}
inline uint64_t read64(const Wave &w, const Operand &o, unsigned lane) {
  return read32(w, o, lane, 0) | (uint64_t(read32(w, o, lane, 1)) << 32);
}
/// A scalar source: the same for every lane.
inline uint32_t scalar32(const Wave &w, const Operand &o, unsigned dword = 0) {
  return read32(w, o, 0, dword);
}
inline uint64_t scalar64(const Wave &w, const Operand &o) {
  return read64(w, o, 0);
}
inline void writeScalar32(Wave &w, const Operand &o, uint32_t value,
                          unsigned dword = 0) {
  if (o.index + dword != kNull)
    w.s[o.index + dword] = value;
}
inline void writeScalar64(Wave &w, const Operand &o, uint64_t value) {
  writeScalar32(w, o, uint32_t(value), 0);
  // A wave32 VCC or EXEC is one register.
  if (w.width == 32 && (o.index == kVccLo || o.index == kExecLo) && o.count == 1)
    return;
  writeScalar32(w, o, uint32_t(value >> 32), 1);
}
inline void write32(Wave &w, const Operand &o, unsigned lane, uint32_t value,
                    unsigned dword = 0) {
  uint32_t &bits = w.v[size_t(o.index + dword) * 64 + lane];
  // A gfx11 16-bit half takes the value's low 16 bits; the other half
  // is kept.
  if (o.half == 0)
    bits = value;
  else if (o.half == 2)
    bits = (bits & 0xffffu) | (value << 16);
  else
    bits = (bits & 0xffff0000u) | (value & 0xffffu);
}
inline void write64(Wave &w, const Operand &o, unsigned lane, uint64_t value) {
  write32(w, o, lane, uint32_t(value), 0);
  write32(w, o, lane, uint32_t(value >> 32), 1);
}
/// A lane mask (VCC or an SGPR pair; one SGPR on wave32).
inline uint64_t readMask(const Wave &w, const Operand &o) {
  if (o.kind == OperandKind::Constant)
    return w.width == 64 ? o.bits : uint32_t(o.bits);
  return w.width == 64 ? scalar64(w, o) : scalar32(w, o);
}
inline void writeMask(Wave &w, const Operand &o, uint64_t mask) {
  if (w.width == 64)
    writeScalar64(w, o, mask);
  else
    writeScalar32(w, o, uint32_t(mask));
}

} // namespace quilt::amdgcn

#endif // QUILT_EMULATOR_AMDGCN_ISA_H
