//===- VectorAlu.h - Helpers of the vector ALU handlers ---------*- C++ -*-===//
//
// Part of the Quilt project. Source reads with the VOP3 input modifiers
// (abs, then neg) and result writes with the output modifiers (omod, then
// clamp), as the ISA manuals order them.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_AMDGCN_VECTORALU_H
#define QUILT_EMULATOR_AMDGCN_VECTORALU_H

#include "Isa.h"

#include "../lib/FloatFormats.h"

#include <cmath>
#include <cstring>

namespace quilt::amdgcn {

inline float asF32(uint32_t b) { return emu::detail::floatFromBits(b); }
inline uint32_t bitsF32(float f) { return emu::detail::bitsOf(f); }
inline double asF64(uint64_t b) { return emu::detail::doubleFromBits(b); }
inline uint64_t bitsF64(double f) { return emu::detail::bitsOf(f); }
inline float f16ToF32(uint16_t h) { return emu::f16ToF32(h); }
inline uint16_t f32ToF16(float f) {
  return emu::f32ToF16(f, emu::Rounding::NearestEven);
}

inline float modifiedF32(float x, const Operand &o) {
  if (o.abs)
    x = std::fabs(x);
  return o.neg ? -x : x;
}
inline double modifiedF64(double x, const Operand &o) {
  if (o.abs)
    x = std::fabs(x);
  return o.neg ? -x : x;
}
inline float srcF32(const Wave &w, const Operand &o, unsigned lane) {
  return modifiedF32(asF32(read32(w, o, lane)), o);
}
inline double srcF64(const Wave &w, const Operand &o, unsigned lane) {
  return modifiedF64(asF64(read64(w, o, lane)), o);
}
/// An f16 source: the low half, or the high one when `high`.
inline float srcF16(const Wave &w, const Operand &o, unsigned lane,
                    bool high = false) {
  uint32_t bits = read32(w, o, lane);
  return modifiedF32(f16ToF32(uint16_t(high ? bits >> 16 : bits)), o);
}

template <typename T> inline T outputModified(const Instruction &in, T r) {
  switch (in.outputScale) {
  case 1: r *= 2; break;
  case 2: r *= 4; break;
  case -1: r *= T(0.5); break;
  default: break;
  }
  if (in.flags & kClamp)
    r = std::isnan(r) ? T(0) : std::fmin(std::fmax(r, T(0)), T(1));
  return r;
}

} // namespace quilt::amdgcn

#endif // QUILT_EMULATOR_AMDGCN_VECTORALU_H
