//===- VectorOps.cpp - Vector ALU instructions ----------------------------===//
//
// Part of the Quilt project. VOP1, VOP2, VOP3, VOP3P and VOPC (CDNA3 ISA
// chapter 6, RDNA3 chapter 6): each active lane of EXEC computes its own
// result; inactive lanes keep theirs, except a compare's mask, whose
// inactive bits are written 0. Operand order is the printed one:
// destinations first (a carry-out or compare mask right after the vector
// destination), then sources.
//
//===----------------------------------------------------------------------===//

#include "Semantics.h"
#include "VectorAlu.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace quilt::amdgcn {
namespace {

#define U(i) read32(w, in.ops[i], l)
#define U64(i) read64(w, in.ops[i], l)
#define F(i) srcF32(w, in.ops[i], l)
#define D(i) srcF64(w, in.ops[i], l)

#define VOP_U32(name, expr)                                                    \
  void name(Wave &w, const Instruction &in) {                                  \
    forEachActiveLane(w, [&](unsigned l) {                                     \
      write32(w, in.ops[0], l, uint32_t(expr));                                \
    });                                                                        \
  }
#define VOP_U64(name, expr)                                                    \
  void name(Wave &w, const Instruction &in) {                                  \
    forEachActiveLane(w, [&](unsigned l) {                                     \
      write64(w, in.ops[0], l, uint64_t(expr));                                \
    });                                                                        \
  }
#define VOP_F32(name, expr)                                                    \
  void name(Wave &w, const Instruction &in) {                                  \
    forEachActiveLane(w, [&](unsigned l) {                                     \
      write32(w, in.ops[0], l, bitsF32(outputModified(in, float(expr))));      \
    });                                                                        \
  }
#define VOP_F64(name, expr)                                                    \
  void name(Wave &w, const Instruction &in) {                                  \
    forEachActiveLane(w, [&](unsigned l) {                                     \
      write64(w, in.ops[0], l, bitsF64(outputModified(in, double(expr))));     \
    });                                                                        \
  }

// Moves.
VOP_U32(mov_b32, U(1))
VOP_U64(mov_b64, U64(1))

/// v_mov_b16 (gfx11): one 16-bit half (v#.l / v#.h) to another; the
/// destination's other half is kept (read32/write32 take the halves).
VOP_U32(mov_b16, U(1) & 0xffff)

// Integer arithmetic and bit operations.
VOP_U32(add_u32, U(1) + U(2))
VOP_U32(sub_u32, U(1) - U(2))
VOP_U32(subrev_u32, U(2) - U(1))
VOP_U32(add3_u32, U(1) + U(2) + U(3))
VOP_U32(mul_lo_u32, U(1) * U(2))
VOP_U32(mul_hi_u32, (uint64_t(U(1)) * U(2)) >> 32)
VOP_U32(mul_hi_i32, uint64_t(int64_t(int32_t(U(1))) * int32_t(U(2))) >> 32)
VOP_U32(mul_u32_u24, (U(1) & 0xffffff) * (U(2) & 0xffffff))
VOP_U32(mul_hi_u32_u24, (uint64_t(U(1) & 0xffffff) * (U(2) & 0xffffff)) >> 32)
VOP_U32(mad_u32_u24, (U(1) & 0xffffff) * (U(2) & 0xffffff) + U(3))
int32_t i24(uint32_t v) { return int32_t(v << 8) >> 8; }
VOP_U32(mul_i32_i24, int64_t(i24(U(1))) * i24(U(2)))
VOP_U32(mad_i32_i24, int64_t(i24(U(1))) * i24(U(2)) + int32_t(U(3)))
VOP_U32(and_b32, U(1) & U(2))
VOP_U32(or_b32, U(1) | U(2))
VOP_U32(xor_b32, U(1) ^ U(2))
VOP_U32(not_b32, ~U(1))
VOP_U32(or3_b32, U(1) | U(2) | U(3))
VOP_U32(xor3_b32, U(1) ^ U(2) ^ U(3))
VOP_U32(and_or_b32, (U(1) & U(2)) | U(3))
VOP_U32(lshl_or_b32, (U(1) << (U(2) & 31)) | U(3))
VOP_U32(lshl_add_u32, (U(1) << (U(2) & 31)) + U(3))
VOP_U32(add_lshl_u32, (U(1) + U(2)) << (U(3) & 31))
VOP_U32(xad_u32, (U(1) ^ U(2)) + U(3))
VOP_U32(lshlrev_b32, U(2) << (U(1) & 31))
VOP_U32(lshrrev_b32, U(2) >> (U(1) & 31))
VOP_U32(ashrrev_i32, int32_t(U(2)) >> (U(1) & 31))
// gfx9's 16-bit integer operations zero the destination's high half.
VOP_U32(lshlrev_b16, ((U(2) & 0xffff) << (U(1) & 15)) & 0xffff)
VOP_U32(lshrrev_b16, (U(2) & 0xffff) >> (U(1) & 15))
VOP_U32(add_u16, (U(1) + U(2)) & 0xffff)
VOP_U32(sub_u16, (U(1) - U(2)) & 0xffff)
VOP_U32(subrev_u16, (U(2) - U(1)) & 0xffff)
VOP_U32(mul_lo_u16, (U(1) * U(2)) & 0xffff)
VOP_U32(and_b16, U(1) & U(2) & 0xffff)
VOP_U32(or_b16, (U(1) | U(2)) & 0xffff)
VOP_U32(xor_b16, (U(1) ^ U(2)) & 0xffff)
VOP_U64(lshlrev_b64, U64(2) << (U(1) & 63))
VOP_U64(lshrrev_b64, U64(2) >> (U(1) & 63))
VOP_U64(ashrrev_i64, int64_t(U64(2)) >> (U(1) & 63))
VOP_U64(lshl_add_u64, (U64(1) << (U(2) & 7)) + U64(3))
VOP_U32(bfi_b32, (U(1) & U(2)) | (~U(1) & U(3)))
VOP_U32(alignbit_b32, ((uint64_t(U(1)) << 32) | U(2)) >> (U(3) & 31))
VOP_U32(alignbyte_b32, ((uint64_t(U(1)) << 32) | U(2)) >> (8 * (U(3) & 3)))
uint32_t bfe(uint32_t v, uint32_t offset, uint32_t width, bool sign) {
  offset &= 31, width &= 31;
  if (width == 0)
    return 0;
  uint32_t field = (v >> offset) & ((width == 32 ? 0 : (1u << width)) - 1);
  if (width + offset > 32)
    field = v >> offset;
  if (sign && (field >> (width - 1)) & 1)
    field |= ~0u << width;
  return field;
}
VOP_U32(bfe_u32, bfe(U(1), U(2), U(3), false))
VOP_U32(bfe_i32, bfe(U(1), U(2), U(3), true))
VOP_U32(bfm_b32, ((1u << (U(1) & 31)) - 1) << (U(2) & 31))
VOP_U32(bfrev_b32, reverseBits(U(1)))
VOP_U32(ffbh_u32, U(1) ? __builtin_clz(U(1)) : ~0u)
/// The first bit from the top that differs from the sign bit; none (0 or
/// -1): ~0.
uint32_t firstBitFromSign(uint32_t x) {
  uint32_t magnitude = int32_t(x) < 0 ? ~x : x;
  return magnitude ? __builtin_clz(magnitude) : ~0u;
}
VOP_U32(ffbh_i32, firstBitFromSign(U(1)))
VOP_U32(ffbl_b32, U(1) ? __builtin_ctz(U(1)) : ~0u)
VOP_U32(bcnt_u32_b32, __builtin_popcount(U(1)) + U(2))
VOP_U32(mbcnt_lo, __builtin_popcount(U(1) & uint32_t((uint64_t(1) << std::min(l, 32u)) - 1)) + U(2))
VOP_U32(mbcnt_hi, __builtin_popcount(U(1) & uint32_t(l > 32 ? (uint64_t(1) << (l - 32)) - 1 : 0)) + U(2))
VOP_U32(min_i32, std::min(int32_t(U(1)), int32_t(U(2))))
VOP_U32(max_i32, std::max(int32_t(U(1)), int32_t(U(2))))
VOP_U32(min_u32, std::min(U(1), U(2)))
VOP_U32(max_u32, std::max(U(1), U(2)))
VOP_U32(min3_i32, std::min({int32_t(U(1)), int32_t(U(2)), int32_t(U(3))}))
VOP_U32(max3_i32, std::max({int32_t(U(1)), int32_t(U(2)), int32_t(U(3))}))
VOP_U32(min3_u32, std::min({U(1), U(2), U(3)}))
VOP_U32(max3_u32, std::max({U(1), U(2), U(3)}))
int32_t med3(int32_t a, int32_t b, int32_t c) {
  return std::max(std::min(a, b), std::min(std::max(a, b), c));
}
VOP_U32(med3_i32, med3(int32_t(U(1)), int32_t(U(2)), int32_t(U(3))))
VOP_U32(cvt_pk_u16_u32, (U(1) & 0xffff) | (U(2) << 16))

/// v_perm_b32: each result byte picks a byte of {S0, S1} (S1 is bytes
/// 0-3), a sign replication, or a constant, by the selector's byte.
uint32_t permute(uint32_t s0, uint32_t s1, uint32_t selector) {
  uint64_t both = (uint64_t(s0) << 32) | s1;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t sel = (selector >> (8 * i)) & 0xff, byte;
    if (sel <= 7)
      byte = (both >> (8 * sel)) & 0xff;
    else if (sel == 8)
      byte = (s1 >> 15) & 1 ? 0xff : 0;
    else if (sel == 9)
      byte = (s1 >> 31) & 1 ? 0xff : 0;
    else if (sel == 10)
      byte = (s0 >> 15) & 1 ? 0xff : 0;
    else if (sel == 11)
      byte = (s0 >> 31) & 1 ? 0xff : 0;
    else if (sel == 12)
      byte = 0;
    else
      byte = 0xff;
    r |= byte << (8 * i);
  }
  return r;
}
VOP_U32(perm_b32, permute(U(1), U(2), U(3)))

