//===- Dispatch.h - Running an AMDGCN kernel over a grid --------*- C++ -*-===//
//
// Part of the Quilt project.
//
// A dispatch runs one workgroup after another; the waves of a workgroup
// run in turn until each reaches an s_barrier or s_endpgm, and a barrier
// opens when every wave that has not ended waits at it, as the ISA's
// barrier does. Memory accesses are checked against the live allocations
// (global) and the workgroup's LDS; the first failure stops the launch
// with a report naming the kernel, instruction, workgroup, wave and lane.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_AMDGCN_DISPATCH_H
#define QUILT_EMULATOR_AMDGCN_DISPATCH_H

#include "CodeObject.h"
#include "Isa.h"

#include "../lib/SharedMemoryChecker.h"

#include <cstdint>
#include <string>
#include <vector>

namespace quilt::amdgcn {

/// A kernel ready to run: its metadata and decoded instructions.
struct LoadedKernel {
  KernelInfo info;
  std::string processor;
  std::vector<Instruction> code;
};

struct LaunchConfig {
  uint32_t grid[3] = {1, 1, 1};  ///< workgroups
  uint32_t block[3] = {1, 1, 1}; ///< work-items per workgroup
  uint32_t dynamicLdsBytes = 0;
  std::vector<uint8_t> kernarg; ///< the kernel argument segment
};

/// What a launch executed (QUILT_EMULATOR_PROFILE).
struct Counters {
  uint64_t waveInstructions = 0;
  uint64_t byUnit[size_t(Unit::Count)] = {};
  uint64_t globalBytesLoaded = 0, globalBytesStored = 0;
  uint64_t ldsBytesLoaded = 0, ldsBytesStored = 0;
  uint64_t barriers = 0, workgroups = 0;
  /// Profiling only (below): lane instructions (a wave instruction counts
  /// its active lanes); global requests (wave instructions) with the
  /// 64-byte segments they touched and the fewest that could hold their
  /// bytes; LDS requests with the cycles they took, 32 banks of 4 bytes
  /// serving 128 bytes a cycle, and the cycles they would take with no
  /// bank conflict.
  uint64_t laneInstructions = 0;
  uint64_t globalRequests = 0, globalSegments = 0, globalMinimumSegments = 0;
  uint64_t ldsRequests = 0, ldsCycles = 0, ldsIdealCycles = 0;

  uint64_t of(Unit unit) const { return byUnit[size_t(unit)]; }
  uint64_t ldsBankConflictCycles() const { return ldsCycles - ldsIdealCycles; }
  Counters &operator+=(const Counters &o);
};

/// The hipError_t values a failed launch returns (numbers from
/// hip_runtime_api.h; the dispatcher does not include HIP's headers).
enum : int {
  kHipErrorIllegalAddress = 700,
  kHipErrorLaunchFailure = 719,
};

struct LaunchFailure {
  int error = 0;
  std::string report;
};

struct Workgroup {
  uint32_t id[3] = {0, 0, 0};
  std::vector<uint8_t> lds;
  /// The race checker's shadow of the LDS; `epoch` counts the barriers
  /// the workgroup has passed.
  emu::SharedMemoryChecker races;
  uint32_t epoch = 0;
};

struct Dispatch {
  const LoadedKernel *kernel = nullptr;
  const LaunchConfig *config = nullptr;
  Counters counters;
  /// QUILT_EMULATOR_PROFILE: also count segments and bank conflicts.
  bool profile = false;
  bool failed = false;
  LaunchFailure failure;
  /// The dispatch packet the kernel may read through its dispatch pointer
  /// (hsa_kernel_dispatch_packet_t's layout).
  alignas(64) uint8_t packet[64] = {};
};

/// Profiling: adds one global instruction's segments (`addresses` of the
/// `lanes` active lanes, `bytes` each) and one LDS access's bank conflicts;
/// `newRequest` false for the second access of a ds_read2/ds_write2, which
/// is the same instruction.
void countGlobalSegments(Counters &c, const uint64_t *addresses, unsigned lanes,
                         unsigned bytes);
void countLdsBankConflicts(Counters &c, const uint32_t *addresses,
                           unsigned lanes, unsigned bytes,
                           bool newRequest = true);

/// Whether QUILT_EMULATOR_PROFILE asks for counters.
bool profilingRequested();

/// Launches count what only profiling needs (lane instructions, segments,
/// LDS cycles) when profiling is requested, or from the first
/// countEverything() on: a tool reading the counters
/// (quilt_emulator_reset_counters) calls it.
void countEverything();
bool countingEverything();

/// Stops the dispatch with `error` and a report on the wave's current
/// instruction (the first report wins).
void fail(Wave &w, int lane, int error, const std::string &what);

/// Runs the whole grid. False with `failure` set when a check or an
/// instruction stopped it.
bool runKernel(const LoadedKernel &kernel, const LaunchConfig &config,
               Counters &counters, LaunchFailure &failure);

} // namespace quilt::amdgcn

#endif // QUILT_EMULATOR_AMDGCN_DISPATCH_H
