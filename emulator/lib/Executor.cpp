//===- Executor.cpp - Scheduling, control flow and barriers ---------------===//
//
// Part of the Quilt project.
//
// See Cta.h for the execution model. Barriers follow PTX ISA 9.7.13.1
// (bar.sync counts threads; without a count every thread of the CTA takes
// part); a thread that exits no longer counts, as on hardware since Volta.
//
//===----------------------------------------------------------------------===//

#include "BlockOrder.h"
#include "Cta.h"
#include "Reconvergence.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace quilt::emu {
namespace {

/// Warp instructions one warp runs before the scheduler moves on; small
/// enough that spin loops on an mbarrier interleave, large enough to keep
/// the scheduler's cost negligible.
constexpr uint64_t kSlice = 2048;

uint64_t instructionLimit() {
  static uint64_t limit = [] {
    const char *v = std::getenv("QUILT_EMULATOR_MAX_INSTRUCTIONS");
    return v ? std::strtoull(v, nullptr, 10) : uint64_t(1) << 36;
  }();
  return limit;
}

bool checkersEnabled() {
  static bool enabled = [] {
    const char *v = std::getenv("QUILT_EMULATOR_CHECKS");
    return !(v && std::string(v) == "0");
  }();
  return enabled;
}

} // namespace

Cta::Cta(const Function &kernel, const LaunchConfig &config, Counters &counters,
         LaunchFailure &failure)
    : kernel_(kernel), config_(config), counters_(counters), failure_(failure) {
  threads_ = config.block[0] * config.block[1] * config.block[2];
  uint32_t numWarps = (threads_ + 31) / 32;
  warps_.resize(numWarps);
  for (uint32_t i = 0; i < numWarps; ++i)
    warps_[i].index = i;
  // Registers, shared and local memory are sized and zeroed by run(), once
  // per CTA: most launches of small shapes have one CTA, and zeroing them
  // here too doubled the zeroing, a tenth of the emulator's time.
  scratch_.assign(size_t(threads_) * kernel.scratchParamBytes, 0);
  checker_.setEnabled(checkersEnabled());
}

uint32_t Cta::liveThreads() const {
  uint32_t n = 0;
  for (const Warp &w : warps_)
    n += __builtin_popcount(w.liveMask);
  return n;
}

bool Cta::fail(int cudaError, const char *kind, const Instruction &inst,
               const Warp &w, int lane, const std::string &detail) {
  if (failed_)
    return false;
  failed_ = true;
  uint32_t t = threadId(w, lane);
  uint32_t bx = config_.block[0], by = config_.block[1];
  char where[256];
  std::snprintf(where, sizeof(where), "CTA (%u,%u,%u) thread (%u,%u,%u)",
                ctaid_[0], ctaid_[1], ctaid_[2], t % bx, (t / bx) % by,
                t / (bx * by));
  failure_.error = cudaError;
  failure_.report = std::string(kind) + " in " + kernel_.name +
                    " at PTX line " + std::to_string(inst.line) + ", " + where +
                    ": " + detail;
  return false;
}

