//===- LaunchProfile.h - What a launch executed, printed --------*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_LAUNCHPROFILE_H
#define QUILT_EMULATOR_LAUNCHPROFILE_H

#include "Counters.h"
#include "Executor.h"

#include <cstdio>
#include <string>

namespace quilt::emu {

/// One line per launch (QUILT_EMULATOR_PROFILE=1): grid, block, shared
/// memory, instruction and byte counts, and the emulation speed.
void printLaunchProfile(std::FILE *out, const std::string &kernel,
                        const LaunchConfig &config, const Counters &counters,
                        double seconds);

} // namespace quilt::emu

#endif // QUILT_EMULATOR_LAUNCHPROFILE_H
