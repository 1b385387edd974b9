//===- EmulatorTarget.h - Which database target an emulator answers as ----===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_LIB_EMULATORTARGET_H
#define QUILT_EMULATOR_LIB_EMULATORTARGET_H

#include <cstdlib>
#include <string>

namespace quilt::emu {

/// The target of Quilt's database an emulator's device answers as, and the
/// variable that named it (for messages).
struct EmulatorTarget {
  std::string name;
  std::string variable;
};

/// `vendorVariable` (QUILT_CUDA_EMULATOR_TARGET, QUILT_HIP_EMULATOR_TARGET)
/// when set, else QUILT_EMULATOR_TARGET, else `fallback`. The vendor's own
/// variable lets one process run both emulators, each as its own target.
inline EmulatorTarget emulatorTarget(const char *vendorVariable,
                                     const char *fallback) {
  for (const char *variable : {vendorVariable, "QUILT_EMULATOR_TARGET"})
    if (const char *value = std::getenv(variable); value && *value)
      return {value, variable};
  return {fallback, "QUILT_EMULATOR_TARGET"};
}

} // namespace quilt::emu

#endif // QUILT_EMULATOR_LIB_EMULATORTARGET_H
