//===- FloatFormatsTest.cpp - f16/bf16/tf32 conversions with PTX rounding -===//
//
// Part of the Quilt project.
//
// Expected bit patterns are worked out by hand from IEEE 754 binary16
// (1/5/10), bfloat16 (1/8/7) and tf32 (1/8/10 in the upper 19 bits of an
// f32), not computed by another converter.
//
//===----------------------------------------------------------------------===//

#include "FloatFormats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace quilt::emu;

namespace {

uint32_t bits(float F) {
  uint32_t B;
  std::memcpy(&B, &F, 4);
  return B;
}

float fromBits(uint32_t B) {
  float F;
  std::memcpy(&F, &B, 4);
  return F;
}

constexpr Rounding RN = Rounding::NearestEven, RZ = Rounding::TowardZero,
                   RM = Rounding::Down, RP = Rounding::Up,
                   RNA = Rounding::NearestAway;

TEST(FloatFormats, F16ExactValues) {
  EXPECT_EQ(f32ToF16(1.0f, RN), 0x3c00);
  EXPECT_EQ(f32ToF16(-2.0f, RN), 0xc000);
  EXPECT_EQ(f32ToF16(0.5f, RZ), 0x3800);
  EXPECT_EQ(f32ToF16(65504.0f, RN), 0x7bff); // Largest finite f16.
  EXPECT_EQ(f32ToF16(0.0f, RN), 0x0000);
  EXPECT_EQ(f32ToF16(-0.0f, RN), 0x8000);
  EXPECT_EQ(f16ToF32(0x3c00), 1.0f);
  EXPECT_EQ(f16ToF32(0xfbff), -65504.0f);
}

TEST(FloatFormats, F16PointOne) {
  // 0.1 = 1.1001100110011... * 2^-4; 10 mantissa bits 1001100110, then
  // 011..., so nearest rounds down (0x2e66) and so does toward zero; up
  // gives 0x2e67.
  EXPECT_EQ(f32ToF16(0.1f, RN), 0x2e66);
  EXPECT_EQ(f32ToF16(0.1f, RZ), 0x2e66);
  EXPECT_EQ(f32ToF16(0.1f, RM), 0x2e66);
  EXPECT_EQ(f32ToF16(0.1f, RP), 0x2e67);
  EXPECT_EQ(f32ToF16(-0.1f, RM), 0xae67);
  EXPECT_EQ(f32ToF16(-0.1f, RP), 0xae66);
  EXPECT_EQ(f32ToF16(-0.1f, RZ), 0xae66);
  // 1/3 = 1.0101010101|0101... * 2^-2: exponent 13, nearest rounds down.
  EXPECT_EQ(f32ToF16(1.0f / 3.0f, RN), 0x3555);
}

TEST(FloatFormats, F16TiesToEven) {
  // 1 + 2^-11 is half way between 1 (even) and 1 + 2^-10 (odd).
  EXPECT_EQ(f32ToF16(1.0f + std::ldexp(1.0f, -11), RN), 0x3c00);
  // 1 + 3*2^-11 is half way between 0x3c01 (odd) and 0x3c02 (even).
  EXPECT_EQ(f32ToF16(1.0f + 3 * std::ldexp(1.0f, -11), RN), 0x3c02);
  // Just above the tie rounds up.
  EXPECT_EQ(f32ToF16(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20), RN),
            0x3c01);
}

TEST(FloatFormats, F16Overflow) {
  // 65520 is the midpoint between 65504 and 2^16: ties to even goes to
  // infinity (65504's mantissa is odd).
  EXPECT_EQ(f32ToF16(65520.0f, RN), 0x7c00);
  EXPECT_EQ(f32ToF16(65519.0f, RN), 0x7bff);
  EXPECT_EQ(f32ToF16(65520.0f, RZ), 0x7bff);
  EXPECT_EQ(f32ToF16(1e10f, RZ), 0x7bff);
  EXPECT_EQ(f32ToF16(1e10f, RN), 0x7c00);
  EXPECT_EQ(f32ToF16(1e10f, RM), 0x7bff);
  EXPECT_EQ(f32ToF16(1e10f, RP), 0x7c00);
  EXPECT_EQ(f32ToF16(-1e10f, RM), 0xfc00);
  EXPECT_EQ(f32ToF16(-1e10f, RP), 0xfbff);
  EXPECT_EQ(f32ToF16(-1e10f, RZ), 0xfbff);
  EXPECT_EQ(f32ToF16(INFINITY, RZ), 0x7c00); // Infinity stays infinity.
  EXPECT_EQ(f32ToF16(-INFINITY, RN), 0xfc00);
  // Just above 65504 rounds up to infinity only under .rp.
  EXPECT_EQ(f32ToF16(65505.0f, RP), 0x7c00);
  EXPECT_EQ(f32ToF16(65505.0f, RN), 0x7bff);
}