/// v_mad_u64_u32 / v_mad_i64_i32 vdst, sdst, s0, s1, s2: the carry-out
/// mask goes to sdst (inactive lanes 0).
template <bool Signed> void mad64(Wave &w, const Instruction &in) {
  uint64_t carries = 0;
  forEachActiveLane(w, [&](unsigned l) {
    unsigned __int128 product;
    if (Signed)
      product = (unsigned __int128)(__int128(int64_t(int32_t(U(2))) *
                                             int64_t(int32_t(U(3)))) +
                                    __int128(int64_t(U64(4))));
    else
      product = (unsigned __int128)(uint64_t(U(2)) * uint64_t(U(3))) + U64(4);
    write64(w, in.ops[0], l, uint64_t(product));
    if (Signed) {
      __int128 exact = __int128(int64_t(int32_t(U(2)))) * int64_t(int32_t(U(3))) +
                       int64_t(U64(4));
      if (exact != int64_t(exact))
        carries |= uint64_t(1) << l;
    } else if (product >> 64) {
      carries |= uint64_t(1) << l;
    }
  });
  writeMask(w, in.ops[1], carries);
}

/// Adds and subtracts with a carry mask: vdst, sdst(carry out), s0, s1
/// [, carry in].
enum class CarryOp { Add, Sub, SubRev, AddC, SubB, SubBRev };
template <CarryOp Op> void carry(Wave &w, const Instruction &in) {
  uint64_t out = 0, carryIn = 0;
  if (Op == CarryOp::AddC || Op == CarryOp::SubB || Op == CarryOp::SubBRev)
    carryIn = readMask(w, in.ops[4]);
  forEachActiveLane(w, [&](unsigned l) {
    uint64_t a = U(2), b = U(3), c = (carryIn >> l) & 1, r;
    bool flag;
    switch (Op) {
    case CarryOp::Add:
    case CarryOp::AddC:
      r = a + b + c;
      flag = r >> 32;
      break;
    case CarryOp::Sub:
    case CarryOp::SubB:
      r = a - b - c;
      flag = b + c > a;
      break;
    default:
      r = b - a - c;
      flag = a + c > b;
      break;
    }
    write32(w, in.ops[0], l, uint32_t(r));
    if (flag)
      out |= uint64_t(1) << l;
  });
  writeMask(w, in.ops[1], out);
}

