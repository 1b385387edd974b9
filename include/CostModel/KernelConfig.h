//===- KernelConfig.h - One micro-kernel configuration --------------------===//
//
// Part of the Quilt project. The plain-C++ twin of #ukernel.config: the
// dialect converts its attribute to this struct and asks the library to
// validate it, so the verifier, the candidate generator and the cost model
// share one notion of "valid" and one resource estimate.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_KERNELCONFIG_H
#define QUILT_COSTMODEL_KERNELCONFIG_H

#include "CostModel/Target.h"
#include "CostModel/Types.h"

#include <optional>
#include <string>
#include <string_view>

namespace quilt {

struct KernelConfig {
  int64_t tileM = 1, tileN = 1, tileK = 1; ///< block (CPU: register/cache) tile
  int64_t threads = 1;                     ///< threads per block (CPU: 1)
  int64_t warpsM = 1, warpsN = 1;          ///< warp layout over the tile
  int64_t threadTileM = 1, threadTileN = 1; ///< per-thread accumulator tile
  int64_t vectorWidth = 1;                  ///< elements per vector access
  int64_t stages = 1;                       ///< software pipeline depth
  int64_t splitK = 1;
  /// Stream-K: 0, or the number of persistent blocks that share the
  /// tiles' K steps (each takes a contiguous range of them across tiles).
  int64_t streamK = 0;
  InstKind inst = InstKind::SimtFma;
  BoundaryPolicy boundary = BoundaryPolicy::Mask;

  bool operator==(const KernelConfig &o) const;
  /// Compact human-readable form, e.g. "128x128x32 t256 w2x4 tt8x8 v4 s3
  /// mma_sync_f16", used in tables, JSON and diagnostics.
  std::string str() const;