uint64_t Cta::special(Warp &w, int lane, Special which) {
  uint32_t t = threadId(w, lane);
  const uint32_t *b = config_.block;
  switch (which) {
  case Special::TidX:
    return t % b[0];
  case Special::TidY:
    return (t / b[0]) % b[1];
  case Special::TidZ:
    return t / (b[0] * b[1]);
  case Special::NtidX:
    return b[0];
  case Special::NtidY:
    return b[1];
  case Special::NtidZ:
    return b[2];
  case Special::CtaidX:
    return ctaid_[0];
  case Special::CtaidY:
    return ctaid_[1];
  case Special::CtaidZ:
    return ctaid_[2];
  case Special::NctaidX:
    return config_.grid[0];
  case Special::NctaidY:
    return config_.grid[1];
  case Special::NctaidZ:
    return config_.grid[2];
  case Special::LaneId:
    return uint64_t(lane);
  case Special::WarpId:
    return w.index;
  case Special::NWarpId:
    return warps_.size();
  case Special::SmId:
    return 0;
  case Special::NSmId:
    return config_.smCount;
  case Special::GridId:
    return 0;
  case Special::LanemaskEq:
    return uint64_t(1) << lane;
  case Special::LanemaskLe:
    return maskTo(~uint64_t(0), lane + 1);
  case Special::LanemaskLt:
    return maskTo(~uint64_t(0), lane);
  case Special::LanemaskGe:
    return uint32_t(~maskTo(~uint64_t(0), lane));
  case Special::LanemaskGt:
    return uint32_t(~maskTo(~uint64_t(0), lane + 1));
  case Special::Clock:
  case Special::Clock64:
    return counters_.warpInstructions;
  case Special::GlobalTimer:
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count());
  case Special::DynamicSmemSize:
    return config_.dynamicSharedBytes;
  case Special::TotalSmemSize:
    return shared_.size();
  case Special::ClusterCtaRank:
    return 0;
  case Special::ClusterNctaRank:
    return 1;
  case Special::ClusterCtaidX:
  case Special::ClusterCtaidY:
  case Special::ClusterCtaidZ:
    return 0;
  case Special::ClusterNctaidX:
  case Special::ClusterNctaidY:
  case Special::ClusterNctaidZ:
    return 1;
  case Special::ClusterIdX:
    return ctaid_[0];
  case Special::ClusterIdY:
    return ctaid_[1];
  case Special::ClusterIdZ:
    return ctaid_[2];
  case Special::NClusterIdX:
    return config_.grid[0];
  case Special::NClusterIdY:
    return config_.grid[1];
  case Special::NClusterIdZ:
    return config_.grid[2];
  case Special::IsExplicitCluster:
    return 0;
  }
  return 0;
}

bool Cta::arriveAtBarrier(Warp &w, const Instruction &inst, uint32_t exec) {
  int lane0 = __builtin_ctz(exec);
  uint32_t id =
      inst.operands.empty() ? 0 : uint32_t(read(w, lane0, inst.operands[0]));
  if (id >= 16)
    return fail(kErrorLaunchFailed, "invalid barrier", inst, w, lane0,
                "barrier " + std::to_string(id) + " (0..15 exist)");
  BarrierState &b = barriers_[id];
  if (inst.operands.size() > 1) {
    uint32_t count = uint32_t(read(w, lane0, inst.operands[1]));
    if (count % 32 || count == 0)
      return fail(kErrorLaunchFailed, "invalid barrier", inst, w, lane0,
                  "thread count " + std::to_string(count) +
                      " is not a positive multiple of 32");
    b.expected = count;
  }
  for (int lane = 0; lane < 32; ++lane) {
    if (!(exec >> lane & 1))
      continue;
    Lane &l = w.lanes[lane];
    if (inst.op == Op::BarSync) {
      l.state = LaneState::AtBarrier;
      l.barrier = id;
    } else {
      ++l.pc; // bar.arrive does not wait
    }
  }
  b.arrived += __builtin_popcount(exec);
  join(b.knowledge, w.wgmma.known);
  noteProgress();
  return true;
}

void Cta::releaseBarriers() {
  uint32_t live = liveThreads();
  for (uint32_t id = 0; id < 16; ++id) {
    BarrierState &b = barriers_[id];
    uint32_t expected = b.expected ? b.expected : live;
    if (b.arrived == 0 || b.arrived < expected)
      continue;
    acquireAtBarrier(id);
    for (Warp &w : warps_)
      for (Lane &l : w.lanes)
        if (l.state == LaneState::AtBarrier && l.barrier == id) {
          l.state = LaneState::Running;
          ++l.pc;
        }
    b = BarrierState();
    ++barrierEpoch;
    ++counters_.barriers;
    noteProgress();
  }
}

