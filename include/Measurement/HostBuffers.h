//===- HostBuffers.h - Operands of compiled kernels on the host -*- C++ -*-===//
//
// Part of the Quilt project. Buffers in the element type a kernel reads
// (f32, or f16/bf16 stored as 16-bit patterns), with a float copy for the
// reference and the baselines, and the MLIR memref descriptors the
// `_mlir_ciface_` entry points take.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_MEASUREMENT_HOSTBUFFERS_H
#define QUILT_MEASUREMENT_HOSTBUFFERS_H

#include "CostModel/Types.h"

#include <cstdint>
#include <new>
#include <random>
#include <vector>

namespace quilt::bench {

/// Allocates as a GPU driver does (`cuMemAlloc` and `hipMalloc` return
/// 256-byte aligned memory), so that a kernel run on the emulators from
/// these buffers meets its rows at the offsets a GPU would, and the sector
/// and bank counters count what it would cost there.
template <typename T> struct DeviceAlignedAllocator {
  using value_type = T;
  static constexpr std::size_t kAlignment = 256;
  DeviceAlignedAllocator() = default;
  template <typename U>
  DeviceAlignedAllocator(const DeviceAlignedAllocator<U> &) noexcept {}
  T *allocate(std::size_t n) {
    return static_cast<T *>(
        ::operator new(n * sizeof(T), std::align_val_t(kAlignment)));
  }
  void deallocate(T *p, std::size_t) noexcept {
    ::operator delete(p, std::align_val_t(kAlignment));
  }
  template <typename U>
  bool operator==(const DeviceAlignedAllocator<U> &) const noexcept {
    return true;
  }
  template <typename U>
  bool operator!=(const DeviceAlignedAllocator<U> &) const noexcept {
    return false;
  }
};

/// The ABI of a ranked memref argument of an `_mlir_ciface_` function.
template <int Rank> struct MemRefDescriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];
};

/// IEEE half and bfloat16 conversions (round to nearest even).
uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);
uint16_t floatToBFloat(float value);
float bfloatToFloat(uint16_t bits);

/// A dense, row-major tensor of `elem` values. `values` holds what the
/// kernel sees as floats (after rounding to `elem`), so references and
/// baselines compute on exactly the kernel's inputs.
class HostTensor {
public:
  HostTensor(ElemType elem, std::vector<int64_t> shape);

  /// Uniform values in [-1, 1), rounded to the element type.
  void fillRandom(std::mt19937 &rng);
  void fillZero() { fill(0.0f); }
  /// Every element `value`, rounded to the element type.
  void fill(float value);

  /// Reads the kernel's storage back into `values` (after a kernel wrote it).
  void syncFromStorage();

  int64_t numElements() const { return static_cast<int64_t>(values.size()); }
  /// Bytes per element of the kernel's storage (2 for f16/bf16, else 4).
  int64_t elementBytes() const { return elem == ElemType::F32 ? 4 : 2; }
  const std::vector<int64_t> &shape() const { return dims; }
  float at(int64_t index) const { return values[index]; }
  const float *floats() const { return values.data(); }
  float *floats() { return values.data(); }

  template <int Rank> MemRefDescriptor<Rank> descriptor() {
    MemRefDescriptor<Rank> d;
    d.allocated = d.aligned = storage();
    d.offset = 0;
    int64_t stride = 1;
    for (int i = Rank - 1; i >= 0; --i) {
      d.sizes[i] = dims[i];
      d.strides[i] = stride;
      stride *= dims[i];
    }
    return d;
  }

private:
  void *storage();

  ElemType elem;
  std::vector<int64_t> dims;
  std::vector<float, DeviceAlignedAllocator<float>> values;
  std::vector<uint16_t, DeviceAlignedAllocator<uint16_t>> halfs; ///< f16/bf16 storage
};

} // namespace quilt::bench

#endif // QUILT_MEASUREMENT_HOSTBUFFERS_H
