//===- Ptx.h - The emulator's decoded form of a PTX module ------*- C++ -*-===//
//
// Part of the Quilt project.
//
// A PTX module is parsed once (PtxParser.cpp) into this form: every
// instruction's opcode, types, state space and modifiers are decoded into
// fields, every register into an index of its function's register file,
// every label into an instruction index and every symbol into an address, so
// that the executor never looks at text again.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_PTX_H
#define QUILT_EMULATOR_PTX_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace quilt::emu {

/// The fundamental types of PTX ISA section 5.2.1, plus the packed pairs and
/// tf32 that instructions name.
enum class Type : uint8_t {
  None,
  Pred,
  B8,
  B16,
  B32,
  B64,
  B128,
  U8,
  U16,
  U32,
  U64,
  S8,
  S16,
  S32,
  S64,
  F16,
  F16x2,
  BF16,
  BF16x2,
  TF32,
  F32,
  F64,
};

// Inline: the instruction families ask these for every lane they execute.
inline unsigned bitsOf(Type type) {
  switch (type) {
  case Type::None:
    return 0;
  case Type::Pred:
    return 1;
  case Type::B8:
  case Type::U8:
  case Type::S8:
    return 8;
  case Type::B16:
  case Type::U16:
  case Type::S16:
  case Type::F16:
  case Type::BF16:
    return 16;
  case Type::B32:
  case Type::U32:
  case Type::S32:
  case Type::F32:
  case Type::F16x2:
  case Type::BF16x2:
  case Type::TF32:
    return 32;
  case Type::B64:
  case Type::U64:
  case Type::S64:
  case Type::F64:
    return 64;
  case Type::B128:
    return 128;
  }
  return 0;
}

inline bool isSigned(Type type) {
  return type == Type::S8 || type == Type::S16 || type == Type::S32 ||
         type == Type::S64;
}

inline bool isFloat(Type type) {
  return type == Type::F16 || type == Type::F16x2 || type == Type::BF16 ||
         type == Type::BF16x2 || type == Type::F32 || type == Type::F64;
}

inline unsigned bytesOf(Type type) { return (bitsOf(type) + 7) / 8; }
const char *typeName(Type type);

/// State spaces (section 5.1). Generic addresses are 64-bit; see Memory.h
/// for how the shared and local windows are placed in them.
enum class Space : uint8_t { Generic, Global, Shared, Local, Param, Const };

/// Rounding modifiers (.rn .rz .rm .rp for floats; .rni .rzi .rmi .rpi for
/// float-to-integer and integral rounding; .rna for tf32).
enum class RoundingModifier : uint8_t {
  None,
  RN,
  RZ,
  RM,
  RP,
  RNA,
  RNI,
  RZI,
  RMI,
  RPI
};

enum class CmpOp : uint8_t {
  None,
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE,
  LO,
  LS,
  HI,
  HS,
  EQU,
  NEU,
  LTU,
  LEU,
  GTU,
  GEU,
  Number,
  NotANumber
};

enum class BoolOp : uint8_t { None, And, Or, Xor };

/// The special registers of section 10.
enum class Special : uint8_t {
  TidX,
  TidY,
  TidZ,
  NtidX,
  NtidY,
  NtidZ,
  CtaidX,
  CtaidY,
  CtaidZ,
  NctaidX,
  NctaidY,
  NctaidZ,
  LaneId,
  WarpId,
  NWarpId,
  SmId,
  NSmId,
  GridId,
  LanemaskEq,
  LanemaskLe,
  LanemaskLt,
  LanemaskGe,
  LanemaskGt,
  Clock,
  Clock64,
  GlobalTimer,
  DynamicSmemSize,
  TotalSmemSize,
  // Clusters of one CTA: the cluster is the CTA.
  ClusterCtaRank,
  ClusterNctaRank,
  ClusterCtaidX,
  ClusterCtaidY,
  ClusterCtaidZ,
  ClusterNctaidX,
  ClusterNctaidY,
  ClusterNctaidZ,
  ClusterIdX,
  ClusterIdY,
  ClusterIdZ,
  NClusterIdX,
  NClusterIdY,
  NClusterIdZ,
  IsExplicitCluster,
};