void cndmask(Wave &w, const Instruction &in) {
  // VOPD's v_dual_cndmask_b32 reads VCC without naming it.
  uint64_t mask = in.numOperands > 3
                      ? readMask(w, in.ops[3])
                      : (w.width == 64 ? (uint64_t(w.s[kVccHi]) << 32) : 0) |
                            w.s[kVccLo];
  forEachActiveLane(w, [&](unsigned l) {
    // Float source modifiers apply (VOP3); on bits they flip the sign.
    uint32_t a = U(1), b = U(2);
    if (in.ops[1].abs) a &= 0x7fffffff;
    if (in.ops[1].neg) a ^= 0x80000000;
    if (in.ops[2].abs) b &= 0x7fffffff;
    if (in.ops[2].neg) b ^= 0x80000000;
    write32(w, in.ops[0], l, (mask >> l) & 1 ? b : a);
  });
}

void readfirstlane(Wave &w, const Instruction &in) {
  uint64_t exec = w.exec();
  unsigned lane = exec ? __builtin_ctzll(exec) : 0;
  writeScalar32(w, in.ops[0], read32(w, in.ops[1], lane));
}
void readlane(Wave &w, const Instruction &in) {
  unsigned lane = scalar32(w, in.ops[2]) & (w.width - 1);
  writeScalar32(w, in.ops[0], read32(w, in.ops[1], lane));
}
void writelane(Wave &w, const Instruction &in) {
  unsigned lane = scalar32(w, in.ops[2]) & (w.width - 1);
  write32(w, in.ops[0], lane, scalar32(w, in.ops[1]));
}

// f32 arithmetic.
VOP_F32(add_f32, F(1) + F(2))
VOP_F32(sub_f32, F(1) - F(2))
VOP_F32(subrev_f32, F(2) - F(1))
VOP_F32(mul_f32, F(1) * F(2))
VOP_F32(fma_f32, std::fma(F(1), F(2), F(3)))
VOP_F32(fmac_f32, std::fma(F(1), F(2), asF32(read32(w, in.ops[0], l))))
VOP_F32(mad_f32, F(1) * F(2) + F(3))
VOP_F32(mac_f32, F(1) * F(2) + asF32(read32(w, in.ops[0], l)))
// LLVM prints both with their operands in product order: fmamk as
// src0, K, vsrc1 (D = src0 * K + vsrc1), fmaak as src0, vsrc1, K.
VOP_F32(fmamk_f32, std::fma(F(1), F(2), F(3)))
VOP_F32(fmaak_f32, std::fma(F(1), F(2), F(3)))
// Their unfused (GCN) forms, in the same printed order; LLVM's 32-bit
// integer division expansion uses madmk on gfx90a.
VOP_F32(madmk_f32, F(1) * F(2) + F(3))
VOP_F32(madak_f32, F(1) * F(2) + F(3))
VOP_F32(max_f32, std::fmax(F(1), F(2)))
VOP_F32(min_f32, std::fmin(F(1), F(2)))
VOP_F32(max3_f32, std::fmax(std::fmax(F(1), F(2)), F(3)))
VOP_F32(min3_f32, std::fmin(std::fmin(F(1), F(2)), F(3)))
float med3f(float a, float b, float c) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(c))
    return std::fmin(std::fmin(a, b), c);
  return std::fmax(std::fmin(a, b), std::fmin(std::fmax(a, b), c));
}
VOP_F32(med3_f32, med3f(F(1), F(2), F(3)))
VOP_F32(exp_f32, std::exp2(F(1)))
VOP_F32(log_f32, std::log2(F(1)))
VOP_F32(rcp_f32, 1.0f / F(1))
VOP_F32(rsq_f32, 1.0f / std::sqrt(F(1)))
VOP_F32(sqrt_f32, std::sqrt(F(1)))
VOP_F32(sin_f32, std::sin(F(1) * 6.283185307179586))
VOP_F32(cos_f32, std::cos(F(1) * 6.283185307179586))
VOP_F32(fract_f32, std::isinf(F(1)) ? std::nanf("") : std::fmin(F(1) - std::floor(F(1)), 0x1.fffffep-1f))
VOP_F32(trunc_f32, std::trunc(F(1)))
VOP_F32(ceil_f32, std::ceil(F(1)))
VOP_F32(floor_f32, std::floor(F(1)))
VOP_F32(rndne_f32, std::nearbyint(F(1)))
VOP_F32(ldexp_f32, std::ldexp(F(1), int32_t(U(2))))
float mantissa(float x) {
  int exponent;
  return std::isfinite(x) ? std::frexp(x, &exponent) : x;
}
int32_t exponent(float x) {
  int e = 0;
  if (std::isfinite(x))
    std::frexp(x, &e);
  return e;
}
VOP_F32(frexp_mant_f32, mantissa(F(1)))
VOP_U32(frexp_exp_i32_f32, exponent(F(1)))
/// v_div_scale/fmas/fixup: the steps of the division expansion, from the
/// ISA's pseudocode. div_scale scales the denominator (called with S0 ==
/// S1) or the numerator (S0 == S2) by 2^+-Scale where the quotient or the
/// reciprocal would leave the normal range, and sets VCC where the quotient
/// must be scaled back; div_fmas scales it back, by 2^Scale when the
/// quotient estimate (its S2) is at least 1 and by 2^-Scale below.
template <typename T> struct DivisionSteps;
template <> struct DivisionSteps<float> {
  static constexpr int kScale = 64, kExponentGap = 96, kTinyExponent = 23,
                       kBias = 127;
};
template <> struct DivisionSteps<double> {
  static constexpr int kScale = 128, kExponentGap = 768, kTinyExponent = 53,
                       kBias = 1023;
};
/// The biased exponent field of a normal number (denormals fall below 1).
template <typename T> int biasedExponent(T x) {
  int e = 0;
  std::frexp(x, &e);
  return e + DivisionSteps<T>::kBias - 1;
}
template <typename T> T source(const Wave &w, const Operand &o, unsigned l) {
  if constexpr (std::is_same_v<T, float>)
    return srcF32(w, o, l);
  else
    return srcF64(w, o, l);
}
template <typename T> void writeResult(Wave &w, const Operand &o, unsigned l, T r) {
  if constexpr (std::is_same_v<T, float>)
    write32(w, o, l, bitsF32(r));
  else
    write64(w, o, l, bitsF64(r));
}
template <typename T> void div_scale(Wave &w, const Instruction &in) {
  using Steps = DivisionSteps<T>;
  auto denormal = [](T x) { return std::fpclassify(x) == FP_SUBNORMAL; };
  uint64_t vcc = 0;
  forEachActiveLane(w, [&](unsigned l) {
    T s0 = source<T>(w, in.ops[2], l), s1 = source<T>(w, in.ops[3], l),
      s2 = source<T>(w, in.ops[4], l);
    T r = s0;
    bool flag = false;
    if (s2 == 0 || s1 == 0 || std::isnan(s1) || std::isnan(s2)) {
      r = std::numeric_limits<T>::quiet_NaN();
    } else if (biasedExponent(s2) - biasedExponent(s1) >= Steps::kExponentGap) {
      // The quotient near the largest number: only the denominator scales.
      flag = true;
      if (s0 == s1)
        r = std::ldexp(s0, Steps::kScale);
    } else if (denormal(s1)) {
      r = std::ldexp(s0, Steps::kScale);
    } else if (denormal(T(1) / s1) && denormal(s2 / s1)) {
      flag = true;
      if (s0 == s1)
        r = std::ldexp(s0, Steps::kScale);
    } else if (denormal(T(1) / s1)) {
      r = std::ldexp(s0, -Steps::kScale);
    } else if (denormal(s2 / s1)) {
      // A denormal quotient: only the numerator scales.
      flag = true;
      if (s0 == s2)
        r = std::ldexp(s0, Steps::kScale);
    } else if (biasedExponent(s2) <= Steps::kTinyExponent) {
      r = std::ldexp(s0, Steps::kScale); // a tiny numerator
    }
    vcc |= uint64_t(flag) << l;
    writeResult(w, in.ops[0], l, r);
  });
  writeMask(w, in.ops[1], vcc);
}
template <typename T> void div_fmas(Wave &w, const Instruction &in) {
  uint64_t vcc = (uint64_t(w.s[kVccHi]) << 32) | w.s[kVccLo];
  forEachActiveLane(w, [&](unsigned l) {
    T quotient = source<T>(w, in.ops[3], l);
    T r = std::fma(source<T>(w, in.ops[1], l), source<T>(w, in.ops[2], l),
                   quotient);
    if ((vcc >> l) & 1)
      r = std::ldexp(r, biasedExponent(quotient) >= DivisionSteps<T>::kBias
                            ? DivisionSteps<T>::kScale
                            : -DivisionSteps<T>::kScale);
    writeResult(w, in.ops[0], l, outputModified(in, r));
  });
}
template <typename T> T divFixup(T q, T d, T n) {
  if (std::isnan(d) || std::isnan(n))
    return std::numeric_limits<T>::quiet_NaN();
  if ((d == 0 && n == 0) || (std::isinf(d) && std::isinf(n)))
    return std::numeric_limits<T>::quiet_NaN();
  bool negative = std::signbit(d) != std::signbit(n);
  T infinity = std::numeric_limits<T>::infinity();
  if (d == 0 || std::isinf(n))
    return negative ? -infinity : infinity;
  if (std::isinf(d))
    return negative ? -T(0) : T(0);
  return std::isnan(q) ? n / d : q;
}
VOP_F32(div_fixup_f32, divFixup(F(1), F(2), F(3)))
VOP_F64(div_fixup_f64, divFixup(D(1), D(2), D(3)))

