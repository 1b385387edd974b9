//===- Dispatch.cpp - Running an AMDGCN kernel over a grid ----------------===//
//
// Part of the Quilt project.
//
// The initial wave state follows LLVM's AMDGPUUsage "Initial Kernel
// Execution State": user SGPRs in the order the descriptor enables them,
// then the workgroup ids, workgroup info and scratch wave offset; work-item
// ids packed in v0 (x | y << 10 | z << 20) on gfx90a, gfx94x and gfx11,
// one per VGPR before.
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"

#include "../lib/BlockOrder.h"
#include "../lib/DeviceMemory.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace quilt::amdgcn {
namespace {

bool hasPackedWorkItemIds(const std::string &processor) {
  return processor == "gfx90a" || processor.rfind("gfx94", 0) == 0 ||
         processor.rfind("gfx95", 0) == 0 || processor.rfind("gfx11", 0) == 0 ||
         processor.rfind("gfx12", 0) == 0;
}

uint64_t instructionLimit() {
  static uint64_t limit = [] {
    if (const char *env = std::getenv("QUILT_EMULATOR_MAX_INSTRUCTIONS"))
      return uint64_t(std::strtoull(env, nullptr, 0));
    return uint64_t(1) << 36;
  }();
  return limit;
}

/// QUILT_EMULATOR_CHECKS=0 turns the LDS race checker off (bounds checks
/// stay).
bool checksEnabled() {
  static bool on = [] {
    const char *env = std::getenv("QUILT_EMULATOR_CHECKS");
    return !(env && std::strcmp(env, "0") == 0);
  }();
  return on;
}

void count(Counters &c, const Instruction &in) {
  ++c.waveInstructions;
  ++c.byUnit[size_t(in.unit)];
}

} // namespace

Counters &Counters::operator+=(const Counters &o) {
  waveInstructions += o.waveInstructions;
  for (size_t i = 0; i < size_t(Unit::Count); ++i)
    byUnit[i] += o.byUnit[i];
  globalBytesLoaded += o.globalBytesLoaded;
  globalBytesStored += o.globalBytesStored;
  ldsBytesLoaded += o.ldsBytesLoaded;
  ldsBytesStored += o.ldsBytesStored;
  barriers += o.barriers;
  workgroups += o.workgroups;
  laneInstructions += o.laneInstructions;
  globalRequests += o.globalRequests;
  globalSegments += o.globalSegments;
  globalMinimumSegments += o.globalMinimumSegments;
  ldsRequests += o.ldsRequests;
  ldsCycles += o.ldsCycles;
  ldsIdealCycles += o.ldsIdealCycles;
  return *this;
}

namespace {

class WorkgroupRunner {
public:
  WorkgroupRunner(Dispatch &dispatch) : d(dispatch), k(*dispatch.kernel) {
    const LaunchConfig &cfg = *d.config;
    threads = cfg.block[0] * cfg.block[1] * cfg.block[2];
    width = k.info.wavefrontSize;
    waves.resize((threads + width - 1) / width);
    for (unsigned i = 0; i < waves.size(); ++i) {
      waves[i].v.assign(size_t(kVectorFileSize + kRegisterSlack) * 64, 0);
      waves[i].scratch.assign(size_t(k.info.privateSegmentFixedSize) * 64, 0);
      waves[i].width = width;
      waves[i].index = i;
      waves[i].dispatch = &d;
      waves[i].group = &group;
    }
    group.races.setWarpSize(width);
    group.races.setEnabled(checksEnabled());
  }

