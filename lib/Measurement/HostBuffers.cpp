//===- HostBuffers.cpp - Operands for compiled kernels, on the host -------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Measurement/HostBuffers.h"

#include <cmath>
#include <cstring>

namespace quilt::bench {

uint16_t floatToBFloat(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (std::isnan(value))
    return 0x7fc0;
  uint32_t roundingBias = 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + roundingBias) >> 16);
}

float bfloatToFloat(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

uint16_t floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint32_t sign = (bits >> 16) & 0x8000;
  int32_t exponent = int32_t((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffff;
  if (((bits >> 23) & 0xff) == 0xff) // inf or nan
    return uint16_t(sign | 0x7c00 | (mantissa ? 0x200 : 0));
  if (exponent >= 31)
    return uint16_t(sign | 0x7c00);
  if (exponent <= 0) {
    if (exponent < -10)
      return uint16_t(sign);
    mantissa |= 0x800000;
    int shift = 14 - exponent;
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1)))
      ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = sign | (uint32_t(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, which is right
  return uint16_t(half);
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else { // subnormal: normalize
      exponent = 127 - 15 + 1;
      while (!(mantissa & 0x400)) {
        mantissa <<= 1;
        --exponent;
      }
      bits = sign | (exponent << 23) | ((mantissa & 0x3ff) << 13);
    }
  } else if (exponent == 31) {
    bits = sign | 0x7f800000 | (mantissa << 13);
  } else {
    bits = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

HostTensor::HostTensor(ElemType elem, std::vector<int64_t> shape)
    : elem(elem), dims(std::move(shape)) {
  int64_t count = 1;
  for (int64_t d : dims)
    count *= d;
  values.assign(count, 0.0f);
  if (elem != ElemType::F32)
    halfs.assign(count, 0);
}

void HostTensor::fillRandom(std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (size_t i = 0; i < values.size(); ++i) {
    float v = dist(rng);
    if (elem == ElemType::F16) {
      halfs[i] = floatToHalf(v);
      v = halfToFloat(halfs[i]);
    } else if (elem == ElemType::BF16) {
      halfs[i] = floatToBFloat(v);
      v = bfloatToFloat(halfs[i]);
    }
    values[i] = v;
  }
}

void HostTensor::fill(float value) {
  uint16_t bits = 0;
  if (elem == ElemType::F16) {
    bits = floatToHalf(value);
    value = halfToFloat(bits);
  } else if (elem == ElemType::BF16) {
    bits = floatToBFloat(value);
    value = bfloatToFloat(bits);
  }
  std::fill(values.begin(), values.end(), value);
  std::fill(halfs.begin(), halfs.end(), bits);
}

void HostTensor::syncFromStorage() {
  if (elem == ElemType::F16)
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = halfToFloat(halfs[i]);
  else if (elem == ElemType::BF16)
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = bfloatToFloat(halfs[i]);
}

void *HostTensor::storage() {
  return elem == ElemType::F32 ? static_cast<void *>(values.data())
                               : static_cast<void *>(halfs.data());
}

} // namespace quilt::bench