// f64 arithmetic.
VOP_F64(add_f64, D(1) + D(2))
VOP_F64(mul_f64, D(1) * D(2))
VOP_F64(fma_f64, std::fma(D(1), D(2), D(3)))
VOP_F64(fmac_f64, std::fma(D(1), D(2), asF64(read64(w, in.ops[0], l))))
VOP_F64(max_f64, std::fmax(D(1), D(2)))
VOP_F64(min_f64, std::fmin(D(1), D(2)))
VOP_F64(ldexp_f64, std::ldexp(D(1), int32_t(U(2))))
VOP_F64(rcp_f64, 1.0 / D(1))
VOP_F64(rsq_f64, 1.0 / std::sqrt(D(1)))
VOP_F64(sqrt_f64, std::sqrt(D(1)))
VOP_F64(trunc_f64, std::trunc(D(1)))
VOP_F64(floor_f64, std::floor(D(1)))
VOP_F64(ceil_f64, std::ceil(D(1)))
VOP_F64(rndne_f64, std::nearbyint(D(1)))
VOP_F64(fract_f64, std::isinf(D(1)) ? std::nan("") : std::fmin(D(1) - std::floor(D(1)), 0x1.fffffffffffffp-1))

// Conversions. Float to integer truncates and saturates; NaN gives 0.
template <typename I> I saturate(double x) {
  if (std::isnan(x))
    return 0;
  if (x <= double(std::numeric_limits<I>::min()))
    return std::numeric_limits<I>::min();
  if (x >= double(std::numeric_limits<I>::max()))
    return std::numeric_limits<I>::max();
  return I(x);
}
VOP_F32(cvt_f32_i32, float(int32_t(U(1))))
VOP_F32(cvt_f32_u32, float(U(1)))
VOP_U32(cvt_i32_f32, saturate<int32_t>(F(1)))
VOP_U32(cvt_u32_f32, saturate<uint32_t>(F(1)))
VOP_U32(cvt_flr_i32_f32, saturate<int32_t>(std::floor(F(1))))
VOP_U32(cvt_rpi_i32_f32, saturate<int32_t>(std::floor(F(1) + 0.5f)))
VOP_F32(cvt_f32_f64, float(D(1)))
VOP_F64(cvt_f64_f32, double(F(1)))
VOP_F64(cvt_f64_i32, double(int32_t(U(1))))
VOP_F64(cvt_f64_u32, double(U(1)))
VOP_U32(cvt_i32_f64, saturate<int32_t>(D(1)))
VOP_U32(cvt_u32_f64, saturate<uint32_t>(D(1)))
VOP_F32(cvt_f32_ubyte0, float(U(1) & 0xff))
VOP_F32(cvt_f32_ubyte1, float((U(1) >> 8) & 0xff))
VOP_F32(cvt_f32_ubyte2, float((U(1) >> 16) & 0xff))
VOP_F32(cvt_f32_ubyte3, float(U(1) >> 24))
/// f16 sources and results: op_sel bit 0 picks a source's high half, bit
/// 3 the destination's (VOP3 op_sel).
void cvt_f32_f16(Wave &w, const Instruction &in) {
  forEachActiveLane(w, [&](unsigned l) {
    float r = srcF16(w, in.ops[1], l, in.opSel & 1);
    write32(w, in.ops[0], l, bitsF32(outputModified(in, r)));
  });
}
void cvt_f16_f32(Wave &w, const Instruction &in) {
  forEachActiveLane(w, [&](unsigned l) {
    uint16_t h = f32ToF16(outputModified(in, F(1)));
    uint32_t old = read32(w, in.ops[0], l);
    // gfx9 zeroes the high half unless op_sel writes it.
    uint32_t r = (in.opSel & 8) ? (old & 0xffff) | (uint32_t(h) << 16) : h;
    write32(w, in.ops[0], l, r);
  });
}
void cvt_pkrtz_f16_f32(Wave &w, const Instruction &in) {
  forEachActiveLane(w, [&](unsigned l) {
    uint16_t lo = emu::f32ToF16(F(1), emu::Rounding::TowardZero);
    uint16_t hi = emu::f32ToF16(F(2), emu::Rounding::TowardZero);
    write32(w, in.ops[0], l, lo | (uint32_t(hi) << 16));
  });
}
void pack_b32_f16(Wave &w, const Instruction &in) {
  forEachActiveLane(w, [&](unsigned l) {
    uint32_t a = U(1), b = U(2);
    uint32_t lo = (in.opSel & 1) ? a >> 16 : a & 0xffff;
    uint32_t hi = (in.opSel & 2) ? b >> 16 : b & 0xffff;
    if (in.ops[1].neg) lo ^= 0x8000;
    if (in.ops[2].neg) hi ^= 0x8000;
    write32(w, in.ops[0], l, (lo & 0xffff) | (hi << 16));
  });
}