  bool run(uint32_t x, uint32_t y, uint32_t z) {
    group.id[0] = x, group.id[1] = y, group.id[2] = z;
    // Sized and zeroed here only, once per workgroup: most dispatches of
    // small shapes have one.
    group.lds.assign(k.info.groupSegmentFixedSize + d.config->dynamicLdsBytes,
                     0);
    if (group.races.enabled())
      group.races.reset(group.lds.size());
    group.epoch = 0;
    for (Wave &w : waves)
      initialize(w);
    uint64_t limit = instructionLimit(), executed = 0;
    for (;;) {
      bool anyRunning = false;
      for (Wave &w : waves) {
        if (w.state != Wave::State::Running)
          continue;
        anyRunning = true;
        const Instruction *code = k.code.data();
        const uint32_t size = uint32_t(k.code.size());
        while (w.state == Wave::State::Running) {
          if (w.pc >= size) {
            fail(w, -1, kHipErrorLaunchFailure,
                 "the program counter left the kernel");
            return false;
          }
          const Instruction &in = code[w.pc++];
          w.current = &in;
          in.handler(w, in);
          count(d.counters, in);
          if (d.profile)
            d.counters.laneInstructions += __builtin_popcountll(w.exec());
          if (d.failed)
            return false;
          if (++executed > limit) {
            fail(w, -1, kHipErrorLaunchFailure,
                 "the workgroup ran more than " + std::to_string(limit) +
                     " wave instructions (QUILT_EMULATOR_MAX_INSTRUCTIONS): "
                     "a hang");
            return false;
          }
        }
      }
      bool waiting = false, allEnded = true;
      for (Wave &w : waves) {
        waiting |= w.state == Wave::State::AtBarrier;
        allEnded &= w.state == Wave::State::Ended;
      }
      if (allEnded)
        return true;
      if (waiting && !anyRunning) {
        // Every wave that has not ended waits: the barrier opens.
        ++d.counters.barriers;
        ++group.epoch;
        for (Wave &w : waves)
          if (w.state == Wave::State::AtBarrier)
            w.state = Wave::State::Running;
      }
    }
  }

private:
  void initialize(Wave &w) {
    const auto &desc = k.info.descriptor;
    const LaunchConfig &cfg = *d.config;
    std::memset(w.s, 0, sizeof(w.s));
    w.scc = false;
    w.pc = 0;
    w.executed = 0;
    w.state = Wave::State::Running;
    unsigned first = w.index * width;
    unsigned lanes = std::min(width, threads - first);
    w.setExec(lanes == 64 ? ~uint64_t(0) : (uint64_t(1) << lanes) - 1);
    // User SGPRs.
    unsigned next = 0;
    auto put64 = [&](uint64_t value) {
      w.s[next++] = uint32_t(value);
      w.s[next++] = uint32_t(value >> 32);
    };
    uint16_t props = desc.kernel_code_properties;
    using namespace amdhsa;
    if (AMDHSA_BITS_GET(props, KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER))
      next += 4; // no buffer-resource scratch: scratch_* instructions only
    if (AMDHSA_BITS_GET(props, KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR))
      put64(reinterpret_cast<uint64_t>(d.packet));
    if (AMDHSA_BITS_GET(props, KERNEL_CODE_PROPERTY_ENABLE_SGPR_QUEUE_PTR))
      put64(0);
    if (AMDHSA_BITS_GET(props, KERNEL_CODE_PROPERTY_ENABLE_SGPR_KERNARG_SEGMENT_PTR))
      put64(reinterpret_cast<uint64_t>(cfg.kernarg.data()));
    if (AMDHSA_BITS_GET(props, KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_ID))
      put64(0);
    if (AMDHSA_BITS_GET(props, KERNEL_CODE_PROPERTY_ENABLE_SGPR_FLAT_SCRATCH_INIT))
      put64(0);
    if (AMDHSA_BITS_GET(props, KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_SIZE))
      w.s[next++] = k.info.privateSegmentFixedSize;
    // Preloaded kernel arguments (gfx940+) follow the user SGPRs above.
    unsigned preload = AMDHSA_BITS_GET(desc.kernarg_preload,
                                       KERNARG_PRELOAD_SPEC_LENGTH);
    unsigned preloadOffset = AMDHSA_BITS_GET(desc.kernarg_preload,
                                             KERNARG_PRELOAD_SPEC_OFFSET);
    for (unsigned i = 0; i < preload; ++i) {
      uint32_t value = 0;
      size_t at = (preloadOffset + i) * 4;
      if (at + 4 <= cfg.kernarg.size())
        std::memcpy(&value, cfg.kernarg.data() + at, 4);
      w.s[next++] = value;
    }
    next = AMDHSA_BITS_GET(desc.compute_pgm_rsrc2,
                           COMPUTE_PGM_RSRC2_GFX6_GFX120_USER_SGPR_COUNT);
    uint32_t rsrc2 = desc.compute_pgm_rsrc2;
    if (AMDHSA_BITS_GET(rsrc2, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_X))
      w.s[next++] = group.id[0];
    if (AMDHSA_BITS_GET(rsrc2, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y))
      w.s[next++] = group.id[1];
    if (AMDHSA_BITS_GET(rsrc2, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z))
      w.s[next++] = group.id[2];
    if (AMDHSA_BITS_GET(rsrc2, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_INFO))
      w.s[next++] = 0;
    if (AMDHSA_BITS_GET(rsrc2, COMPUTE_PGM_RSRC2_ENABLE_PRIVATE_SEGMENT))
      w.s[next++] = 0;
    // Work-item ids.
    unsigned idVgprs = AMDHSA_BITS_GET(rsrc2, COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID);
    bool packed = hasPackedWorkItemIds(k.processor);
    for (unsigned lane = 0; lane < width; ++lane) {
      unsigned t = first + lane;
      if (t >= threads)
        t = threads - 1;
      uint32_t x = t % cfg.block[0];
      uint32_t y = (t / cfg.block[0]) % cfg.block[1];
      uint32_t z = t / (cfg.block[0] * cfg.block[1]);
      if (packed) {
        w.vreg(0)[lane] = x | (idVgprs >= 1 ? y << 10 : 0) |
                          (idVgprs >= 2 ? z << 20 : 0);
      } else {
        w.vreg(0)[lane] = x;
        if (idVgprs >= 1)
          w.vreg(1)[lane] = y;
        if (idVgprs >= 2)
          w.vreg(2)[lane] = z;
      }
    }
  }

  Dispatch &d;
  const LoadedKernel &k;
  unsigned threads = 0, width = 64;
  Workgroup group;
  std::vector<Wave> waves;
};

} // namespace