bool Cta::arriveAtWarpgroup(Warp &w, const Instruction &inst, uint32_t exec) {
  int lane0 = __builtin_ctz(exec);
  if (exec != w.liveMask)
    return fail(kErrorLaunchFailed, "divergent warpgroup instruction", inst, w,
                lane0,
                "wgmma.mma_async reached by lanes " + laneMaskText(exec) +
                    " of a warp whose live lanes are all required");
  for (int lane = 0; lane < 32; ++lane)
    if (exec >> lane & 1)
      w.lanes[lane].state = LaneState::AtWarpgroup;
  uint32_t first = w.index / 4 * 4;
  if (first + 4 > warps_.size())
    return fail(kErrorLaunchFailed, "incomplete warpgroup", inst, w, lane0,
                "wgmma.mma_async needs warps " + std::to_string(first) + ".." +
                    std::to_string(first + 3) + " in the CTA");
  Warp *group[4];
  for (uint32_t i = 0; i < 4; ++i) {
    Warp &g = warps_[first + i];
    group[i] = &g;
    if (g.liveMask != 0xffffffffu)
      return fail(kErrorLaunchFailed, "incomplete warpgroup", inst, w, lane0,
                  "warp " + std::to_string(first + i) +
                      " of the warpgroup has exited threads");
    for (Lane &l : g.lanes)
      if (l.state != LaneState::AtWarpgroup)
        return true; // others still to come
    if (g.lanes[0].pc != w.lanes[lane0].pc)
      return fail(kErrorLaunchFailed, "divergent warpgroup instruction", inst,
                  w, lane0,
                  "warp " + std::to_string(first + i) +
                      " of the warpgroup waits at another wgmma (PTX line " +
                      std::to_string(kernel_.code[g.lanes[0].pc].line) + ")");
  }
  if (!executeWarpgroupMma(inst, group))
    return false;
  for (Warp *g : group)
    for (Lane &l : g->lanes) {
      l.state = LaneState::Running;
      ++l.pc;
    }
  noteProgress();
  return true;
}

uint32_t Cta::selectLanes(Warp &w, uint32_t &pc) {
  auto runnable = [&](int lane) {
    return (w.liveMask >> lane & 1) &&
           w.lanes[lane].state == LaneState::Running;
  };
  while (true) {
    uint32_t region =
        w.divergences.empty() ? 0xffffffffu : w.divergences.back().mask;
    uint32_t stopAt =
        w.divergences.empty() ? UINT32_MAX : w.divergences.back().pc;
    pc = UINT32_MAX;
    bool waiting = false; // a lane of the region is blocked short of stopAt
    for (int lane = 0; lane < 32; ++lane) {
      if (!(region >> lane & 1) || !(w.liveMask >> lane & 1))
        continue;
      const Lane &l = w.lanes[lane];
      if (l.pc == stopAt && l.state == LaneState::Running)
        continue;
      if (!runnable(lane)) {
        waiting = true;
        continue;
      }
      pc = std::min(pc, l.pc);
    }
    if (pc != UINT32_MAX) {
      uint32_t active = 0;
      for (int lane = 0; lane < 32; ++lane)
        if ((region >> lane & 1) && runnable(lane) && w.lanes[lane].pc == pc)
          active |= 1u << lane;
      return active;
    }
    if (waiting || w.divergences.empty())
      return 0;
    // Every lane of the innermost region is at its reconvergence point.
    w.divergences.pop_back();
  }
}