// f16 arithmetic (results in the low half; the high half is zeroed).
#define VOP_F16(name, expr)                                                    \
  void name(Wave &w, const Instruction &in) {                                  \
    forEachActiveLane(w, [&](unsigned l) {                                     \
      float a = srcF16(w, in.ops[1], l, in.opSel & 1);                         \
      float b = srcF16(w, in.ops[2], l, in.opSel & 2);                         \
      float c = srcF16(w, in.ops[3], l, in.opSel & 4);                         \
      (void)b, (void)c;                                                        \
      write32(w, in.ops[0], l, f32ToF16(outputModified(in, float(expr))));     \
    });                                                                        \
  }
VOP_F16(add_f16, a + b)
VOP_F16(sub_f16, a - b)
VOP_F16(mul_f16, a * b)
VOP_F16(fma_f16, std::fma(a, b, c))
VOP_F16(max_f16, std::fmax(a, b))
VOP_F16(min_f16, std::fmin(a, b))
VOP_F16(exp_f16, std::exp2(a))
VOP_F16(rcp_f16, 1.0f / a)

/// Packed math (VOP3P): two halves per register (f16) or two registers
/// (f32); op_sel picks each source's half for the low result, op_sel_hi
/// for the high one, neg_lo/neg_hi negate.
enum class PackedOp { Add, Mul, Fma, Max, Min };
template <PackedOp Op> void packedF16(Wave &w, const Instruction &in) {
  forEachActiveLane(w, [&](unsigned l) {
    uint32_t result = 0;
    for (int half = 0; half < 2; ++half) {
      uint8_t sel = half ? in.opSelHi : in.opSel;
      uint8_t neg = half ? in.negHi : in.negLo;
      float s[3];
      for (int i = 0; i < 3; ++i) {
        uint32_t bits = read32(w, in.ops[i + 1], l);
        s[i] = f16ToF32(uint16_t((sel >> i) & 1 ? bits >> 16 : bits));
        if ((neg >> i) & 1)
          s[i] = -s[i];
      }
      float r = Op == PackedOp::Add   ? s[0] + s[1]
                : Op == PackedOp::Mul ? s[0] * s[1]
                : Op == PackedOp::Fma ? std::fma(s[0], s[1], s[2])
                : Op == PackedOp::Max ? std::fmax(s[0], s[1])
                                      : std::fmin(s[0], s[1]);
      result |= uint32_t(f32ToF16(outputModified(in, r))) << (16 * half);
    }
    write32(w, in.ops[0], l, result);
  });
}
template <PackedOp Op> void packedF32(Wave &w, const Instruction &in) {
  forEachActiveLane(w, [&](unsigned l) {
    uint32_t result[2];
    for (int half = 0; half < 2; ++half) {
      uint8_t sel = half ? in.opSelHi : in.opSel;
      uint8_t neg = half ? in.negHi : in.negLo;
      float s[3];
      for (int i = 0; i < 3; ++i) {
        s[i] = asF32(read32(w, in.ops[i + 1], l, (sel >> i) & 1));
        if ((neg >> i) & 1)
          s[i] = -s[i];
      }
      float r = Op == PackedOp::Add   ? s[0] + s[1]
                : Op == PackedOp::Mul ? s[0] * s[1]
                                      : std::fma(s[0], s[1], s[2]);
      result[half] = bitsF32(outputModified(in, r));
    }
    write32(w, in.ops[0], l, result[0], 0);
    write32(w, in.ops[0], l, result[1], 1);
  });
}
void pk_mov_b32(Wave &w, const Instruction &in) {
  forEachActiveLane(w, [&](unsigned l) {
    uint32_t lo = read32(w, in.ops[1], l, in.opSel & 1);
    uint32_t hi = read32(w, in.ops[2], l, (in.opSel >> 1) & 1);
    write32(w, in.ops[0], l, lo, 0);
    write32(w, in.ops[0], l, hi, 1);
  });
}

