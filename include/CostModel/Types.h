//===- Types.h - Vocabulary shared by the cost model and the dialect ------===//
//
// Part of the Quilt project. The cost-model library has no MLIR dependency:
// these enums are the plain-C++ mirror of the `ukernel` dialect's enum
// attributes, so the dialect, the runtime dispatcher, `quiltc explain`, the
// benchmark and the Python module all reason about the same values.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_TYPES_H
#define QUILT_COSTMODEL_TYPES_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace quilt {

enum class Vendor : uint8_t { NVIDIA, AMD, CPU };

/// Element type of the contraction inputs. Accumulation is in f32, or in
/// f64 for f64 inputs (computeBytes).
enum class ElemType : uint8_t { F32, F16, BF16, F64 };

/// The contraction a dispatch computes. Convolutions run as implicit GEMM:
/// M = N*OH*OW, N = F, K = C*R*S.
enum class OpKind : uint8_t {
  Matmul,
  BatchMatmul,
  Conv2dNhwcHwcf,
  Conv2dNchwFchw
};

/// The instruction a micro-kernel's inner product is built from.
enum class InstKind : uint8_t {
  SimtFma,      ///< scalar FMA per thread (any GPU), shape 1x1x1
  MmaSyncF16,   ///< NVIDIA mma.sync m16n8k16 f16/bf16 -> f32 (sm80+)
  MmaSyncTf32,  ///< NVIDIA mma.sync m16n8k8 tf32 -> f32 (sm80+)
  Wgmma,        ///< NVIDIA wgmma m64nNk16 f16/bf16 -> f32 (sm90a), N step 8
  Mfma32x32x8,  ///< AMD v_mfma_f32_32x32x8_f16 (CDNA)
  Mfma16x16x16, ///< AMD v_mfma_f32_16x16x16_f16 (CDNA)
  Wmma16x16x16, ///< AMD v_wmma_f32_16x16x16_f16 (RDNA3)
  CpuFma,       ///< CPU vector FMA, shape 1 x lanes x 1
};
inline constexpr int kNumInstKinds = 8;

/// How a kernel handles tiles that overhang the problem.
enum class BoundaryPolicy : uint8_t { Mask, Pad, Patch };

/// M x N x K shape of one instruction issue. For CpuFma the N extent is the
/// vector lane count, which depends on the target: pass it as `cpuLanes`.
struct InstShape {
  int64_t m, n, k;
};
InstShape instShape(InstKind kind, int64_t cpuLanes = 1);

/// Number of threads that cooperate on one instruction issue: 1 for SIMT and
/// CPU, a warp for mma.sync, a warpgroup (4 warps) for wgmma, a wavefront for
/// MFMA/WMMA.
int64_t instThreadsPerIssue(InstKind kind, int64_t warpSize);

/// Which vendor an instruction exists on, and which element types it takes.
Vendor instVendor(InstKind kind);
bool instAcceptsElemType(InstKind kind, ElemType elem);

int64_t elemBytes(ElemType elem);
/// Bytes of one value as kernels compute with it: accumulators, CPU vector
/// lanes and packed buffers hold f32 (f16 and bf16 are widened) or f64.
int64_t computeBytes(ElemType elem);

// Spelling used in the dialect assembly, the target database, workload files
// and JSON output. `parse*` returns nullopt for an unknown spelling. The
// spellings are fixed (the ukernel dialect's enum attributes use the same):
//   Vendor:         nvidia, amd, cpu
//   ElemType:       f32, f16, bf16, f64
//   OpKind:         matmul, batch_matmul, conv2d_nhwc, conv2d_nchw
//   InstKind:       simt_fma, mma_sync_f16, mma_sync_tf32, wgmma, mfma_32x32x8,
//                   mfma_16x16x16, wmma_16x16x16, cpu_fma
//   BoundaryPolicy: mask, pad, patch
std::string_view stringify(Vendor v);
std::string_view stringify(ElemType e);
std::string_view stringify(OpKind k);
std::string_view stringify(InstKind k);
std::string_view stringify(BoundaryPolicy b);
std::optional<Vendor> parseVendor(std::string_view s);
std::optional<ElemType> parseElemType(std::string_view s);
std::optional<OpKind> parseOpKind(std::string_view s);
std::optional<InstKind> parseInstKind(std::string_view s);
std::optional<BoundaryPolicy> parseBoundaryPolicy(std::string_view s);

} // namespace quilt

#endif // QUILT_COSTMODEL_TYPES_H