TEST(FloatFormats, F16Subnormals) {
  // Smallest subnormal 2^-24 = 0x0001, largest 0x03ff, smallest normal
  // 2^-14 = 0x0400.
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -24), RN), 0x0001);
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -14), RN), 0x0400);
  EXPECT_EQ(f32ToF16(std::ldexp(1023.0f, -24), RN), 0x03ff);
  EXPECT_EQ(f16ToF32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16ToF32(0x8200), -std::ldexp(512.0f, -24));
  // 2^-25 is half the smallest subnormal: ties to even gives zero, .rp the
  // smallest subnormal, slightly more rounds up under .rn.
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -25), RN), 0x0000);
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -25), RP), 0x0001);
  EXPECT_EQ(f32ToF16(std::ldexp(1.5f, -25), RN), 0x0001);
  EXPECT_EQ(f32ToF16(-std::ldexp(1.0f, -30), RM), 0x8001);
  EXPECT_EQ(f32ToF16(-std::ldexp(1.0f, -30), RN), 0x8000);
  // 3 * 2^-25 ties between 0x0001 (odd) and 0x0002 (even).
  EXPECT_EQ(f32ToF16(std::ldexp(3.0f, -25), RN), 0x0002);
  // 1023.5 * 2^-24 rounds to even: up into the smallest normal.
  EXPECT_EQ(f32ToF16(std::ldexp(1023.5f, -24), RN), 0x0400);
  // Float subnormals are far below f16's range.
  EXPECT_EQ(f32ToF16(std::numeric_limits<float>::denorm_min(), RP), 0x0001);
  EXPECT_EQ(f32ToF16(std::numeric_limits<float>::denorm_min(), RN), 0x0000);
}

TEST(FloatFormats, F16NaN) {
  EXPECT_EQ(f32ToF16(NAN, RN), 0x7fff);
  EXPECT_EQ(f32ToF16(-NAN, RZ), 0x7fff);
  EXPECT_TRUE(std::isnan(f16ToF32(0x7e00)));
  EXPECT_TRUE(std::isinf(f16ToF32(0x7c00)));
}

TEST(FloatFormats, F64ToF16RoundsOnce) {
  // 1 + 2^-11 + 2^-40 is above the f16 tie; through f32 it would first
  // round to 1 + 2^-11 (the tie) and then to even 1.0. Rounded once it is
  // 1 + 2^-10.
  double X = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(f32ToF16(float(X), RN), 0x3c00);
  EXPECT_EQ(f64ToF16(X, RN), 0x3c01);
  EXPECT_EQ(f64ToF16(0.1, RN), 0x2e66);
  EXPECT_EQ(f64ToF16(1e300, RZ), 0x7bff);
  EXPECT_EQ(f64ToF16(std::numeric_limits<double>::denorm_min(), RP), 0x0001);
}

TEST(FloatFormats, Bf16) {
  EXPECT_EQ(f32ToBf16(1.0f, RN), 0x3f80);
  EXPECT_EQ(bf16ToF32(0x3f80), 1.0f);
  EXPECT_EQ(bf16ToF32(0xc040), -3.0f);
  // 1 + 2^-8 ties between 1.0 (even) and 1 + 2^-7 (odd).
  EXPECT_EQ(f32ToBf16(fromBits(0x3f808000), RN), 0x3f80);
  // 1 + 3 * 2^-8 ties between 0x3f81 (odd) and 0x3f82 (even).
  EXPECT_EQ(f32ToBf16(fromBits(0x3f818000), RN), 0x3f82);
  EXPECT_EQ(f32ToBf16(fromBits(0x3f808001), RN), 0x3f81);
  EXPECT_EQ(f32ToBf16(fromBits(0x3f80ffff), RZ), 0x3f80);
  EXPECT_EQ(f32ToBf16(fromBits(0x3f800001), RP), 0x3f81);
  EXPECT_EQ(f32ToBf16(fromBits(0xbf800001), RM), 0xbf81);
  // 0.1f = 0x3dcccccd -> 0x3dcd (the dropped 0xcccd is above half).
  EXPECT_EQ(f32ToBf16(0.1f, RN), 0x3dcd);
  EXPECT_EQ(f32ToBf16(0.1f, RZ), 0x3dcc);
  // Overflow: the largest finite float rounds up to infinity under .rn and
  // to bf16's largest finite 0x7f7f under .rz.
  EXPECT_EQ(f32ToBf16(std::numeric_limits<float>::max(), RN), 0x7f80);
  EXPECT_EQ(f32ToBf16(std::numeric_limits<float>::max(), RZ), 0x7f7f);
  EXPECT_EQ(f32ToBf16(NAN, RN), 0x7fff);
  // bf16 has f32's subnormals (truncated to 7 bits).
  EXPECT_EQ(f32ToBf16(fromBits(0x00010000), RN), 0x0001);
  EXPECT_EQ(f32ToBf16(fromBits(0x00018000), RN), 0x0002);
}

