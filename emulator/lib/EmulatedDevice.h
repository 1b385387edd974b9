//===- EmulatedDevice.h - The GPU the emulator answers for ------*- C++ -*-===//
//
// Part of the Quilt project.
//
// The emulator reports the facts of a GPU of Quilt's target database (h100
// unless QUILT_EMULATOR_TARGET names another), so that run-time selection
// under the emulator sees the device it would see on that GPU.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_EMULATEDDEVICE_H
#define QUILT_EMULATOR_EMULATEDDEVICE_H

#include <cstdint>
#include <string>

namespace quilt::emu {

struct EmulatedDevice {
  bool valid = false;
  std::string error; ///< why not, when !valid
  std::string name;  ///< the database key, e.g. "h100"
  std::string chip;  ///< "sm_90a"
  int computeMajor = 0, computeMinor = 0;
  int64_t smCount = 0;
  int64_t maxThreadsPerBlock = 1024;
  int64_t maxThreadsPerSM = 0;
  int64_t maxBlocksPerSM = 0;
  int64_t registersPerBlock = 0, registersPerSM = 0;
  int64_t sharedMemPerBlockOptin = 0, sharedMemPerSM = 0;
  int64_t l2Bytes = 0;
  int64_t totalMemoryBytes = 0;
  int64_t clockKHz = 0, memoryClockKHz = 0, busBits = 0;
};

/// The facts of NVIDIA target `name` of the built-in database.
EmulatedDevice emulatedDevice(const std::string &name,
                              const std::string &variable =
                                  "QUILT_EMULATOR_TARGET");

/// cuDeviceGetAttribute: false for an attribute the emulator does not know.
bool deviceAttribute(const EmulatedDevice &device, int attribute, int &value);

/// Whether PTX for `target` (`sm_80`, `sm_90a`) runs on the device: an
/// architecture-specific target (`a`) needs exactly its architecture.
bool targetRuns(const EmulatedDevice &device, const std::string &target);

} // namespace quilt::emu

#endif // QUILT_EMULATOR_EMULATEDDEVICE_H
