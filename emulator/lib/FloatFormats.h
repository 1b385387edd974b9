//===- FloatFormats.h - f16, bf16, tf32 conversions with PTX rounding -*- C++
//-*-===//
//
// Part of the Quilt project.
//
// The narrow floating-point formats the tensor-core instructions and cvt
// produce, converted with the rounding modifiers of PTX ISA section 9.7.9.21
// (cvt): .rn (nearest, ties to even), .rz (toward zero), .rm (down), .rp (up)
// and .rna (nearest, ties away from zero; only cvt.rna.tf32.f32 has it).
//
// Every conversion goes through one routine, roundFromDouble, that rounds
// the exact value of a double to a format with a given number of exponent
// and mantissa bits using integer arithmetic only. A float converts to a
// double exactly, so f32 -> f16 through it is a single rounding, and so is
// f64 -> f16 (no double rounding through f32), which is what cvt.f16.f64
// does.
//
// Results follow IEEE 754: overflow goes to infinity for the nearest modes
// and to the largest finite value of the right sign where the direction of
// rounding points to zero; results too small for the normal range become
// subnormals (no flush to zero: .ftz is the caller's business); a NaN input
// gives the canonical NaN of the target format (PTX's cvt produces the
// canonical NaN, 0x7fff for f16/bf16, 0x7fffffff for f32).
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_FLOATFORMATS_H
#define QUILT_EMULATOR_FLOATFORMATS_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace quilt::emu {

/// The PTX rounding modifiers for conversions to floating point.
enum class Rounding {
  NearestEven, ///< .rn
  TowardZero,  ///< .rz
  Down,        ///< .rm, toward negative infinity
  Up,          ///< .rp, toward positive infinity
  NearestAway, ///< .rna, ties away from zero (tf32 only in PTX)
};

namespace detail {

inline uint64_t bitsOf(double D) {
  uint64_t B;
  std::memcpy(&B, &D, sizeof(B));
  return B;
}

inline uint32_t bitsOf(float F) {
  uint32_t B;
  std::memcpy(&B, &F, sizeof(B));
  return B;
}

inline float floatFromBits(uint32_t B) {
  float F;
  std::memcpy(&F, &B, sizeof(F));
  return F;
}

inline double doubleFromBits(uint64_t B) {
  double D;
  std::memcpy(&D, &B, sizeof(D));
  return D;
}

/// Whether a magnitude that was truncated, with the dropped bits described
/// by Half (the first dropped bit) and Sticky (any later one), must go up by
/// one unit in the last place under Mode. Negative says which way "down" is.
inline bool roundsUp(bool Negative, bool Odd, bool Half, bool Sticky,
                     Rounding Mode) {
  switch (Mode) {
  case Rounding::NearestEven:
    return Half && (Sticky || Odd);
  case Rounding::NearestAway:
    return Half;
  case Rounding::TowardZero:
    return false;
  case Rounding::Down:
    return Negative && (Half || Sticky);
  case Rounding::Up:
    return !Negative && (Half || Sticky);
  }
  return false;
}

/// Whether an overflowing result becomes infinity (true) or the largest
/// finite value (false): the latter when rounding points toward zero.
inline bool overflowsToInfinity(bool Negative, Rounding Mode) {
  switch (Mode) {
  case Rounding::NearestEven:
  case Rounding::NearestAway:
    return true;
  case Rounding::TowardZero:
    return false;
  case Rounding::Down:
    return Negative;
  case Rounding::Up:
    return !Negative;
  }
  return true;
}

/// Rounds the exact value of X to a binary format with ExpBits exponent bits
/// and MantBits stored mantissa bits (f16: 5/10, bf16: 8/7, tf32: 8/10,
/// f32: 8/23) and returns its bit pattern, sign in bit ExpBits + MantBits.
/// A NaN gives CanonicalNaN.
inline uint64_t roundFromDouble(double X, int ExpBits, int MantBits,
                                Rounding Mode, uint64_t CanonicalNaN) {
  const uint64_t Bits = bitsOf(X);
  const bool Negative = Bits >> 63;
  const uint64_t Sign = uint64_t(Negative) << (ExpBits + MantBits);
  const uint64_t ExpAllOnes = (uint64_t(1) << ExpBits) - 1;
  const uint64_t Infinity = Sign | (ExpAllOnes << MantBits);
  const uint64_t MaxFinite =
      Sign | (((ExpAllOnes - 1) << MantBits) | ((uint64_t(1) << MantBits) - 1));

  const int DExp = int((Bits >> 52) & 0x7ff);
  uint64_t DMant = Bits & ((uint64_t(1) << 52) - 1);
  if (DExp == 0x7ff)
    return DMant ? CanonicalNaN : Infinity;
  if (DExp == 0 && DMant == 0)
    return Sign;

  // |X| = Mant * 2^(Exp - 52) with Mant's leading one at bit 52 for normal
  // doubles; subnormal doubles are normalised so the same holds.
  int Exp = DExp - 1023;
  uint64_t Mant = DMant | (uint64_t(1) << 52);
  if (DExp == 0) {
    Exp = -1022;
    Mant = DMant;
    while (!(Mant & (uint64_t(1) << 52))) {
      Mant <<= 1;
      --Exp;
    }
  }

  // The target's quantum (value of its last mantissa bit) is 2^(Exp -
  // MantBits) in the normal range and 2^(EMin - MantBits) below it.
  const int Bias = (1 << (ExpBits - 1)) - 1;
  const int EMin = 1 - Bias;
  const int QuantumExp = (Exp < EMin ? EMin : Exp) - MantBits;
  const int Drop = QuantumExp - (Exp - 52); // Bits of Mant below the quantum.

  uint64_t Kept;
  bool Half, Sticky;
  if (Drop <= 0) {
    // Only reachable for formats at least as precise as a double.
    Kept = Mant << -Drop;
    Half = Sticky = false;
  } else if (Drop > 54) {
    Kept = 0;
    Half = false;
    Sticky = true;
  } else {
    Kept = Mant >> Drop;
    Half = (Mant >> (Drop - 1)) & 1;
    Sticky = (Mant & ((uint64_t(1) << (Drop - 1)) - 1)) != 0;
  }
  if (roundsUp(Negative, Kept & 1, Half, Sticky, Mode))
    ++Kept;

  // Kept is the significand in units of the quantum. Below the normal range
  // the exponent field is zero and Kept is the whole encoding; a carry into
  // bit MantBits lands in the exponent field as the smallest normal. In the
  // normal range the implicit bit is replaced by the biased exponent, and a
  // carry out of the mantissa bumps the exponent the same way.
  uint64_t Magnitude;
  if (Exp < EMin)
    Magnitude = Kept;
  else
    Magnitude =
        (uint64_t(Exp + Bias) << MantBits) + (Kept - (uint64_t(1) << MantBits));
  if (Exp + Bias >= int(ExpAllOnes) || Magnitude >= (ExpAllOnes << MantBits))
    return overflowsToInfinity(Negative, Mode) ? Infinity : MaxFinite;
  return Sign | Magnitude;
}

/// Decodes a binary format's bit pattern into a double (exact).
inline double decode(uint64_t Bits, int ExpBits, int MantBits) {
  const bool Negative = (Bits >> (ExpBits + MantBits)) & 1;
  const int BiasedExp = int((Bits >> MantBits) & ((1u << ExpBits) - 1));
  const uint64_t Mant = Bits & ((uint64_t(1) << MantBits) - 1);
  const int Bias = (1 << (ExpBits - 1)) - 1;
  double Magnitude;
  if (BiasedExp == (1 << ExpBits) - 1)
    Magnitude = Mant ? std::nan("") : INFINITY;
  else if (BiasedExp == 0)
    Magnitude = std::ldexp(double(Mant), 1 - Bias - MantBits);
  else
    Magnitude = std::ldexp(double(Mant | (uint64_t(1) << MantBits)),
                           BiasedExp - Bias - MantBits);
  return Negative ? -Magnitude : Magnitude;
}

} // namespace detail