/// v_fma_mix{,lo,hi}: each source is an f32, or (op_sel_hi bit set) the
/// f16 half op_sel picks; the fused result is an f32, or an f16 written to
/// the low or high half with the other half kept.
enum class MixResult { F32, Low, High };
template <MixResult Result> void fmaMix(Wave &w, const Instruction &in) {
  forEachActiveLane(w, [&](unsigned l) {
    float s[3];
    for (int i = 0; i < 3; ++i) {
      uint32_t bits = read32(w, in.ops[i + 1], l);
      float x = (in.opSelHi >> i) & 1
                    ? f16ToF32(uint16_t((in.opSel >> i) & 1 ? bits >> 16 : bits))
                    : asF32(bits);
      s[i] = modifiedF32(x, in.ops[i + 1]);
    }
    float r = outputModified(in, std::fma(s[0], s[1], s[2]));
    if (Result == MixResult::F32) {
      write32(w, in.ops[0], l, bitsF32(r));
      return;
    }
    uint32_t h = f32ToF16(r), old = read32(w, in.ops[0], l);
    write32(w, in.ops[0], l,
            Result == MixResult::High ? (old & 0xffffu) | (h << 16)
                                      : (old & 0xffff0000u) | h);
  });
}

// Compares: the mask destination gets one bit per lane, 0 for inactive
// lanes; v_cmpx also writes EXEC (gfx9: both; gfx10+: EXEC only, and the
// printed form has no destination).
enum class Cmp { F, Lt, Eq, Le, Gt, Ne, Ge, O, U, Nge, Nlg, Ngt, Nle, Neq, Nlt, T };
template <typename T> bool compare(Cmp op, T a, T b) {
  bool unordered = false;
  if constexpr (std::is_floating_point_v<T>)
    unordered = std::isnan(a) || std::isnan(b);
  switch (op) {
  case Cmp::F: return false;
  case Cmp::Lt: return a < b;
  case Cmp::Eq: return a == b;
  case Cmp::Le: return a <= b;
  case Cmp::Gt: return a > b;
  case Cmp::Ne: return unordered ? false : a != b; // lg: ordered not-equal
  case Cmp::Ge: return a >= b;
  case Cmp::O: return !unordered;
  case Cmp::U: return unordered;
  case Cmp::Nge: return !(a >= b);
  case Cmp::Nlg: return unordered || a == b;
  case Cmp::Ngt: return !(a > b);
  case Cmp::Nle: return !(a <= b);
  case Cmp::Neq: return !(a == b);
  case Cmp::Nlt: return !(a < b);
  case Cmp::T: return true;
  }
  return false;
}
enum class CmpType { I16, U16, I32, U32, I64, U64, F16, F32, F64 };
template <CmpType Type, Cmp Op, bool SetExec>
void vcmp(Wave &w, const Instruction &in) {
  // Sources follow the destination, which gfx10+'s v_cmpx omits.
  unsigned first = (SetExec && in.numOperands == 2) ? 0 : 1;
  uint64_t mask = 0;
  forEachActiveLane(w, [&](unsigned l) {
    const Operand &a = in.ops[first], &b = in.ops[first + 1];
    bool r;
    switch (Type) {
    case CmpType::I16: r = compare(Op, int16_t(read32(w, a, l)), int16_t(read32(w, b, l))); break;
    case CmpType::U16: r = compare(Op, uint16_t(read32(w, a, l)), uint16_t(read32(w, b, l))); break;
    case CmpType::I32: r = compare(Op, int32_t(read32(w, a, l)), int32_t(read32(w, b, l))); break;
    case CmpType::U32: r = compare(Op, read32(w, a, l), read32(w, b, l)); break;
    case CmpType::I64: r = compare(Op, int64_t(read64(w, a, l)), int64_t(read64(w, b, l))); break;
    case CmpType::U64: r = compare(Op, read64(w, a, l), read64(w, b, l)); break;
    case CmpType::F16: r = compare(Op, srcF16(w, a, l), srcF16(w, b, l)); break;
    case CmpType::F32: r = compare(Op, srcF32(w, a, l), srcF32(w, b, l)); break;
    case CmpType::F64: r = compare(Op, srcF64(w, a, l), srcF64(w, b, l)); break;
    }
    if (r)
      mask |= uint64_t(1) << l;
  });
  if (first == 1)
    writeMask(w, in.ops[0], mask);
  if (SetExec)
    w.setExec(mask);
}
/// v_cmp_class: S1's bits name the classes (signaling NaN, quiet NaN,
/// -inf, -normal, -denormal, -0, +0, +denormal, +normal, +inf).
template <bool F64> void cmpClass(Wave &w, const Instruction &in) {
  uint64_t mask = 0;
  forEachActiveLane(w, [&](unsigned l) {
    double x = F64 ? srcF64(w, in.ops[1], l) : double(srcF32(w, in.ops[1], l));
    uint32_t classes = read32(w, in.ops[2], l);
    int bit;
    bool neg = std::signbit(x);
    switch (std::fpclassify(F64 ? x : double(float(x)))) {
    case FP_NAN: bit = 1; break; // quiet (signaling NaNs are quieted by reads)
    case FP_INFINITE: bit = neg ? 2 : 9; break;
    case FP_ZERO: bit = neg ? 5 : 6; break;
    case FP_SUBNORMAL: bit = neg ? 4 : 7; break;
    default: bit = neg ? 3 : 8; break;
    }
    if (!F64 && std::fpclassify(float(x)) == FP_SUBNORMAL)
      bit = neg ? 4 : 7;
    if ((classes >> bit) & 1)
      mask |= uint64_t(1) << l;
  });
  writeMask(w, in.ops[0], mask);
}

#undef U
#undef U64
#undef F
#undef D

