//===- EmulatedGpu.h - quilt-bench --emulate: GPU builds on the emulator --===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_TOOLS_QUILTBENCH_EMULATEDGPU_H
#define QUILT_TOOLS_QUILTBENCH_EMULATEDGPU_H

#include "CostModel/Target.h"
#include "Measurement/BenchKernels.h"

#include "QuiltEmulator.h"

#include <memory>
#include <string>

namespace quilt::bench {

/// Quilt's emulator of a GPU target's vendor behind its runtime (the PTX
/// emulator behind the CUDA runtime, the AMDGCN emulator behind the HIP
/// one), for running the target's libraries here: the vendor's driver and
/// emulated target (QUILT_CUDA_DRIVER and QUILT_CUDA_EMULATOR_TARGET, or
/// the HIP ones) are set before the runtime opens its driver, operands are
/// host memory registered with the device (as page-locked memory is on a
/// GPU), and the emulator's counters are read around each call.
class EmulatedGpu {
public:
  /// Null with `error` when the runtime or the emulator is missing from
  /// `runtimeDir` (they are built with the vendor's runtime).
  static std::unique_ptr<EmulatedGpu> open(const std::string &runtimeDir,
                                           const TargetDesc &target,
                                           std::string &error);

  /// Runs `kernel` on `operands` once: registers their memory, calls, and
  /// unregisters. False with `error` (the runtime's first error, with the
  /// emulator's report) when a GPU call failed.
  bool run(const BenchKernel &kernel, Operands &operands, std::string &error);

  void resetCounters() { reset_(); }
  quilt_emulator_counters counters() const {
    quilt_emulator_counters c{};
    read_(&c);
    return c;
  }

private:
  EmulatedGpu() = default;
  void (*registerMemRef_)(int64_t, void *, int64_t) = nullptr;
  void (*unregisterMemRef_)(int64_t, void *, int64_t) = nullptr;
  int32_t (*status_)() = nullptr;
  const char *(*firstError_)() = nullptr;
  void (*resetStatus_)() = nullptr;
  void (*read_)(quilt_emulator_counters *) = nullptr;
  void (*reset_)() = nullptr;
};

} // namespace quilt::bench

#endif // QUILT_TOOLS_QUILTBENCH_EMULATEDGPU_H