bool Cta::step(Warp &w, uint32_t active, uint32_t pc, bool &yield) {
  if (pc >= kernel_.code.size()) {
    // Falling off the end of the body returns, as `ret` would.
    for (int lane = 0; lane < 32; ++lane)
      if (active >> lane & 1)
        w.lanes[lane].state = LaneState::Exited;
    w.liveMask &= ~active;
    noteProgress();
    return true;
  }
  const Instruction &inst = kernel_.code[pc];
  uint32_t exec = active;
  if (inst.guarded) {
    exec = 0;
    for (int lane = 0; lane < 32; ++lane)
      if (active >> lane & 1) {
        bool p = w.reg(inst.guardReg, lane) & 1;
        if (p != inst.guardNegated)
          exec |= 1u << lane;
      }
  }
  ++counters_.warpInstructions;
  counters_.threadInstructions += __builtin_popcount(exec);
  accesses_.clear();
  // A wgmma in flight owns its accumulators (a later wgmma may chain on
  // them).
  if (w.wgmma.newestAccumulator && exec && inst.op != Op::WgmmaMma &&
      !checkAccumulatorAccess(w, inst, __builtin_ctz(exec)))
    return false;

  auto advance = [&](uint32_t mask) {
    for (int lane = 0; lane < 32; ++lane)
      if (mask >> lane & 1)
        ++w.lanes[lane].pc;
  };
  switch (inst.op) {
  case Op::Bra:
  case Op::Ret:
  case Op::Exit:
  case Op::Trap:
  case Op::BarSync:
  case Op::BarArrive:
  case Op::WgmmaMma:
    countInstruction(inst);
    break;
  default:
    break;
  }
  switch (inst.op) {
  case Op::Bra: {
    uint32_t target = uint32_t(inst.operands[0].imm);
    uint32_t join = kernel_.reconvergence[pc];
    if (exec && exec != active && join != kNoReconvergence) {
      // Divergence: unless these lanes already reconverge at the same point
      // (the back edge of a loop some lanes leave), open a region.
      bool same = !w.divergences.empty() && w.divergences.back().pc == join &&
                  (active & ~w.divergences.back().mask) == 0;
      if (!same)
        w.divergences.push_back({join, active});
    }
    for (int lane = 0; lane < 32; ++lane)
      if (active >> lane & 1)
        w.lanes[lane].pc = (exec >> lane & 1) ? target : pc + 1;
    return true;
  }
  case Op::Ret:
  case Op::Exit:
    for (int lane = 0; lane < 32; ++lane)
      if (exec >> lane & 1)
        w.lanes[lane].state = LaneState::Exited;
    w.liveMask &= ~exec;
    advance(active & ~exec);
    noteProgress();
    releaseBarriers();
    return true;
  case Op::Trap:
    if (!exec) {
      advance(active);
      return true;
    }
    return fail(kErrorLaunchFailed, "trap", inst, w, __builtin_ctz(exec),
                "the kernel executed trap");
  case Op::BarSync:
  case Op::BarArrive:
    advance(active & ~exec);
    if (!exec)
      return true;
    if (!arriveAtBarrier(w, inst, exec))
      return false;
    releaseBarriers();
    return true;
  case Op::WgmmaMma:
    if (!exec) {
      advance(active);
      return true;
    }
    advance(active & ~exec);
    return arriveAtWarpgroup(w, inst, exec);
  case Op::SetMaxNReg: {
    bool waits = false;
    if (exec && !setMaxRegisters(w, inst, exec, pc, waits))
      return false;
    if (waits) {
      // Not executed: the warp comes back to it after the others ran.
      yield = true;
      return true;
    }
    countInstruction(inst);
    advance(active);
    return true;
  }
  default:
    break;
  }

  bool ok = true;
  if (exec) {
    switch (inst.op) {
    case Op::Ld:
    case Op::St:
    case Op::Atom:
    case Op::Red:
    case Op::Cvta:
    case Op::Isspacep:
    case Op::Prefetch:
      ok = executeMemory(w, inst, exec);
      break;
    case Op::CpAsync:
    case Op::CpAsyncCommit:
    case Op::CpAsyncWait:
    case Op::CpAsyncWaitAll:
    case Op::CpAsyncBulkTensor:
    case Op::MbarInit:
    case Op::MbarInval:
    case Op::MbarArrive:
    case Op::MbarArriveExpectTx:
    case Op::MbarExpectTx:
    case Op::MbarCompleteTx:
    case Op::MbarTestWait:
    case Op::MbarTryWait:
      ok = executeAsync(w, inst, exec, yield);
      break;
    case Op::Ldmatrix:
    case Op::MmaSync:
    case Op::WgmmaFence:
    case Op::WgmmaCommit:
    case Op::WgmmaWait:
      ok = executeMatrix(w, inst, exec);
      break;
    case Op::Shfl:
    case Op::Vote:
    case Op::ElectSync:
    case Op::Activemask:
    case Op::BarWarpSync:
      ok = executeWarp(w, inst, exec, active);
      break;
    case Op::Call:
      ok = executePrintf(w, inst, exec);
      break;
    case Op::Nop:
    case Op::Nanosleep:
      break;
    default:
      ok = executeScalar(w, inst, exec);
      break;
    }
  }
  countInstruction(inst);
  advance(active);
  return ok;
}

Cta::SliceEnd Cta::runSlice(Warp &w, uint64_t budget) {
  for (uint64_t i = 0; i < budget; ++i) {
    if (!w.liveMask)
      return SliceEnd::Exited;
    uint32_t pc;
    uint32_t active = selectLanes(w, pc);
    if (!active)
      return SliceEnd::Blocked;
    bool yield = false;
    if (!step(w, active, pc, yield))
      return SliceEnd::Failed;
    if (yield)
      return SliceEnd::Yielded;
  }
  return SliceEnd::Budget;
}

