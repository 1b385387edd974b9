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
struct Counters {
  uint64_t warpInstructions = 0;
  uint64_t threadInstructions = 0;
  uint64_t tensorInstructions = 0; ///< mma.sync and wgmma (per warp)
  uint64_t globalLoadBytes = 0, globalStoreBytes = 0;
  uint64_t sharedLoadBytes = 0, sharedStoreBytes = 0;
  uint64_t asyncCopyBytes = 0; ///< cp.async and TMA, global to shared
  uint64_t barriers = 0;       ///< completed bar.sync
  uint64_t ctas = 0;

  void add(const Counters &o) {
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