/// cvt.{rn,rz,rm,rp}.f16.f32.
inline uint16_t f32ToF16(float X, Rounding Mode) {
  return uint16_t(detail::roundFromDouble(X, 5, 10, Mode, 0x7fff));
}

/// cvt.{rn,rz,rm,rp}.f16.f64, rounded once from the double.
inline uint16_t f64ToF16(double X, Rounding Mode) {
  return uint16_t(detail::roundFromDouble(X, 5, 10, Mode, 0x7fff));
}

/// cvt.f32.f16 (exact). Bit manipulation rather than decode(): tensor-core
/// emulation converts every f16 operand element, and this is its hot path.
/// A NaN gives the canonical NaN 0x7fffffff, as PTX's conversions do.
inline float f16ToF32(uint16_t Bits) {
  uint32_t Sign = uint32_t(Bits & 0x8000u) << 16;
  uint32_t Exp = (Bits >> 10) & 0x1f, Mant = Bits & 0x3ffu;
  uint32_t Result;
  if (Exp == 0x1f) {
    Result = Mant ? 0x7fffffffu : (Sign | 0x7f800000u);
  } else if (Exp != 0) {
    Result = Sign | ((Exp + 112) << 23) | (Mant << 13);
  } else if (Mant == 0) {
    Result = Sign;
  } else {
    // Subnormal: Mant * 2^-24, normalized so its leading one is implicit.
    int Shift = __builtin_clz(Mant) - 21;
    Result = Sign | (uint32_t(1 - Shift + 112) << 23) |
             (((Mant << Shift) & 0x3ffu) << 13);
  }
  return detail::floatFromBits(Result);
}

/// cvt.{rn,rz,rm,rp}.bf16.f32.
inline uint16_t f32ToBf16(float X, Rounding Mode) {
  return uint16_t(detail::roundFromDouble(X, 8, 7, Mode, 0x7fff));
}

/// cvt.f32.bf16 (exact): a bf16 is the upper half of an f32.
inline float bf16ToF32(uint16_t Bits) {
  return detail::floatFromBits(uint32_t(Bits) << 16);
}

/// cvt.{rna,rn,rz}.tf32.f32: the result is an f32 bit pattern whose low 13
/// mantissa bits are zero. A NaN gives 0x7fffffff (canonical f32 NaN), which
/// is not itself a tf32 pattern; tensor cores ignore the low 13 bits.
inline uint32_t f32ToTf32(float X, Rounding Mode) {
  if (std::isnan(X))
    return 0x7fffffff;
  return uint32_t(detail::roundFromDouble(X, 8, 10, Mode, 0)) << 13;
}

/// The tf32 value an operand register holds: tensor cores read only the
/// upper 19 bits of the f32 pattern.
inline float tf32ToF32(uint32_t Bits) {
  return detail::floatFromBits(Bits & 0xffffe000u);
}

/// cvt.{rn,rz,rm,rp}.f32.f64.
inline float f32Round(double X, Rounding Mode) {
  return detail::floatFromBits(
      uint32_t(detail::roundFromDouble(X, 8, 23, Mode, 0x7fffffff)));
}

} // namespace quilt::emu

#endif // QUILT_EMULATOR_FLOATFORMATS_H