void addCompares(HandlerTable &t) {
  struct Named { const char *name; Cmp op; };
  static const Named floatOps[] = {
      {"f", Cmp::F},     {"lt", Cmp::Lt},   {"eq", Cmp::Eq},   {"le", Cmp::Le},
      {"gt", Cmp::Gt},   {"lg", Cmp::Ne},   {"ge", Cmp::Ge},   {"o", Cmp::O},
      {"u", Cmp::U},     {"nge", Cmp::Nge}, {"nlg", Cmp::Nlg}, {"ngt", Cmp::Ngt},
      {"nle", Cmp::Nle}, {"neq", Cmp::Neq}, {"nlt", Cmp::Nlt}, {"tru", Cmp::T}};
  static const Named intOps[] = {{"f", Cmp::F},   {"lt", Cmp::Lt}, {"eq", Cmp::Eq},
                                 {"le", Cmp::Le}, {"gt", Cmp::Gt}, {"ne", Cmp::Neq},
                                 {"ge", Cmp::Ge}, {"t", Cmp::T}};
  // A handler per (type, op, exec) instance: spelled out through a table of
  // templates so that no dispatch on the op happens per lane.
#define CMP_ROW(TYPE, OP)                                                      \
  {vcmp<CmpType::TYPE, Cmp::OP, false>, vcmp<CmpType::TYPE, Cmp::OP, true>}
#define CMP_ALL(TYPE)                                                          \
  {CMP_ROW(TYPE, F),   CMP_ROW(TYPE, Lt),  CMP_ROW(TYPE, Eq),  CMP_ROW(TYPE, Le),  \
   CMP_ROW(TYPE, Gt),  CMP_ROW(TYPE, Ne),  CMP_ROW(TYPE, Ge),  CMP_ROW(TYPE, O),   \
   CMP_ROW(TYPE, U),   CMP_ROW(TYPE, Nge), CMP_ROW(TYPE, Nlg), CMP_ROW(TYPE, Ngt), \
   CMP_ROW(TYPE, Nle), CMP_ROW(TYPE, Neq), CMP_ROW(TYPE, Nlt), CMP_ROW(TYPE, T)}
  static const Handler table[9][16][2] = {
      CMP_ALL(I16), CMP_ALL(U16), CMP_ALL(I32), CMP_ALL(U32), CMP_ALL(I64),
      CMP_ALL(U64), CMP_ALL(F16), CMP_ALL(F32), CMP_ALL(F64)};
#undef CMP_ALL
#undef CMP_ROW
  static const char *typeNames[9] = {"i16", "u16", "i32", "u32", "i64",
                                     "u64", "f16", "f32", "f64"};
  for (int type = 0; type < 9; ++type) {
    bool isFloat = type >= 6;
    auto add = [&](const Named &n) {
      for (int exec = 0; exec < 2; ++exec) {
        std::string name = std::string(exec ? "v_cmpx_" : "v_cmp_") + n.name +
                           "_" + typeNames[type];
        t[name] = {table[type][int(n.op)][exec], false};
      }
    };
    if (isFloat)
      for (const Named &n : floatOps)
        add(n);
    else
      for (const Named &n : intOps)
        add(n);
  }
  t["v_cmp_class_f32"] = {cmpClass<false>, false};
  t["v_cmp_class_f64"] = {cmpClass<true>, false};
}

} // namespace

