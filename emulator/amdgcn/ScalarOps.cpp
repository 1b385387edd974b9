//===- ScalarOps.cpp - Scalar ALU instructions ----------------------------===//
//
// Part of the Quilt project. SOP1, SOP2, SOPK and SOPC (CDNA3 ISA chapter
// 5, RDNA3 chapter 5): one result for the whole wave. SCC as each opcode's
// description sets it: carries for unsigned adds, signed overflow for
// signed ones, "result != 0" for bit operations and shifts.
//
//===----------------------------------------------------------------------===//

#include "Semantics.h"

namespace quilt::amdgcn {
namespace {

// Operands: D = ops[0], S0 = ops[1], S1 = ops[2].
#define S32(i) scalar32(w, in.ops[i])
#define S64(i) scalar64(w, in.ops[i])

/// SOP2 and SOP1 with a 32- or 64-bit result; SCC = result != 0.
#define BIT_OP32(name, expr)                                                   \
  void name(Wave &w, const Instruction &in) {                                  \
    uint32_t r = (expr);                                                       \
    writeScalar32(w, in.ops[0], r);                                           \
    w.scc = r != 0;                                                            \
  }
#define BIT_OP64(name, expr)                                                   \
  void name(Wave &w, const Instruction &in) {                                  \
    uint64_t r = (expr);                                                       \
    writeScalar64(w, in.ops[0], r);                                            \
    w.scc = r != 0;                                                            \
  }
/// Results that leave SCC alone.
#define PLAIN_OP32(name, expr)                                                 \
  void name(Wave &w, const Instruction &in) {                                  \
    writeScalar32(w, in.ops[0], uint32_t(expr));                               \
  }
#define PLAIN_OP64(name, expr)                                                 \
  void name(Wave &w, const Instruction &in) {                                  \
    writeScalar64(w, in.ops[0], uint64_t(expr));                               \
  }
#define COMPARE(name, type, width)                                             \
  void name##_lt(Wave &w, const Instruction &in) {                             \
    w.scc = type(S##width(0)) < type(S##width(1));                             \
  }                                                                            \
  void name##_le(Wave &w, const Instruction &in) {                             \
    w.scc = type(S##width(0)) <= type(S##width(1));                            \
  }                                                                            \
  void name##_gt(Wave &w, const Instruction &in) {                             \
    w.scc = type(S##width(0)) > type(S##width(1));                             \
  }                                                                            \
  void name##_ge(Wave &w, const Instruction &in) {                             \
    w.scc = type(S##width(0)) >= type(S##width(1));                            \
  }                                                                            \
  void name##_eq(Wave &w, const Instruction &in) {                             \
    w.scc = type(S##width(0)) == type(S##width(1));                            \
  }                                                                            \
  void name##_lg(Wave &w, const Instruction &in) {                             \
    w.scc = type(S##width(0)) != type(S##width(1));                            \
  }

BIT_OP32(and32, S32(1) & S32(2))
BIT_OP64(and64, S64(1) & S64(2))
BIT_OP32(or32, S32(1) | S32(2))
BIT_OP64(or64, S64(1) | S64(2))
BIT_OP32(xor32, S32(1) ^ S32(2))
BIT_OP64(xor64, S64(1) ^ S64(2))
BIT_OP32(andn2_32, S32(1) & ~S32(2))
BIT_OP64(andn2_64, S64(1) & ~S64(2))
BIT_OP32(orn2_32, S32(1) | ~S32(2))
BIT_OP64(orn2_64, S64(1) | ~S64(2))
BIT_OP32(nand32, ~(S32(1) & S32(2)))
BIT_OP64(nand64, ~(S64(1) & S64(2)))
BIT_OP32(nor32, ~(S32(1) | S32(2)))
BIT_OP64(nor64, ~(S64(1) | S64(2)))
BIT_OP32(xnor32, ~(S32(1) ^ S32(2)))
BIT_OP64(xnor64, ~(S64(1) ^ S64(2)))
BIT_OP32(not32, ~S32(1))
BIT_OP64(not64, ~S64(1))
BIT_OP32(lshl32, S32(1) << (S32(2) & 31))
BIT_OP64(lshl64, S64(1) << (S32(2) & 63))
BIT_OP32(lshr32, S32(1) >> (S32(2) & 31))
BIT_OP64(lshr64, S64(1) >> (S32(2) & 63))
BIT_OP32(ashr32, uint32_t(int32_t(S32(1)) >> (S32(2) & 31)))
BIT_OP64(ashr64, uint64_t(int64_t(S64(1)) >> (S32(2) & 63)))
BIT_OP32(abs32, uint32_t(int32_t(S32(1)) < 0 ? -int64_t(int32_t(S32(1)))
                                              : int32_t(S32(1))))
BIT_OP32(bcnt1_32, uint32_t(__builtin_popcount(S32(1))))
BIT_OP64(bcnt1_64, uint64_t(__builtin_popcountll(S64(1))))

/// s_bfe: offset in S1[4:0] (S1[5:0] for 64 bits), width in S1[22:16].
uint64_t bitfield(uint64_t value, uint32_t control, unsigned bits, bool sign) {
  unsigned offset = control & (bits - 1);
  unsigned width = (control >> 16) & 0x7f;
  if (width == 0)
    return 0;
  if (width + offset > bits)
    width = bits - offset;
  uint64_t field = value >> offset;
  if (width < 64)
    field &= (uint64_t(1) << width) - 1;
  if (sign && width < 64 && (field >> (width - 1)) & 1)
    field |= ~uint64_t(0) << width;
  return bits == 32 ? uint32_t(field) : field;
}
BIT_OP32(bfe_u32, bitfield(S32(1), S32(2), 32, false))
BIT_OP32(bfe_i32, bitfield(S32(1), S32(2), 32, true))
BIT_OP64(bfe_u64, bitfield(S64(1), S32(2), 64, false))
BIT_OP64(bfe_i64, bitfield(S64(1), S32(2), 64, true))

PLAIN_OP32(mov32, S32(1))
PLAIN_OP64(mov64, S64(1))
PLAIN_OP32(movk, int32_t(int16_t(uint16_t(S32(1)))))
PLAIN_OP32(mul_i32, uint32_t(int32_t(S32(1)) * int64_t(int32_t(S32(2)))))
PLAIN_OP32(mul_hi_u32, (uint64_t(S32(1)) * S32(2)) >> 32)
PLAIN_OP32(mul_hi_i32, uint64_t(int64_t(int32_t(S32(1))) * int32_t(S32(2))) >> 32)
PLAIN_OP32(sext_i8, int32_t(int8_t(S32(1))))
PLAIN_OP32(sext_i16, int32_t(int16_t(S32(1))))
PLAIN_OP32(brev32, reverseBits(S32(1)))
PLAIN_OP32(pack_ll, (S32(1) & 0xffff) | (S32(2) << 16))
PLAIN_OP32(pack_lh, (S32(1) & 0xffff) | (S32(2) & 0xffff0000u))
PLAIN_OP32(pack_hh, (S32(1) >> 16) | (S32(2) & 0xffff0000u))
PLAIN_OP32(ff1_32, S32(1) ? __builtin_ctz(S32(1)) : ~0u)
PLAIN_OP32(ff1_64, S64(1) ? __builtin_ctzll(S64(1)) : ~0u)
PLAIN_OP32(flbit_32, S32(1) ? __builtin_clz(S32(1)) : ~0u)
PLAIN_OP32(flbit_64, S64(1) ? __builtin_clzll(S64(1)) : ~0u)

PLAIN_OP32(bitset0_32, S32(0) & ~(1u << (S32(1) & 31)))
PLAIN_OP32(bitset1_32, S32(0) | (1u << (S32(1) & 31)))
PLAIN_OP64(bitset0_64, S64(0) & ~(uint64_t(1) << (S32(1) & 63)))
PLAIN_OP64(bitset1_64, S64(0) | (uint64_t(1) << (S32(1) & 63)))

void cselect32(Wave &w, const Instruction &in) {
  writeScalar32(w, in.ops[0], w.scc ? S32(1) : S32(2));
}
void cselect64(Wave &w, const Instruction &in) {
  writeScalar64(w, in.ops[0], w.scc ? S64(1) : S64(2));
}
void cmov32(Wave &w, const Instruction &in) {
  if (w.scc)
    writeScalar32(w, in.ops[0], S32(1));
}
void cmov64(Wave &w, const Instruction &in) {
  if (w.scc)
    writeScalar64(w, in.ops[0], S64(1));
}

void add_u32(Wave &w, const Instruction &in) {
  uint64_t r = uint64_t(S32(1)) + S32(2);
  writeScalar32(w, in.ops[0], uint32_t(r));
  w.scc = r >> 32;
}
void addc_u32(Wave &w, const Instruction &in) {
  uint64_t r = uint64_t(S32(1)) + S32(2) + (w.scc ? 1 : 0);
  writeScalar32(w, in.ops[0], uint32_t(r));
  w.scc = r >> 32;
}
void sub_u32(Wave &w, const Instruction &in) {
  uint32_t a = S32(1), b = S32(2);
  writeScalar32(w, in.ops[0], a - b);
  w.scc = b > a;
}
void subb_u32(Wave &w, const Instruction &in) {
  uint64_t a = S32(1), b = uint64_t(S32(2)) + (w.scc ? 1 : 0);
  writeScalar32(w, in.ops[0], uint32_t(a - b));
  w.scc = b > a;
}
void add_i32(Wave &w, const Instruction &in) {
  int64_t r = int64_t(int32_t(S32(1))) + int32_t(S32(2));
  writeScalar32(w, in.ops[0], uint32_t(r));
  w.scc = r != int32_t(r);
}
void sub_i32(Wave &w, const Instruction &in) {
  int64_t r = int64_t(int32_t(S32(1))) - int32_t(S32(2));
  writeScalar32(w, in.ops[0], uint32_t(r));
  w.scc = r != int32_t(r);
}
/// s_lshl{1,2,3,4}_add_u32: SCC is the unsigned overflow.
template <unsigned Shift> void lshl_add(Wave &w, const Instruction &in) {
  uint64_t r = (uint64_t(S32(1)) << Shift) + S32(2);
  writeScalar32(w, in.ops[0], uint32_t(r));
  w.scc = r >> 32;
}
/// s_min/s_max: D is S0 when SCC, which says whether S0 was picked.
template <typename T, bool Min> void pick(Wave &w, const Instruction &in) {
  T a = T(S32(1)), b = T(S32(2));
  w.scc = Min ? a < b : a > b;
  writeScalar32(w, in.ops[0], uint32_t(w.scc ? a : b));
}
// SOPK: D = D op simm16.
void addk(Wave &w, const Instruction &in) {
  int64_t r = int64_t(int32_t(S32(0))) + int16_t(uint16_t(in.ops[1].bits));
  writeScalar32(w, in.ops[0], uint32_t(r));
  w.scc = r != int32_t(r);
}
void mulk(Wave &w, const Instruction &in) {
  writeScalar32(w, in.ops[0],
                uint32_t(int32_t(S32(0)) * int64_t(int16_t(uint16_t(in.ops[1].bits)))));
}
void cmovk(Wave &w, const Instruction &in) {
  if (w.scc)
    writeScalar32(w, in.ops[0], int32_t(int16_t(uint16_t(in.ops[1].bits))));
}

COMPARE(cmp_i32, int32_t, 32)
COMPARE(cmp_u32, uint32_t, 32)
void cmp_u64_eq(Wave &w, const Instruction &in) { w.scc = S64(0) == S64(1); }
void cmp_u64_lg(Wave &w, const Instruction &in) { w.scc = S64(0) != S64(1); }
void bitcmp0_32(Wave &w, const Instruction &in) { w.scc = !((S32(0) >> (S32(1) & 31)) & 1); }
void bitcmp1_32(Wave &w, const Instruction &in) { w.scc = (S32(0) >> (S32(1) & 31)) & 1; }
void bitcmp0_64(Wave &w, const Instruction &in) { w.scc = !((S64(0) >> (S32(1) & 63)) & 1); }
void bitcmp1_64(Wave &w, const Instruction &in) { w.scc = (S64(0) >> (S32(1) & 63)) & 1; }

/// s_*_saveexec: D = EXEC; EXEC = f(S0, EXEC); SCC = EXEC != 0. The
/// width is the wave's (b64 on wave64, b32 on wave32).
enum class SaveExec { And, Or, Xor, AndN2, OrN2, Nand, Nor, Xnor, AndN1 };
template <SaveExec Op> void saveexec(Wave &w, const Instruction &in) {
  uint64_t exec = w.exec(), s = readMask(w, in.ops[1]), r = 0;
  switch (Op) {
  case SaveExec::And: r = s & exec; break;
  case SaveExec::Or: r = s | exec; break;
  case SaveExec::Xor: r = s ^ exec; break;
  case SaveExec::AndN2: r = s & ~exec; break;
  case SaveExec::OrN2: r = s | ~exec; break;
  case SaveExec::Nand: r = ~(s & exec); break;
  case SaveExec::Nor: r = ~(s | exec); break;
  case SaveExec::Xnor: r = ~(s ^ exec); break;
  case SaveExec::AndN1: r = ~s & exec; break;
  }
  r &= w.laneMask();
  writeMask(w, in.ops[0], exec);
  w.setExec(r);
  w.scc = r != 0;
}

void getpc(Wave &w, const Instruction &in) {
  // The address of the next instruction, in the kernel's own numbering.
  writeScalar64(w, in.ops[0], uint64_t(in.address) + in.size);
}

#undef S32
#undef S64

} // namespace

void registerScalarOps(HandlerTable &t) {
  auto add = [&](const char *name, Handler h) { t[name] = {h, false}; };
  // Bit operations (gfx11 spells andn2/orn2 as and_not1/or_not1).
  add("s_and_b32", and32), add("s_and_b64", and64);
  add("s_or_b32", or32), add("s_or_b64", or64);
  add("s_xor_b32", xor32), add("s_xor_b64", xor64);
  add("s_andn2_b32", andn2_32), add("s_andn2_b64", andn2_64);
  add("s_and_not1_b32", andn2_32), add("s_and_not1_b64", andn2_64);
  add("s_orn2_b32", orn2_32), add("s_orn2_b64", orn2_64);
  add("s_or_not1_b32", orn2_32), add("s_or_not1_b64", orn2_64);
  add("s_nand_b32", nand32), add("s_nand_b64", nand64);
  add("s_nor_b32", nor32), add("s_nor_b64", nor64);
  add("s_xnor_b32", xnor32), add("s_xnor_b64", xnor64);
  add("s_not_b32", not32), add("s_not_b64", not64);
  add("s_lshl_b32", lshl32), add("s_lshl_b64", lshl64);
  add("s_lshr_b32", lshr32), add("s_lshr_b64", lshr64);
  add("s_ashr_i32", ashr32), add("s_ashr_i64", ashr64);
  add("s_abs_i32", abs32);
  add("s_bcnt1_i32_b32", bcnt1_32), add("s_bcnt1_i32_b64", bcnt1_64);
  add("s_bfe_u32", bfe_u32), add("s_bfe_i32", bfe_i32);
  add("s_bfe_u64", bfe_u64), add("s_bfe_i64", bfe_i64);
  add("s_ff1_i32_b32", ff1_32), add("s_ff1_i32_b64", ff1_64);
  add("s_ctz_i32_b32", ff1_32), add("s_ctz_i32_b64", ff1_64);
  add("s_flbit_i32_b32", flbit_32), add("s_flbit_i32_b64", flbit_64);
  add("s_clz_i32_u32", flbit_32), add("s_clz_i32_u64", flbit_64);
  add("s_brev_b32", brev32);
  add("s_bitset0_b32", bitset0_32), add("s_bitset1_b32", bitset1_32);
  add("s_bitset0_b64", bitset0_64), add("s_bitset1_b64", bitset1_64);
  // Moves and selects.
  add("s_mov_b32", mov32), add("s_mov_b64", mov64), add("s_movk_i32", movk);
  add("s_cselect_b32", cselect32), add("s_cselect_b64", cselect64);
  add("s_cmov_b32", cmov32), add("s_cmov_b64", cmov64), add("s_cmovk_i32", cmovk);
  add("s_sext_i32_i8", sext_i8), add("s_sext_i32_i16", sext_i16);
  add("s_pack_ll_b32_b16", pack_ll), add("s_pack_lh_b32_b16", pack_lh);
  add("s_pack_hh_b32_b16", pack_hh);
  // Arithmetic.
  add("s_add_u32", add_u32), add("s_addc_u32", addc_u32);
  add("s_sub_u32", sub_u32), add("s_subb_u32", subb_u32);
  add("s_add_i32", add_i32), add("s_sub_i32", sub_i32);
  add("s_mul_i32", mul_i32), add("s_mul_hi_u32", mul_hi_u32);
  add("s_mul_hi_i32", mul_hi_i32);
  add("s_lshl1_add_u32", lshl_add<1>), add("s_lshl2_add_u32", lshl_add<2>);
  add("s_lshl3_add_u32", lshl_add<3>), add("s_lshl4_add_u32", lshl_add<4>);
  add("s_min_i32", pick<int32_t, true>), add("s_max_i32", pick<int32_t, false>);
  add("s_min_u32", pick<uint32_t, true>), add("s_max_u32", pick<uint32_t, false>);
  add("s_addk_i32", addk), add("s_mulk_i32", mulk);
  // Compares.
#define ADD_COMPARES(prefix, fn)                                               \
  add(prefix "lt_" #fn, cmp_##fn##_lt), add(prefix "le_" #fn, cmp_##fn##_le),  \
      add(prefix "gt_" #fn, cmp_##fn##_gt),                                    \
      add(prefix "ge_" #fn, cmp_##fn##_ge),                                    \
      add(prefix "eq_" #fn, cmp_##fn##_eq),                                    \
      add(prefix "lg_" #fn, cmp_##fn##_lg)
  ADD_COMPARES("s_cmp_", i32);
  ADD_COMPARES("s_cmp_", u32);
  add("s_cmp_eq_u64", cmp_u64_eq), add("s_cmp_lg_u64", cmp_u64_lg);
#undef ADD_COMPARES
  add("s_bitcmp0_b32", bitcmp0_32), add("s_bitcmp1_b32", bitcmp1_32);
  add("s_bitcmp0_b64", bitcmp0_64), add("s_bitcmp1_b64", bitcmp1_64);
  // EXEC manipulation.
  for (const char *width : {"b32", "b64"}) {
    std::string w = width;
    add(("s_and_saveexec_" + w).c_str(), saveexec<SaveExec::And>);
    add(("s_or_saveexec_" + w).c_str(), saveexec<SaveExec::Or>);
    add(("s_xor_saveexec_" + w).c_str(), saveexec<SaveExec::Xor>);
    add(("s_andn2_saveexec_" + w).c_str(), saveexec<SaveExec::AndN2>);
    add(("s_and_not1_saveexec_" + w).c_str(), saveexec<SaveExec::AndN2>);
    add(("s_orn2_saveexec_" + w).c_str(), saveexec<SaveExec::OrN2>);
    add(("s_or_not1_saveexec_" + w).c_str(), saveexec<SaveExec::OrN2>);
    add(("s_nand_saveexec_" + w).c_str(), saveexec<SaveExec::Nand>);
    add(("s_nor_saveexec_" + w).c_str(), saveexec<SaveExec::Nor>);
    add(("s_xnor_saveexec_" + w).c_str(), saveexec<SaveExec::Xnor>);
    add(("s_andn1_saveexec_" + w).c_str(), saveexec<SaveExec::AndN1>);
    add(("s_and_not0_saveexec_" + w).c_str(), saveexec<SaveExec::AndN1>);
  }
  add("s_getpc_b64", getpc);
}

} // namespace quilt::amdgcn