TEST(FloatFormats, Tf32) {
  EXPECT_EQ(f32ToTf32(1.0f, RNA), 0x3f800000u);
  // The low 13 bits are 0x1000 (exactly half): .rna goes away from zero,
  // .rn to even (down here, since bit 13 is 0).
  EXPECT_EQ(f32ToTf32(fromBits(0x3f801000), RNA), 0x3f802000u);
  EXPECT_EQ(f32ToTf32(fromBits(0x3f801000), RN), 0x3f800000u);
  EXPECT_EQ(f32ToTf32(fromBits(0x3f803000), RN), 0x3f804000u);
  EXPECT_EQ(f32ToTf32(fromBits(0xbf801000), RNA), 0xbf802000u);
  EXPECT_EQ(f32ToTf32(fromBits(0x3f800fff), RNA), 0x3f800000u);
  EXPECT_EQ(f32ToTf32(fromBits(0x3f801fff), RZ), 0x3f800000u);
  // 0.1f = 0x3dcccccd: low 13 bits 0x0ccd < 0x1000.
  EXPECT_EQ(f32ToTf32(0.1f, RNA), 0x3dccc000u);
  EXPECT_EQ(f32ToTf32(INFINITY, RNA), 0x7f800000u);
  EXPECT_EQ(f32ToTf32(std::numeric_limits<float>::max(), RNA), 0x7f800000u);
  EXPECT_EQ(f32ToTf32(std::numeric_limits<float>::max(), RZ), 0x7f7fe000u);
  EXPECT_TRUE(std::isnan(fromBits(f32ToTf32(NAN, RNA))));
  EXPECT_EQ(tf32ToF32(0x3f801fff), 1.0f);
}

TEST(FloatFormats, F32FromF64) {
  double X = 1.0 + std::ldexp(1.0, -24); // Tie between 1 and 1 + 2^-23.
  EXPECT_EQ(f32Round(X, RN), 1.0f);
  EXPECT_EQ(bits(f32Round(X, RP)), 0x3f800001u);
  EXPECT_EQ(bits(f32Round(-X, RM)), 0xbf800001u);
  EXPECT_EQ(f32Round(-X, RZ), -1.0f);
  EXPECT_EQ(f32Round(0.1, RN), 0.1f);
  EXPECT_EQ(bits(f32Round(0.1, RZ)), 0x3dcccccc);
  EXPECT_EQ(f32Round(1e300, RN), INFINITY);
  EXPECT_EQ(f32Round(1e300, RZ), std::numeric_limits<float>::max());
  EXPECT_EQ(f32Round(-1e300, RP), -std::numeric_limits<float>::max());
  // Float subnormals are produced, not flushed.
  EXPECT_EQ(bits(f32Round(std::ldexp(1.0, -149), RN)), 0x00000001u);
  EXPECT_EQ(bits(f32Round(std::ldexp(1.0, -150), RN)), 0x00000000u);
  EXPECT_EQ(bits(f32Round(std::ldexp(1.0, -150), RP)), 0x00000001u);
  EXPECT_EQ(bits(f32Round(std::nan(""), RN)), 0x7fffffffu);
}

TEST(FloatFormats, F16RoundTripAllPatterns) {
  // Every finite f16 converts to f32 and back unchanged in every mode.
  for (uint32_t B = 0; B < 0x10000; ++B) {
    if ((B & 0x7c00) == 0x7c00)
      continue;
    float F = f16ToF32(uint16_t(B));
    for (Rounding R : {RN, RZ, RM, RP})
      ASSERT_EQ(f32ToF16(F, R), B) << std::hex << B;
  }
}

} // namespace