struct Operand {
  enum class Kind : uint8_t {
    None,
    Reg,     ///< `reg`; `negated` for `!%p`
    Imm,     ///< `imm` holds the bits (floats as their IEEE encoding)
    Special, ///< `special`
    Vector,  ///< `{a, b, ...}`: `elements`
    Address, ///< `[base + imm]`; `hasBase`; `elements`: `[t, {c0, c1}]`
    Label,   ///< `imm` is the target instruction index
    Symbol,  ///< a variable's address in `space` (`imm`), as a value
    Sink,    ///< `_`
  };
  Kind kind = Kind::None;
  bool negated = false;
  bool hasBase = false;
  /// A symbol of an unsized `.extern .shared` array: the start of the
  /// CTA's dynamic shared memory, added to `imm` once the kernel's static
  /// shared size is known.
  bool dynamicShared = false;
  /// Immediates written as floating-point literals (0f..., 0d..., 1.5):
  /// their precision, converted to the instruction's type after decoding.
  enum class Literal : uint8_t { Integer, F32, F64 };
  Literal literal = Literal::Integer;
  /// Symbol operands and symbol-based addresses: the symbol's space.
  Space space = Space::Generic;
  Special special = Special::TidX;
  uint32_t reg = 0;
  uint64_t imm = 0;
  std::vector<Operand> elements;
};

enum class Op : uint16_t {
  Invalid,
  // Integer and bit arithmetic (section 9.7.1, 9.7.8).
  Add,
  Sub,
  Mul,
  Mad,
  Mul24,
  Mad24,
  Div,
  Rem,
  Abs,
  Neg,
  Min,
  Max,
  Popc,
  Clz,
  Brev,
  Bfe,
  Bfi,
  Prmt,
  Lop3,
  And,
  Or,
  Xor,
  Not,
  Cnot,
  Shl,
  Shr,
  Shf,
  AddCC,
  AddC,
  SubCC,
  SubC,
  MadCC,
  MadC,
  // Floating point (9.7.3, 9.7.4).
  Fma,
  Rcp,
  Sqrt,
  Rsqrt,
  Sin,
  Cos,
  Lg2,
  Ex2,
  Tanh,
  Copysign,
  Testp,
  // Comparison, selection, data movement and conversion (9.7.6-9.7.9).
  Setp,
  Set,
  Selp,
  Slct,
  Mov,
  Cvt,
  Cvta,
  Isspacep,
  Ld,
  St,
  Prefetch,
  // Control flow (9.7.12).
  Bra,
  Call,
  Ret,
  Exit,
  Trap,
  // Synchronization and communication (9.7.13).
  BarSync,
  BarArrive,
  BarWarpSync,
  Fence,
  Atom,
  Red,
  Vote,
  Shfl,
  Activemask,
  ElectSync,
  Nanosleep,
  // Asynchronous copies (9.7.9.25) and tensor copies.
  CpAsync,
  CpAsyncCommit,
  CpAsyncWait,
  CpAsyncWaitAll,
  CpAsyncBulkTensor,
  // mbarrier (9.7.13.15).
  MbarInit,
  MbarInval,
  MbarArrive,
  MbarArriveExpectTx,
  MbarExpectTx,
  MbarCompleteTx,
  MbarTestWait,
  MbarTryWait,
  // Warp-level matrix instructions (9.7.14) and warpgroup ones (9.7.15).
  Ldmatrix,
  MmaSync,
  WgmmaMma,
  WgmmaFence,
  WgmmaCommit,
  WgmmaWait,
  // Register reallocation between warpgroups (9.7.19.5): `count` is the
  // new per-thread count, `hi` set for .inc.
  SetMaxNReg,
  // Accepted and without effect in a functional emulator.
  Nop,
};

