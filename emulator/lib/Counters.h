//===- Counters.h - What a launch executed ----------------------*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_COUNTERS_H
#define QUILT_EMULATOR_COUNTERS_H

#include <cstdint>

namespace quilt::emu {

/// Per-launch counts. Instructions are warp instructions (one per warp that
/// issues it, as hardware counters count them); threadInstructions counts
/// each active lane.
/// Warp instructions by what they do, as GPU profilers group them.
enum class InstructionClass : uint8_t {
  TensorCore, ///< mma.sync, wgmma.mma_async
  Fma,        ///< floating-point add/sub/mul/fma/mad
  Load,       ///< loads from global, local, const or param; cp.async, TMA
  Store,      ///< stores to global or local; atomics
  Shared,     ///< shared-memory loads and stores, ldmatrix
  Barrier,    ///< bar.sync, mbarrier, wgmma and cp.async group fences
  Other,
};
constexpr int kNumInstructionClasses = 7;
const char *instructionClassName(InstructionClass c);

struct Counters {
  uint64_t byClass[kNumInstructionClasses] = {};
  /// Shared-memory requests (warp instructions reading or writing shared
  /// memory from registers), the wavefronts they took with bank conflicts,
  /// and the wavefronts they would take without: 32 banks of 4 bytes, one
  /// phase per 128 bytes requested (8-byte accesses in two half-warp
  /// phases, 16-byte ones in four quarter-warp phases), each phase taking
  /// as many wavefronts as the most distinct words any bank serves.
  uint64_t sharedRequests = 0, sharedWavefronts = 0, sharedIdealWavefronts = 0;
  /// Global requests (warp loads and stores) and the 32-byte sectors they
  /// touched, against the fewest sectors their bytes could occupy.
  uint64_t globalRequests = 0, globalSectors = 0, globalIdealSectors = 0;
  uint64_t warpInstructions = 0;
  uint64_t threadInstructions = 0;
  uint64_t tensorInstructions = 0; ///< mma.sync and wgmma (per warp)
  uint64_t globalLoadBytes = 0, globalStoreBytes = 0;
  uint64_t sharedLoadBytes = 0, sharedStoreBytes = 0;
  uint64_t asyncCopyBytes = 0; ///< cp.async and TMA, global to shared
  uint64_t barriers = 0;       ///< completed bar.sync
  uint64_t ctas = 0;

  void add(const Counters &o) {
    for (int i = 0; i < kNumInstructionClasses; ++i)
      byClass[i] += o.byClass[i];
    sharedRequests += o.sharedRequests;
    sharedWavefronts += o.sharedWavefronts;
    sharedIdealWavefronts += o.sharedIdealWavefronts;
    globalRequests += o.globalRequests;
    globalSectors += o.globalSectors;
    globalIdealSectors += o.globalIdealSectors;
    warpInstructions += o.warpInstructions;
    threadInstructions += o.threadInstructions;
    tensorInstructions += o.tensorInstructions;
    globalLoadBytes += o.globalLoadBytes;
    globalStoreBytes += o.globalStoreBytes;
    sharedLoadBytes += o.sharedLoadBytes;
    sharedStoreBytes += o.sharedStoreBytes;
    asyncCopyBytes += o.asyncCopyBytes;
    barriers += o.barriers;
    ctas += o.ctas;
  }
};

} // namespace quilt::emu

#endif // QUILT_EMULATOR_COUNTERS_H
