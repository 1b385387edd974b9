//===- LaunchProfile.cpp - What a launch executed, printed ----------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "LaunchProfile.h"

namespace quilt::emu {

void printLaunchProfile(std::FILE *out, const std::string &kernel,
                        const LaunchConfig &config, const Counters &c,
                        double seconds) {
  std::fprintf(
      out,
      "quilt-emulator: %s grid (%u,%u,%u) block (%u,%u,%u) smem %u: "
      "%llu warp instructions (%llu thread, %llu tensor-core), "
      "global %llu B loaded %llu B stored, shared %llu B loaded %llu B "
      "stored, async copies %llu B, %llu barriers; %.3f s, %.2f M warp "
      "instructions/s\n",
      kernel.c_str(), config.grid[0], config.grid[1], config.grid[2],
      config.block[0], config.block[1], config.block[2],
      config.dynamicSharedBytes, (unsigned long long)c.warpInstructions,
      (unsigned long long)c.threadInstructions,
      (unsigned long long)c.tensorInstructions,
      (unsigned long long)c.globalLoadBytes,
      (unsigned long long)c.globalStoreBytes,
      (unsigned long long)c.sharedLoadBytes,
      (unsigned long long)c.sharedStoreBytes,
      (unsigned long long)c.asyncCopyBytes, (unsigned long long)c.barriers,
      seconds, seconds > 0 ? double(c.warpInstructions) / seconds * 1e-6 : 0.0);
  std::fprintf(out, "quilt-emulator:   by class:");
  for (int i = 0; i < kNumInstructionClasses; ++i)
    std::fprintf(out, " %s %llu",
                 instructionClassName(static_cast<InstructionClass>(i)),
                 (unsigned long long)c.byClass[i]);
  std::fprintf(
      out,
      "; shared: %llu requests, %llu wavefronts (%llu without bank "
      "conflicts); global: %llu requests, %llu sectors (%llu at best)\n",
      (unsigned long long)c.sharedRequests,
      (unsigned long long)c.sharedWavefronts,
      (unsigned long long)c.sharedIdealWavefronts,
      (unsigned long long)c.globalRequests, (unsigned long long)c.globalSectors,
      (unsigned long long)c.globalIdealSectors);
}

} // namespace quilt::emu