  int64_t warps() const { return warpsM * warpsN; }
  /// Blocks finish tiles of other blocks (split-K or stream-K): each
  /// stores partial sums and the last to arrive writes C.
  bool sharesTiles() const { return splitK > 1 || streamK > 0; }
  int64_t warpTileM() const { return tileM / warpsM; }
  int64_t warpTileN() const { return tileN / warpsN; }
};

/// Parses the form `str()` prints, e.g. "128x128x32 t256 w2x4 tt8x8 v4 s3
/// mma_sync_f16", with optional trailing "sk<N>" (split-K), "streamk<G>"
/// (stream-K over G blocks) and "pad" / "patch"
/// (boundary policy; "mask" is the default). Returns nullopt and sets `error`
/// on malformed text. Does not validate: call checkForTarget for that.
std::optional<KernelConfig> parseKernelConfig(std::string_view text,
                                              std::string &error);

/// Resources one block of the kernel needs on a target.
struct ResourceUsage {
  int64_t sharedMemBytes = 0;     ///< per block
  int64_t registersPerThread = 0; ///< 32-bit registers, estimate
  int64_t blocksPerCU = 0;        ///< occupancy limit from all resources
  /// The limit from the block size and workgroup memory alone: equal to
  /// blocksPerCU where the register estimate does not bind.
  int64_t blocksPerCUBesidesRegisters = 0;
  /// The registers a thread may have with blocksPerCU blocks resident (0
  /// where registers are not counted): above registersPerThread where the
  /// estimate is not what bounds the blocks.
  int64_t registerBudgetPerThread = 0;
  double occupancy = 0;           ///< resident warps / max warps, in (0, 1]
};

ResourceUsage estimateResources(const KernelConfig &cfg, ElemType elem,
                                const TargetDesc &target);

/// A warp-specialized kernel's producer warpgroup: 128 threads beside the
/// configuration's `threads` (the consumers), one of which issues the tile
/// loads (TMA) while the consumers multiply. `setmaxnreg` moves registers
/// from the producer, which needs few, to the consumers, which hold the
/// accumulators (CUTLASS 3's sm90 warp-specialized kernels: 40 and 232 at
/// 384 threads).
struct ProducerWarpgroup {
  static constexpr int64_t kThreads = 128;
  /// What the producer keeps (`setmaxnreg.dec`): its loop's counters, the
  /// tensor maps' and mbarriers' addresses.
  static constexpr int64_t kRegisters = 40;
  /// The blocks a compute unit holds: estimateResources's, which the
  /// producer keeps.
  int64_t blocksPerCU = 0;
  /// A thread's registers at launch: the budget of blocksPerCU blocks of
  /// threads + kThreads (ptxas allocates exactly this once the kernel
  /// moves registers and asks for the blocks, `.minnctapersm`).
  int64_t launchRegisters = 0;
  /// A consumer's registers after `setmaxnreg.inc`: the launch's and what
  /// the producer releases, in whole granules.
  int64_t consumerRegisters = 0;
  /// Whether the kernel moves registers at all (the consumers get more
  /// than the launch gives every thread).
  bool movesRegisters() const { return consumerRegisters > launchRegisters; }
};

/// The producer warpgroup a kernel of `cfg` can take on `target` without
/// losing a block of estimateResources's occupancy or leaving the
/// consumers fewer registers than its estimate; nullopt where it cannot
/// (or `cfg` is stream-K, whose blocks walk segments of tiles, or its
/// threads are not whole warpgroups).
std::optional<ProducerWarpgroup> producerWarpgroupFor(const KernelConfig &cfg,
                                                      ElemType elem,
                                                      const TargetDesc &target);

/// Target-independent structural checks (positive sizes, tile a multiple of
/// the instruction shape and of warp layout x per-warp tile, ...). Returns
/// the empty string when valid, else one precise sentence saying what is
/// wrong and what would be right, e.g. "tile M (100) is not a multiple of
/// the instruction's M (16) for mma_sync_f16".
std::string checkStructure(const KernelConfig &cfg, int64_t cpuLanes = 1);

/// Structure plus everything that depends on the target and element type:
/// instruction available and accepting the type, thread count a multiple of
/// the warp size and within maxThreadsPerBlock, warp layout x warp size ==
/// threads, shared memory and registers within the target's limits. Returns
/// the empty string when valid, else the reason.
std::string checkForTarget(const KernelConfig &cfg, ElemType elem,
                           const TargetDesc &target);

/// The most nr-wide register-block columns a CPU configuration's N block
/// (its tile N) may hold for its kernels to read A where it is stored
/// instead of packing A's blocks. A packed A block pays for itself by being
/// read once per column of the N block; with few columns, reading A's rows
/// in place costs less than copying them. Measured on one Zen 4 core with
/// every candidate on 18 products (docs/host-codegen.md, "A read in
/// place"): configurations of at most 8 columns ran 0.80-1.00x the time
/// with A in place (geomean per product), those with 12 or more 0.96-1.19x.
constexpr int64_t kCpuInPlaceAMaxColumns = 8;
/// The most rows (mr) a register block may read from A in place: each row
/// is a stream of its own, and rows whose stride is a multiple of 4 KiB (K
/// = 1024, 3072, 4096 f32) fall in the same sets of an 8-way L1. With 12 to
/// 16 such rows, M=77 N=768 K=3072 ran 1.2-2x slower than packed.
constexpr int64_t kCpuInPlaceAMaxRows = 8;

/// Whether the CPU kernels of a configuration with this N block (tile N)
/// and register block (thread tile) read A in place rather than packing
/// it: f32 inputs only (f16, bf16 and f64 blocks are packed, so that they
/// are widened once, or are read on f64 lanes), an N block of at most
/// kCpuInPlaceAMaxColumns register-block columns and a register block of
/// at most kCpuInPlaceAMaxRows rows. The cost model and the host code
/// generator both ask this.
bool cpuReadsAInPlace(int64_t tileN, int64_t threadTileM, int64_t threadTileN,
                      ElemType elem);
inline bool cpuReadsAInPlace(const KernelConfig &cfg, ElemType elem) {
  return cpuReadsAInPlace(cfg.tileN, cfg.threadTileM, cfg.threadTileN, elem);
}

} // namespace quilt

#endif // QUILT_COSTMODEL_KERNELCONFIG_H
