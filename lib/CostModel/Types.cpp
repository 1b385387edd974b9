//===- Types.cpp - Spellings and facts about the shared vocabulary --------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Types.h"
#include "CostModel/Calibration.h"

namespace quilt {

InstShape instShape(InstKind kind, int64_t cpuLanes) {
  switch (kind) {
  case InstKind::SimtFma:
    return {1, 1, 1};
  case InstKind::MmaSyncF16:
    return {16, 8, 16};
  case InstKind::MmaSyncTf32:
    return {16, 8, 8};
  case InstKind::Wgmma:
    // m64nNk16 with N any multiple of 8 up to 256: the smallest step is 8.
    return {64, 8, 16};
  case InstKind::Mfma32x32x8:
    return {32, 32, 8};
  case InstKind::Mfma16x16x16:
  case InstKind::Wmma16x16x16:
    return {16, 16, 16};
  case InstKind::CpuFma:
    return {1, cpuLanes > 0 ? cpuLanes : 1, 1};
  }
  return {1, 1, 1};
}

int64_t instThreadsPerIssue(InstKind kind, int64_t warpSize) {
  switch (kind) {
  case InstKind::SimtFma:
  case InstKind::CpuFma:
    return 1;
  case InstKind::Wgmma:
    return 4 * warpSize;
  case InstKind::MmaSyncF16:
  case InstKind::MmaSyncTf32:
  case InstKind::Mfma32x32x8:
  case InstKind::Mfma16x16x16:
  case InstKind::Wmma16x16x16:
    return warpSize;
  }
  return 1;
}

Vendor instVendor(InstKind kind) {
  switch (kind) {
  case InstKind::MmaSyncF16:
  case InstKind::MmaSyncTf32:
  case InstKind::Wgmma:
    return Vendor::NVIDIA;
  case InstKind::Mfma32x32x8:
  case InstKind::Mfma16x16x16:
  case InstKind::Wmma16x16x16:
    return Vendor::AMD;
  case InstKind::CpuFma:
    return Vendor::CPU;
  case InstKind::SimtFma:
    // Exists on every GPU; callers check "is a GPU" rather than a vendor.
    return Vendor::NVIDIA;
  }
  return Vendor::CPU;
}

bool instAcceptsElemType(InstKind kind, ElemType elem) {
  switch (kind) {
  case InstKind::SimtFma:
  case InstKind::CpuFma:
    // f16/bf16 are widened to f32 on load (GPU) or while packing (CPU);
    // f64 is computed in f64.
    return true;
  case InstKind::MmaSyncTf32:
    return elem == ElemType::F32;
  case InstKind::MmaSyncF16:
  case InstKind::Wgmma:
  case InstKind::Mfma32x32x8:
  case InstKind::Mfma16x16x16:
  case InstKind::Wmma16x16x16:
    // Each has a bf16 twin with the same shape and rate.
    return elem == ElemType::F16 || elem == ElemType::BF16;
  }
  return false;
}

int64_t elemBytes(ElemType elem) {
  switch (elem) {
  case ElemType::F64:
    return 8;
  case ElemType::F32:
    return 4;
  case ElemType::F16:
  case ElemType::BF16:
    return 2;
  }
  return 4;
}

int64_t computeBytes(ElemType elem) { return elem == ElemType::F64 ? 8 : 4; }

std::string_view stringify(Vendor v) {
  switch (v) {
  case Vendor::NVIDIA:
    return "nvidia";
  case Vendor::AMD:
    return "amd";
  case Vendor::CPU:
    return "cpu";
  }
  return "?";
}

std::string_view stringify(ElemType e) {
  switch (e) {
  case ElemType::F32:
    return "f32";
  case ElemType::F16:
    return "f16";
  case ElemType::BF16:
    return "bf16";
  case ElemType::F64:
    return "f64";
  }
  return "?";
}

std::string_view stringify(OpKind k) {
  switch (k) {
  case OpKind::Matmul:
    return "matmul";
  case OpKind::BatchMatmul:
    return "batch_matmul";
  case OpKind::Conv2dNhwcHwcf:
    return "conv2d_nhwc";
  case OpKind::Conv2dNchwFchw:
    return "conv2d_nchw";
  }
  return "?";
}

std::string_view stringify(InstKind k) {
  switch (k) {
  case InstKind::SimtFma:
    return "simt_fma";
  case InstKind::MmaSyncF16:
    return "mma_sync_f16";
  case InstKind::MmaSyncTf32:
    return "mma_sync_tf32";
  case InstKind::Wgmma:
    return "wgmma";
  case InstKind::Mfma32x32x8:
    return "mfma_32x32x8";
  case InstKind::Mfma16x16x16:
    return "mfma_16x16x16";
  case InstKind::Wmma16x16x16:
    return "wmma_16x16x16";
  case InstKind::CpuFma:
    return "cpu_fma";
  }
  return "?";
}

std::string_view stringify(BoundaryPolicy b) {
  switch (b) {
  case BoundaryPolicy::Mask:
    return "mask";
  case BoundaryPolicy::Pad:
    return "pad";
  case BoundaryPolicy::Patch:
    return "patch";
  }
  return "?";
}

std::optional<Vendor> parseVendor(std::string_view s) {
  for (Vendor v : {Vendor::NVIDIA, Vendor::AMD, Vendor::CPU})
    if (stringify(v) == s)
      return v;
  return std::nullopt;
}

std::optional<ElemType> parseElemType(std::string_view s) {
  for (ElemType e :
       {ElemType::F32, ElemType::F16, ElemType::BF16, ElemType::F64})
    if (stringify(e) == s)
      return e;
  return std::nullopt;
}

std::optional<OpKind> parseOpKind(std::string_view s) {
  // The linalg names are accepted too, so `linalg.conv_2d_nhwc_hwcf` users
  // can type what they know.
  if (s == "conv2d_nhwc_hwcf" || s == "conv_2d_nhwc_hwcf")
    return OpKind::Conv2dNhwcHwcf;
  if (s == "conv2d_nchw_fchw" || s == "conv_2d_nchw_fchw")
    return OpKind::Conv2dNchwFchw;
  for (OpKind k : {OpKind::Matmul, OpKind::BatchMatmul, OpKind::Conv2dNhwcHwcf,
                   OpKind::Conv2dNchwFchw})
    if (stringify(k) == s)
      return k;
  return std::nullopt;
}

std::optional<InstKind> parseInstKind(std::string_view s) {
  for (int i = 0; i < kNumInstKinds; ++i)
    if (stringify(static_cast<InstKind>(i)) == s)
      return static_cast<InstKind>(i);
  return std::nullopt;
}

std::optional<BoundaryPolicy> parseBoundaryPolicy(std::string_view s) {
  for (BoundaryPolicy b :
       {BoundaryPolicy::Mask, BoundaryPolicy::Pad, BoundaryPolicy::Patch})
    if (stringify(b) == s)
      return b;
  return std::nullopt;
}

Calibration defaultCalibration(Vendor vendor) {
  Calibration c;
  switch (vendor) {
  case Vendor::NVIDIA:
    // Typical launch-to-first-instruction latency of a CUDA kernel launch
    // and one DRAM round trip of pipeline fill per tile.
    c = {0.80, 0.85, 4.0, 0.5};
    break;
  case Vendor::AMD:
    // HIP launches are slower than CUDA's; LDS pipelines are shallower.
    c = {0.75, 0.80, 6.0, 0.6};
    break;
  case Vendor::CPU:
    // Fork/join of a thread pool; per-block cost of the loop nest.
    c = {0.85, 0.70, 2.0, 0.05};
    break;
  }
  return c;
}

} // namespace quilt
