//===- Target.h - Hardware facts the cost model reasons about -------------===//
//
// Part of the Quilt project. One TargetDesc per GPU or CPU. Fields that do
// not apply to a vendor are zero (e.g. warpSize on a CPU is 1, vectorBits on
// a GPU is 0). Every field is filled from the target database, whose entries
// cite their sources.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_TARGET_H
#define QUILT_COSTMODEL_TARGET_H

#include "CostModel/Calibration.h"
#include "CostModel/Types.h"

#include <array>
#include <string>

namespace quilt {

/// The largest grid z of a GPU launch (CUDA's and HIP's limit): a batched
/// kernel's matrices (times a split-K candidate's splits) walk it.
constexpr int64_t kGpuMaxGridZ = 65535;

struct TargetDesc {
  std::string name; ///< database key, e.g. "h100"
  Vendor vendor = Vendor::CPU;
  std::string chip; ///< "sm_90a", "gfx942", "x86-64-v4", "armv8.2-a"
  std::string description;

  // Parallelism.
  int64_t computeUnits = 0;  ///< SMs, CUs, or CPU cores
  int64_t warpSize = 1;      ///< 32 (NVIDIA), 64/32 (AMD), 1 (CPU)
  int64_t subPartitions = 1; ///< warp schedulers per SM/CU
  int64_t maxThreadsPerBlock = 1;
  int64_t maxThreadsPerCU = 1;
  int64_t maxBlocksPerCU = 1;

  // Register file and on-chip memory.
  int64_t registersPerBlock = 0; ///< 32-bit registers
  int64_t registersPerCU = 0;
  int64_t maxRegistersPerThread = 0;
  int64_t sharedMemPerBlock = 0; ///< bytes (shared memory / LDS)
  int64_t sharedMemPerCU = 0;
  int64_t l1Bytes = 0; ///< per core (CPU) or per SM
  int64_t l2Bytes = 0; ///< total
  int64_t l3Bytes = 0; ///< CPU last level, 0 when absent

  // Throughput.
  double memBandwidthGBs = 0; ///< DRAM/HBM, GB/s
  double clockGHz = 0;        ///< boost clock
  /// Dense peak per instruction kind in TFLOP/s over the whole chip, 0 when
  /// the target does not have that instruction. Indexed by InstKind.
  std::array<double, kNumInstKinds> peakTflops{};
  /// GPUs: dense f64 FMA peak of the SIMT units in TFLOP/s over the whole
  /// chip, 0 when not known (no f64 kernels are generated then). CPUs
  /// compute f64 at half their f32 lanes, so they need no figure.
  double f64PeakTflops = 0;

  /// Bandwidth between the compute units and their closest software-managed
  /// or blocking level, per CU per clock: shared memory / LDS on GPUs, L2 to
  /// L1 on CPUs (where the packed A block lives).
  double onChipBytesPerClock = 0;

  /// GPUs: L2 read bandwidth of the whole chip per clock, 0 when not known.
  /// Split-K and stream-K partial sums that stay in L2 move at this rate;
  /// without it they are priced at the DRAM rate.
  double l2BytesPerClock = 0;

  // CPU only.
  int64_t vectorBits = 0; ///< 512 (AVX-512), 256 (AVX2), 128 (NEON)
  int64_t fmaUnitsPerCore = 0;
  // On CPUs, maxRegistersPerThread is the number of architectural vector
  // registers (32 for AVX-512 and NEON, 16 for AVX2): the budget a register
  // block of accumulators must fit in.

  /// Per-target coefficients of the cost model (see Calibration.h).
  Calibration calibration;

  bool isGpu() const { return vendor != Vendor::CPU; }
  bool hasInst(InstKind k) const { return peakTflops[static_cast<int>(k)] > 0; }
  double peak(InstKind k) const { return peakTflops[static_cast<int>(k)]; }
  /// Peak of `k` on `elem` inputs: the f64 rate for f64, else peak(k).
  double peak(InstKind k, ElemType elem) const;
  /// f32 lanes in one CPU vector register (1 on GPUs).
  int64_t cpuLanes() const { return vectorBits > 0 ? vectorBits / 32 : 1; }
  /// Lanes of the type kernels compute `elem` in (computeBytes).
  int64_t cpuLanes(ElemType elem) const {
    return vectorBits > 0 ? vectorBits / (8 * computeBytes(elem)) : 1;
  }
  /// Kernels copy global to workgroup memory with cp.async (NVIDIA sm_80
  /// and later): multi-stage pipelines without registers. Other chips
  /// pipeline two stages through registers.
  bool hasAsyncCopies() const;
};

} // namespace quilt

#endif // QUILT_COSTMODEL_TARGET_H