bool Cta::run(const uint32_t ctaid[3]) {
  std::copy(ctaid, ctaid + 3, ctaid_);
  for (uint32_t i = 0; i < warps_.size(); ++i) {
    Warp &w = warps_[i];
    w.registers.assign(size_t(kernel_.numRegisters) * 32, 0);
    uint32_t first = i * 32;
    uint32_t n = std::min<uint32_t>(32, threads_ - first);
    w.liveMask = n == 32 ? 0xffffffffu : (1u << n) - 1;
    for (Lane &l : w.lanes)
      l = Lane();
    w.divergences.clear();
    w.wgmma = WarpWgmmas();
    w.maxRegisters = launchRegisters();
    w.setMaxRegisterPcs.clear();
  }
  registerPool_ = 0;
  std::fill(std::begin(wgmmaIssued_), std::end(wgmmaIssued_), 0);
  uint64_t staticBytes = (kernel_.staticSharedBytes + 15) / 16 * 16;
  shared_.assign(staticBytes + config_.dynamicSharedBytes, 0);
  local_.assign(size_t(threads_) * kernel_.localBytes, 0);
  checker_.reset(shared_.size());
  mbarriers.clear();
  for (BarrierState &b : barriers_)
    b = BarrierState();
  barrierEpoch = 0;
  ++counters_.ctas;

  uint64_t limit = instructionLimit();
  uint64_t start = counters_.warpInstructions;
  while (true) {
    uint64_t before = progress_;
    bool anyLive = false, anyRan = false;
    for (Warp &w : warps_) {
      if (!w.liveMask)
        continue;
      anyLive = true;
      SliceEnd end = runSlice(w, kSlice);
      if (end == SliceEnd::Failed)
        return false;
      if (end == SliceEnd::Budget)
        anyRan = true;
    }
    if (!anyLive)
      break;
    if (counters_.warpInstructions - start > limit) {
      Warp &w = warps_[0];
      return fail(kErrorLaunchFailed, "instruction limit", kernel_.code[0], w,
                  0,
                  "the CTA ran more than " + std::to_string(limit) +
                      " warp instructions (QUILT_EMULATOR_MAX_INSTRUCTIONS)");
    }
    if (!anyRan && progress_ == before) {
      // Every live warp waits, and nothing any of them did could release
      // another: a barrier that can never complete. A warp waiting for
      // registers (setmaxnreg.inc) is named first: the others wait for it.
      auto waitingAt = [&](const Lane &l) -> const Instruction & {
        uint32_t pc = l.state == LaneState::Running ? l.spinPc : l.pc;
        return kernel_.code[std::min<size_t>(pc, kernel_.code.size() - 1)];
      };
      std::vector<Warp *> order;
      for (Warp &w : warps_)
        if (w.liveMask &&
            waitingAt(w.lanes[__builtin_ctz(w.liveMask)]).op ==
                Op::SetMaxNReg &&
            w.lanes[__builtin_ctz(w.liveMask)].state == LaneState::Running)
          order.push_back(&w);
      for (Warp &w : warps_)
        order.push_back(&w);
      for (Warp *waiting : order)
        for (int lane = 0; lane < 32; ++lane) {
          Warp &w = *waiting;
          Lane &l = w.lanes[lane];
          if (!(w.liveMask >> lane & 1))
            continue;
          const Instruction &inst = waitingAt(l);
          std::string detail;
          if (l.state == LaneState::AtBarrier) {
            const BarrierState &b = barriers_[l.barrier];
            detail = "waits at barrier " + std::to_string(l.barrier) +
                     ", which has " + std::to_string(b.arrived) + " of " +
                     std::to_string(b.expected ? b.expected : liveThreads()) +
                     " threads and no thread left to arrive";
          } else if (l.state == LaneState::AtWarpgroup) {
            detail = "waits for its warpgroup at wgmma.mma_async, which the "
                     "other warps never reach";
          } else if (inst.op == Op::SetMaxNReg) {
            detail = registerWaitDetail(w, inst);
          } else {
            detail = "spins on an mbarrier whose phase can never complete";
          }
          return fail(kErrorLaunchFailed, "deadlock", inst, w, lane, detail);
        }
    }
  }
  return true;
}

bool runKernel(const Function &kernel, const LaunchConfig &config,
               Counters &counters, LaunchFailure &failure) {
  Cta cta(kernel, config, counters, failure);
  return forEachBlock(config.grid, [&](uint32_t x, uint32_t y, uint32_t z) {
    const uint32_t id[3] = {x, y, z};
    return cta.run(id);
  });
}

} // namespace quilt::emu