void registerVectorOps(HandlerTable &t) {
  auto add = [&](const char *name, Handler h) { t[name] = {h, false}; };
  add("v_mov_b32", mov_b32), add("v_mov_b64", mov_b64), add("v_mov_b16", mov_b16);
  add("v_accvgpr_write_b32", mov_b32), add("v_accvgpr_read_b32", mov_b32);
  add("v_accvgpr_mov_b32", mov_b32);
  add("v_add_u32", add_u32), add("v_add_nc_u32", add_u32);
  add("v_sub_u32", sub_u32), add("v_sub_nc_u32", sub_u32);
  add("v_subrev_u32", subrev_u32), add("v_subrev_nc_u32", subrev_u32);
  add("v_add3_u32", add3_u32);
  add("v_mul_lo_u32", mul_lo_u32), add("v_mul_hi_u32", mul_hi_u32);
  add("v_mul_hi_i32", mul_hi_i32);
  add("v_mul_u32_u24", mul_u32_u24), add("v_mul_hi_u32_u24", mul_hi_u32_u24);
  add("v_mad_u32_u24", mad_u32_u24), add("v_mul_i32_i24", mul_i32_i24);
  add("v_mad_i32_i24", mad_i32_i24);
  add("v_mad_u64_u32", mad64<false>), add("v_mad_i64_i32", mad64<true>);
  add("v_add_co_u32", carry<CarryOp::Add>), add("v_sub_co_u32", carry<CarryOp::Sub>);
  add("v_subrev_co_u32", carry<CarryOp::SubRev>);
  add("v_addc_co_u32", carry<CarryOp::AddC>), add("v_add_co_ci_u32", carry<CarryOp::AddC>);
  add("v_subb_co_u32", carry<CarryOp::SubB>), add("v_sub_co_ci_u32", carry<CarryOp::SubB>);
  add("v_subbrev_co_u32", carry<CarryOp::SubBRev>);
  add("v_subrev_co_ci_u32", carry<CarryOp::SubBRev>);
  add("v_and_b32", and_b32), add("v_or_b32", or_b32), add("v_xor_b32", xor_b32);
  add("v_not_b32", not_b32), add("v_or3_b32", or3_b32), add("v_xor3_b32", xor3_b32);
  add("v_and_or_b32", and_or_b32), add("v_lshl_or_b32", lshl_or_b32);
  add("v_lshl_add_u32", lshl_add_u32), add("v_add_lshl_u32", add_lshl_u32);
  add("v_xad_u32", xad_u32);
  add("v_lshlrev_b32", lshlrev_b32), add("v_lshrrev_b32", lshrrev_b32);
  add("v_ashrrev_i32", ashrrev_i32);
  add("v_lshlrev_b16", lshlrev_b16), add("v_lshrrev_b16", lshrrev_b16);
  add("v_add_u16", add_u16), add("v_sub_u16", sub_u16);
  add("v_subrev_u16", subrev_u16), add("v_mul_lo_u16", mul_lo_u16);
  add("v_add_nc_u16", add_u16), add("v_sub_nc_u16", sub_u16);
  add("v_and_b16", and_b16), add("v_or_b16", or_b16), add("v_xor_b16", xor_b16);
  add("v_lshlrev_b64", lshlrev_b64), add("v_lshrrev_b64", lshrrev_b64);
  add("v_ashrrev_i64", ashrrev_i64), add("v_lshl_add_u64", lshl_add_u64);
  add("v_bfi_b32", bfi_b32), add("v_alignbit_b32", alignbit_b32);
  add("v_alignbyte_b32", alignbyte_b32);
  add("v_bfe_u32", bfe_u32), add("v_bfe_i32", bfe_i32), add("v_bfm_b32", bfm_b32);
  add("v_bfrev_b32", bfrev_b32), add("v_ffbh_u32", ffbh_u32), add("v_ffbl_b32", ffbl_b32);
  add("v_ffbh_i32", ffbh_i32), add("v_cls_i32", ffbh_i32);
  add("v_clz_i32_u32", ffbh_u32), add("v_ctz_i32_b32", ffbl_b32);
  add("v_bcnt_u32_b32", bcnt_u32_b32);
  add("v_mbcnt_lo_u32_b32", mbcnt_lo), add("v_mbcnt_hi_u32_b32", mbcnt_hi);
  add("v_min_i32", min_i32), add("v_max_i32", max_i32);
  add("v_min_u32", min_u32), add("v_max_u32", max_u32);
  add("v_min3_i32", min3_i32), add("v_max3_i32", max3_i32);
  add("v_min3_u32", min3_u32), add("v_max3_u32", max3_u32);
  add("v_med3_i32", med3_i32), add("v_perm_b32", perm_b32);
  add("v_cvt_pk_u16_u32", cvt_pk_u16_u32);
  add("v_cndmask_b32", cndmask);
  add("v_readfirstlane_b32", readfirstlane), add("v_readlane_b32", readlane);
  add("v_writelane_b32", writelane);
  add("v_add_f32", add_f32), add("v_sub_f32", sub_f32), add("v_subrev_f32", subrev_f32);
  add("v_mul_f32", mul_f32), add("v_fma_f32", fma_f32), add("v_fmac_f32", fmac_f32);
  add("v_mad_f32", mad_f32), add("v_mac_f32", mac_f32);
  add("v_fmamk_f32", fmamk_f32), add("v_fmaak_f32", fmaak_f32);
  add("v_madmk_f32", madmk_f32), add("v_madak_f32", madak_f32);
  add("v_max_f32", max_f32), add("v_min_f32", min_f32);
  add("v_max3_f32", max3_f32), add("v_min3_f32", min3_f32), add("v_med3_f32", med3_f32);
  add("v_exp_f32", exp_f32), add("v_log_f32", log_f32), add("v_rcp_f32", rcp_f32);
  add("v_rcp_iflag_f32", rcp_f32);
  add("v_rcp_iflag_f32", rcp_f32);
  add("v_rsq_f32", rsq_f32), add("v_sqrt_f32", sqrt_f32);
  add("v_sin_f32", sin_f32), add("v_cos_f32", cos_f32), add("v_fract_f32", fract_f32);
  add("v_trunc_f32", trunc_f32), add("v_ceil_f32", ceil_f32);
  add("v_floor_f32", floor_f32), add("v_rndne_f32", rndne_f32);
  add("v_ldexp_f32", ldexp_f32);
  add("v_frexp_exp_i32_f32", frexp_exp_i32_f32);
  add("v_frexp_mant_f32", frexp_mant_f32);
  add("v_div_scale_f32", div_scale<float>), add("v_div_fmas_f32", div_fmas<float>);
  add("v_div_fixup_f32", div_fixup_f32);
  add("v_div_scale_f64", div_scale<double>), add("v_div_fmas_f64", div_fmas<double>);
  add("v_div_fixup_f64", div_fixup_f64);
  add("v_add_f64", add_f64), add("v_mul_f64", mul_f64), add("v_fma_f64", fma_f64);
  add("v_fmac_f64", fmac_f64), add("v_max_f64", max_f64), add("v_min_f64", min_f64);
  add("v_ldexp_f64", ldexp_f64), add("v_rcp_f64", rcp_f64), add("v_rsq_f64", rsq_f64);
  add("v_sqrt_f64", sqrt_f64), add("v_trunc_f64", trunc_f64);
  add("v_floor_f64", floor_f64), add("v_ceil_f64", ceil_f64);
  add("v_rndne_f64", rndne_f64), add("v_fract_f64", fract_f64);
  add("v_cvt_f32_i32", cvt_f32_i32), add("v_cvt_f32_u32", cvt_f32_u32);
  add("v_cvt_i32_f32", cvt_i32_f32), add("v_cvt_u32_f32", cvt_u32_f32);
  add("v_cvt_flr_i32_f32", cvt_flr_i32_f32), add("v_cvt_rpi_i32_f32", cvt_rpi_i32_f32);
  add("v_cvt_f32_f64", cvt_f32_f64), add("v_cvt_f64_f32", cvt_f64_f32);
  add("v_cvt_f64_i32", cvt_f64_i32), add("v_cvt_f64_u32", cvt_f64_u32);
  add("v_cvt_i32_f64", cvt_i32_f64), add("v_cvt_u32_f64", cvt_u32_f64);
  add("v_cvt_f32_ubyte0", cvt_f32_ubyte0), add("v_cvt_f32_ubyte1", cvt_f32_ubyte1);
  add("v_cvt_f32_ubyte2", cvt_f32_ubyte2), add("v_cvt_f32_ubyte3", cvt_f32_ubyte3);
  add("v_cvt_f32_f16", cvt_f32_f16), add("v_cvt_f16_f32", cvt_f16_f32);
  add("v_cvt_pkrtz_f16_f32", cvt_pkrtz_f16_f32), add("v_cvt_pk_rtz_f16_f32", cvt_pkrtz_f16_f32);
  add("v_pack_b32_f16", pack_b32_f16);
  add("v_add_f16", add_f16), add("v_sub_f16", sub_f16), add("v_mul_f16", mul_f16);
  add("v_fma_f16", fma_f16), add("v_max_f16", max_f16), add("v_min_f16", min_f16);
  add("v_exp_f16", exp_f16), add("v_rcp_f16", rcp_f16);
  add("v_pk_add_f16", packedF16<PackedOp::Add>), add("v_pk_mul_f16", packedF16<PackedOp::Mul>);
  add("v_pk_fma_f16", packedF16<PackedOp::Fma>), add("v_pk_max_f16", packedF16<PackedOp::Max>);
  add("v_pk_min_f16", packedF16<PackedOp::Min>);
  add("v_pk_add_f32", packedF32<PackedOp::Add>), add("v_pk_mul_f32", packedF32<PackedOp::Mul>);
  add("v_pk_fma_f32", packedF32<PackedOp::Fma>), add("v_pk_mov_b32", pk_mov_b32);
  add("v_fma_mix_f32", fmaMix<MixResult::F32>);
  add("v_fma_mixlo_f16", fmaMix<MixResult::Low>);
  add("v_fma_mixhi_f16", fmaMix<MixResult::High>);
  addCompares(t);
}

} // namespace quilt::amdgcn
