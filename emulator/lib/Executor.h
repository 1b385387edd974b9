//===- Executor.h - Running a kernel over a grid ----------------*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_EXECUTOR_H
#define QUILT_EMULATOR_EXECUTOR_H

#include "Counters.h"
#include "Ptx.h"

#include <cstdint>
#include <string>
#include <vector>

namespace quilt::emu {

struct LaunchConfig {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t dynamicSharedBytes = 0;
  /// The kernel's parameter buffer, laid out as Function::params says.
  std::vector<uint8_t> params;
  /// The device's SM count (%nsmid).
  uint32_t smCount = 1;
};

/// The CUresult values a failed launch returns (cuda.h's numbers: the
/// executor does not include the CUDA headers).
enum : int {
  kErrorIllegalAddress = 700,    ///< CUDA_ERROR_ILLEGAL_ADDRESS
  kErrorMisalignedAddress = 716, ///< CUDA_ERROR_MISALIGNED_ADDRESS
  kErrorLaunchFailed = 719,      ///< CUDA_ERROR_LAUNCH_FAILED
};

/// Why a launch failed; `error` is the CUresult the driver returns.
struct LaunchFailure {
  int error = 0;
  std::string report;
};

/// Executes `kernel` over the grid, one CTA after another (everything it
/// needs of its module was resolved when the module was parsed).
/// Returns false with `failure` set when a checker or an instruction
/// stops the launch (the report names the kernel, PTX line, CTA, thread
/// and address). Adds what it executed to `counters`.
bool runKernel(const Function &kernel, const LaunchConfig &config,
               Counters &counters, LaunchFailure &failure);

} // namespace quilt::emu

#endif // QUILT_EMULATOR_EXECUTOR_H