void fail(Wave &w, int lane, int error, const std::string &what) {
  Dispatch &d = *w.dispatch;
  if (d.failed)
    return;
  d.failed = true;
  d.failure.error = error;
  char where[160];
  const Instruction *in = w.current;
  std::snprintf(where, sizeof(where),
                " at offset 0x%x, workgroup (%u,%u,%u) wave %u",
                in ? in->address : 0, w.group->id[0], w.group->id[1],
                w.group->id[2], w.index);
  d.failure.report = "quilt-emulator: " + what + " in " + d.kernel->info.name +
                     where + (lane >= 0 ? " lane " + std::to_string(lane) : "") +
                     (in ? " (" + in->text + ")" : "");
}

bool profilingRequested() {
  static bool on = [] {
    const char *env = std::getenv("QUILT_EMULATOR_PROFILE");
    return env && *env && std::strcmp(env, "0") != 0;
  }();
  return on;
}

namespace {
std::atomic<bool> toolWantsCounters{false};
} // namespace

void countEverything() { toolWantsCounters.store(true); }

bool countingEverything() {
  return profilingRequested() || toolWantsCounters.load();
}

void countGlobalSegments(Counters &c, const uint64_t *addresses, unsigned lanes,
                         unsigned bytes) {
  uint64_t segments[128];
  unsigned n = 0;
  for (unsigned i = 0; i < lanes; ++i)
    for (uint64_t s = addresses[i] / 64; s <= (addresses[i] + bytes - 1) / 64; ++s)
      if (n < 128)
        segments[n++] = s;
  std::sort(segments, segments + n);
  ++c.globalRequests;
  c.globalSegments += std::unique(segments, segments + n) - segments;
  c.globalMinimumSegments += (uint64_t(lanes) * bytes + 63) / 64;
}

void countLdsBankConflicts(Counters &c, const uint32_t *addresses,
                           unsigned lanes, unsigned bytes, bool newRequest) {
  // 128 bytes a cycle: 32 lanes of dwords, 16 of b64, 8 of b96/b128.
  unsigned dwords = std::max(1u, bytes / 4);
  unsigned perCycle = dwords == 1 ? 32 : dwords == 2 ? 16 : 8;
  c.ldsRequests += newRequest;
  for (unsigned first = 0; first < lanes; first += perCycle) {
    unsigned last = std::min(lanes, first + perCycle);
    uint32_t words[64 * 4];
    unsigned n = 0;
    for (unsigned i = first; i < last; ++i)
      for (unsigned d = 0; d < dwords; ++d)
        words[n++] = addresses[i] / 4 + d;
    std::sort(words, words + n);
    n = std::unique(words, words + n) - words;
    unsigned perBank[32] = {}, cycles = 0;
    for (unsigned i = 0; i < n; ++i)
      cycles = std::max(cycles, ++perBank[words[i] % 32]);
    c.ldsCycles += cycles;
    c.ldsIdealCycles += (n + 31) / 32;
  }
}

bool runKernel(const LoadedKernel &kernel, const LaunchConfig &config,
               Counters &counters, LaunchFailure &failure) {
  Dispatch d;
  d.kernel = &kernel;
  d.config = &config;
  d.profile = countingEverything();
  // hsa_kernel_dispatch_packet_t: workgroup sizes (u16) at 4, grid sizes
  // in work-items (u32) at 12, segment sizes at 24 and 28.
  auto put16 = [&](unsigned at, uint16_t v) { std::memcpy(d.packet + at, &v, 2); };
  auto put32 = [&](unsigned at, uint32_t v) { std::memcpy(d.packet + at, &v, 4); };
  uint16_t dims = config.grid[2] * config.block[2] > 1   ? 3
                  : config.grid[1] * config.block[1] > 1 ? 2
                                                         : 1;
  put16(2, dims);
  for (int i = 0; i < 3; ++i) {
    put16(4 + 2 * i, uint16_t(config.block[i]));
    put32(12 + 4 * i, config.grid[i] * config.block[i]);
  }
  put32(24, kernel.info.privateSegmentFixedSize);
  put32(28, kernel.info.groupSegmentFixedSize + config.dynamicLdsBytes);
  uint64_t kernarg = reinterpret_cast<uint64_t>(config.kernarg.data());
  std::memcpy(d.packet + 40, &kernarg, 8);

  if (uint64_t(config.grid[0]) * config.grid[1] * config.grid[2] *
          config.block[0] * config.block[1] * config.block[2] ==
      0) {
    counters = d.counters;
    return true;
  }
  // The kernel reads the packet like device memory.
  auto &memory = emu::deviceMemory();
  uint64_t packet = reinterpret_cast<uint64_t>(d.packet);
  memory.add(packet, sizeof(d.packet), emu::DeviceMemory::Kind::ModuleVariable);
  WorkgroupRunner runner(d);
  bool ok =
      emu::forEachBlock(config.grid, [&](uint32_t x, uint32_t y, uint32_t z) {
        ++d.counters.workgroups;
        return runner.run(x, y, z);
      });
  memory.remove(packet);
  counters = d.counters;
  if (!ok)
    failure = d.failure;
  return ok;
}

} // namespace quilt::amdgcn