/// `atom`/`red` operations and `shfl` modes.
enum class AtomOp : uint8_t {
  None,
  Add,
  Min,
  Max,
  Inc,
  Dec,
  And,
  Or,
  Xor,
  Exch,
  Cas
};
enum class ShflMode : uint8_t { Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { All, Any, Uni, Ballot };

/// One decoded instruction.
struct Instruction {
  Op op = Op::Invalid;
  /// The instruction's type (the destination type of cvt, the operand type
  /// of setp, the element type of ld/st) and a second one where the syntax
  /// has two (cvt's source; setp/selp have one).
  Type type = Type::None;
  Type type2 = Type::None;
  /// mma.sync / wgmma: types of D, A, B, C.
  Type mmaTypes[4] = {Type::None, Type::None, Type::None, Type::None};
  Space space = Space::Generic;
  RoundingModifier rounding = RoundingModifier::None;
  CmpOp cmp = CmpOp::None;
  BoolOp boolOp = BoolOp::None;
  AtomOp atomOp = AtomOp::None;
  ShflMode shfl = ShflMode::Idx;
  VoteMode vote = VoteMode::All;
  uint8_t vectorWidth = 1; ///< .v2 / .v4 / .v8
  bool ftz = false, sat = false, approx = false, uni = false;
  bool hi = false, lo = false, wide = false, full = false;
  bool trans = false;        ///< ldmatrix .trans
  bool propagateNaN = false; ///< min/max .NaN: a NaN operand gives NaN
  bool toSpace = false;      ///< cvta.to
  bool shiftLeft = false, shiftWrap = false; ///< shf
  /// Shapes and counts: mma m/n/k, ldmatrix's .num, tensor dimensions,
  /// wgmma's n.
  int shapeM = 0, shapeN = 0, shapeK = 0;
  int count = 0;
  bool aRowMajor = true, bColMajor = true;
  std::vector<Operand> operands;
  /// Predicate guard (`@%p` / `@!%p`).
  bool guarded = false, guardNegated = false;
  uint32_t guardReg = 0;
  /// Where it came from, for reports.
  uint32_t line = 0;
};

/// A variable declared at module scope or in a function.
struct Variable {
  std::string name;
  Space space = Space::Global;
  uint64_t size = 0; ///< bytes; 0 for an unsized (`[]`) extern array
  bool unsized = false;
  uint64_t alignment = 1;
  std::vector<uint8_t> initializer; ///< empty: zero
  /// Shared: offset in the CTA's shared window. Local: offset in the
  /// thread's local window. Global/const: host address of its storage.
  uint64_t address = 0;
};

struct Parameter {
  std::string name;
  uint32_t size = 0;
  uint32_t alignment = 1;
  uint32_t offset = 0; ///< in the launch's parameter buffer
};

struct Function {
  std::string name;
  bool isEntry = false;
  std::vector<Parameter> params;
  uint32_t paramBytes = 0;
  std::vector<Instruction> code;
  uint32_t numRegisters = 0;
  /// Register names by index (inline-assembly scopes make them non-unique).
  std::vector<std::string> registerNames;
  uint64_t staticSharedBytes = 0; ///< module shared variables this CTA has
  uint64_t localBytes = 0;        ///< per thread
  /// Bytes of `.param` space declared in the body (call sequences), per
  /// thread, placed after the kernel parameters.
  uint32_t scratchParamBytes = 0;
  uint32_t maxThreads[3] = {0, 0, 0}; ///< .maxntid / .reqntid, 0 when absent
  uint32_t minBlocksPerSM = 0;        ///< .minnctapersm, 0 when absent
  /// Per instruction: where lanes diverging at this branch reconverge
  /// (Reconvergence.h), computed once the body is parsed.
  std::vector<uint32_t> reconvergence;
};

/// What the module declares and defines.
struct Module {
  std::string version, target;
  std::vector<std::unique_ptr<Variable>> globals;
  std::map<std::string, Function> functions;
  /// Global/const storage: owned here, registered with the device memory
  /// so kernels may access it.
  std::vector<std::unique_ptr<uint8_t[]>> storage;
  uint64_t sharedBytes = 0; ///< all module-scope .shared variables
};

} // namespace quilt::emu

#endif // QUILT_EMULATOR_PTX_H
