//===- Cta.h - One CTA in execution -----------------------------*- C++ -*-===//
//
// Part of the Quilt project.
//
// The executor runs a CTA's warps one at a time, each until it blocks
// (bar.sync, a warpgroup rendezvous, a failed mbarrier wait) or its time
// slice ends. Within a warp the lanes run in lock step: every step executes
// the instruction at the smallest program counter among the lanes that can
// run, for exactly the lanes at that counter. Lanes that branched apart
// therefore reconverge as soon as they reach the same instruction, which is
// the post-dominator reconvergence of structured code, without a stack.
//
// The semantics are split by instruction family: ScalarOps.cpp (integer,
// float, conversion), MemoryOps.cpp (ld/st/atom/cvta and memcheck),
// AsyncOps.cpp (cp.async, mbarrier, TMA), MatrixOps.cpp (ldmatrix, mma.sync,
// wgmma), WgmmaHazards.cpp (what a wgmma left in flight forbids),
// WarpOps.cpp (shfl, vote, elect) and Executor.cpp (control flow, barriers,
// scheduling).
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_CTA_H
#define QUILT_EMULATOR_CTA_H

#include "Counters.h"
#include "Executor.h"
#include "Ptx.h"
#include "SharedMemoryChecker.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace quilt::emu {

enum class LaneState : uint8_t {
  Running,
  AtBarrier,   ///< bar.sync: waits for the barrier's count
  AtWarpgroup, ///< wgmma.mma_async: waits for the warpgroup's 128 threads
  Exited,
};

/// A cp.async that has been issued and not yet completed.
struct PendingCopy {
  uint64_t source;      ///< global address
  uint32_t sharedDst;   ///< shared offset
  uint32_t bytes;       ///< cp-size
  uint32_t sourceBytes; ///< src-size: the rest is zero-filled
  uint32_t line;
};

/// A warp's wgmma bookkeeping (WgmmaHazards.cpp).
struct WarpWgmmas {
  /// What the warp knows complete (SharedMemoryChecker.h).
  WgmmaKnowledge known{};
  /// The newest wgmma of its warpgroup it took part in, and its committed
  /// groups (each group's newest wgmma, oldest first).
  uint32_t issued = 0;
  std::deque<uint32_t> groups;
  /// Register -> the wgmma whose accumulator it is, while that one may be
  /// incomplete; and the newest such wgmma (0: none) with its PTX line.
  std::vector<uint32_t> accumulatorOf;
  uint32_t newestAccumulator = 0, newestAccumulatorLine = 0;
};

struct Lane {
  uint32_t pc = 0;
  LaneState state = LaneState::Running;
  uint32_t barrier = 0;
  /// The mbarrier wait that last failed, for deadlock reports.
  uint32_t spinPc = 0;
  /// cp.async groups: committed ones, oldest first, and the open one.
  std::vector<std::vector<PendingCopy>> committedGroups;
  std::vector<PendingCopy> openGroup;
  /// mbarrier shared offset -> phases this thread has seen completed.
  std::map<uint32_t, uint32_t> observedPhases;
};

struct Warp {
  uint32_t index = 0; ///< in the CTA
  Lane lanes[32];
  uint32_t liveMask = 0; ///< lanes that are threads of the CTA, not exited
  /// Divergent regions still open, innermost last: the lanes of `mask` run
  /// apart until each reaches `pc`, the branch's reconvergence point, and
  /// then on together (Reconvergence.h).
  struct Divergence {
    uint32_t pc;
    uint32_t mask;
  };
  std::vector<Divergence> divergences;
  std::vector<uint64_t> registers; ///< registers[reg * 32 + lane]
  WarpWgmmas wgmma;
  /// Registers a thread of the warp has (setmaxnreg, RegisterMoves.cpp; 0
  /// where the kernel's budget is unknown), and the setmaxnreg it
  /// executed, in order.
  uint32_t maxRegisters = 0;
  std::vector<uint32_t> setMaxRegisterPcs;
  uint64_t &reg(uint32_t r, int lane) {
    return registers[size_t(r) * 32 + lane];
  }
};

/// An mbarrier object (PTX ISA 9.7.13.15): the emulator keeps its state
/// beside the 8 shared bytes that name it.
struct Mbarrier {
  uint32_t expected = 0;    ///< arrivals per phase
  uint32_t pending = 0;     ///< arrivals still missing in the current phase
  int64_t transactions = 0; ///< tx-count: expected minus completed bytes
  uint32_t phase = 0;       ///< phases completed so far
  /// What the arriving threads knew of wgmmas (WgmmaHazards.cpp): joined
  /// over the current phase's arrivals, and over every completed phase's,
  /// which a thread that sees a phase complete acquires.
  WgmmaKnowledge arrivedKnowledge{}, releasedKnowledge{};
};

struct BarrierState {
  uint32_t arrived = 0;
  uint32_t expected = 0; ///< 0: every live thread of the CTA
  /// What the arriving threads knew of wgmmas (WgmmaHazards.cpp).
  WgmmaKnowledge knowledge{};
};

class Cta {
public:
  Cta(const Function &kernel, const LaunchConfig &config, Counters &counters,
      LaunchFailure &failure);

  /// Runs CTA (x, y, z) to completion; false after a failure.
  bool run(const uint32_t ctaid[3]);

  // Operand access, shared by the instruction families (inline: every
  // instruction calls them for each operand of each lane).
  uint64_t read(Warp &w, int lane, const Operand &op) {
    switch (op.kind) {
    case Operand::Kind::Reg: {
      uint64_t v = w.reg(op.reg, lane);
      return op.negated ? uint64_t(!(v & 1)) : v;
    }
    case Operand::Kind::Imm:
    case Operand::Kind::Symbol:
    case Operand::Kind::Label:
      return op.imm;
    case Operand::Kind::Special:
      return special(w, lane, op.special);
    default:
      return 0;
    }
  }
  void write(Warp &w, int lane, const Operand &op, uint64_t value, Type type) {
    if (op.kind != Operand::Kind::Reg)
      return; // `_` sinks and malformed destinations drop the value
    w.reg(op.reg, lane) = type == Type::Pred ? (value & 1) : value;
  }
  uint64_t special(Warp &w, int lane, Special which);
  uint32_t threadId(const Warp &w, int lane) const {
    return w.index * 32 + lane;
  }

  /// Records a failure with the report format every checker uses:
  /// "<kind> in <kernel> at PTX line <n> (<text>): CTA (x,y,z) thread
  /// (x,y,z): <detail>".
  bool fail(int cudaError, const char *kind, const Instruction &inst,
            const Warp &w, int lane, const std::string &detail);
  bool failed() const { return failed_; }

  // Memory, in MemoryOps.cpp. `space` Generic resolves through the windows.
  bool load(Warp &w, int lane, const Instruction &inst, Space space,
            uint64_t address, void *data, unsigned bytes);
  bool store(Warp &w, int lane, const Instruction &inst, Space space,
             uint64_t address, const void *data, unsigned bytes);
  /// The address an address operand designates for `lane`.
  uint64_t addressOf(Warp &w, int lane, const Operand &op);
  bool sharedBytesAt(uint64_t offset, uint64_t bytes) const {
    return offset + bytes <= shared_.size() && offset + bytes >= offset;
  }
  uint8_t *sharedData(uint64_t offset) { return shared_.data() + offset; }
  SharedMemoryChecker &checker() { return checker_; }
  Counters &counters() { return counters_; }

  // Families: each executes `inst` for the lanes of `exec` (guard true) of
  // warp `w`; false after a failure.
  bool executeScalar(Warp &w, const Instruction &inst, uint32_t exec);
  bool executeMemory(Warp &w, const Instruction &inst, uint32_t exec);
  bool executeAsync(Warp &w, const Instruction &inst, uint32_t exec,
                    bool &yield);
  bool executeMatrix(Warp &w, const Instruction &inst, uint32_t exec);
  bool executeWarpgroupMma(const Instruction &inst, Warp *group[4]);
  bool executeWarp(Warp &w, const Instruction &inst, uint32_t exec,
                   uint32_t active);
  bool executePrintf(Warp &w, const Instruction &inst, uint32_t exec);

  // wgmma.mma_async left in flight (WgmmaHazards.cpp).
  /// Numbers the wgmma the warpgroup `group` executes now and locks its
  /// accumulator registers `accumulators` in each warp; returns the number.
  uint32_t issueWgmma(const Instruction &inst, Warp *group[4],
                      const Operand &accumulators);
  void commitWgmmaGroup(Warp &w);
  /// wgmma.wait_group N: completes all but the newest N committed groups.
  void waitWgmmaGroups(Warp &w, size_t keep);
  /// Whether `inst` may run on warp `w`: false (and a report) when it
  /// reads or writes an accumulator of an incomplete wgmma.
  bool checkAccumulatorAccess(Warp &w, const Instruction &inst, int lane);
  /// Empty, or the report of a write by warp `w` to shared bytes that an
  /// incomplete (as far as `w` knows) wgmma reads.
  std::string wgmmaOverwriteHazard(const Warp &w, uint32_t offset,
                                   uint32_t bytes);
  /// The threads waiting at barrier `barrier`, now complete, acquire what
  /// every arriving thread knew.
  void acquireAtBarrier(uint32_t barrier);
  static void join(WgmmaKnowledge &into, const WgmmaKnowledge &from);

  /// cp.async.wait_group N for one thread: completes all but the newest N
  /// committed groups.
  bool completeCopies(Warp &w, int lane, const Instruction &inst, size_t keep);

  /// One lane's access of the current warp instruction, for the counters.
  struct Access {
    uint64_t address; ///< shared offset, or global address
    uint32_t bytes;
    Space space; ///< resolved: Global, Shared, Local, Param or Const
  };
  void noteAccess(uint64_t address, uint32_t bytes, Space space) {
    accesses_.push_back({address, bytes, space});
  }
  /// Adds the executed instruction to the class, bank-conflict and sector
  /// counters (Counters.h), from the accesses its lanes made.
  void countInstruction(const Instruction &inst);

  const Function &kernel() const { return kernel_; }
  const LaunchConfig &config() const { return config_; }

private:
  enum class SliceEnd { Blocked, Yielded, Exited, Budget, Failed };
  SliceEnd runSlice(Warp &w, uint64_t budget);
  /// The lanes to run next and their program counter; 0 when none can run
  /// (all waiting, or waiting for lanes of their region that are blocked).
  uint32_t selectLanes(Warp &w, uint32_t &pc);
  /// Executes the instruction at the lanes `selectLanes` chose (`active`,
  /// all at `pc`).
  bool step(Warp &w, uint32_t active, uint32_t pc, bool &yield);
  bool arriveAtBarrier(Warp &w, const Instruction &inst, uint32_t exec);
  void releaseBarriers();
  bool arriveAtWarpgroup(Warp &w, const Instruction &inst, uint32_t exec);
  uint32_t liveThreads() const;

  // setmaxnreg (RegisterMoves.cpp).
  /// A thread's registers at launch: the budget `.maxntid` and
  /// `.minnctapersm` leave, which ptxas allocates to a kernel that moves
  /// registers; 0 without `.minnctapersm`.
  uint32_t launchRegisters() const;
  /// Executes setmaxnreg for warp `w` at `pc`; `waits` when an .inc finds
  /// the pool short (the warp retries later). False after a failure.
  bool setMaxRegisters(Warp &w, const Instruction &inst, uint32_t exec,
                       uint32_t pc, bool &waits);
  /// The deadlock report of a warp waiting at setmaxnreg.inc.
  std::string registerWaitDetail(const Warp &w, const Instruction &inst) const;

  const Function &kernel_;
  const LaunchConfig &config_;
  Counters &counters_;
  LaunchFailure &failure_;
  bool failed_ = false;

  uint32_t ctaid_[3] = {0, 0, 0};
  uint32_t threads_ = 0;
  std::vector<Warp> warps_;
  std::vector<uint8_t> shared_;
  std::vector<uint8_t> local_;   ///< threads x kernel.localBytes
  std::vector<uint8_t> scratch_; ///< threads x kernel.scratchParamBytes
  BarrierState barriers_[16];
  /// The number of the newest wgmma each warpgroup issued.
  uint32_t wgmmaIssued_[kMaxWarpgroups] = {};
  SharedMemoryChecker checker_;
  /// Incremented by every change another warp could wait for; a round of
  /// the scheduler in which it stays put while every warp waits is a
  /// deadlock.
  uint64_t progress_ = 0;
  std::vector<Access> accesses_;
  /// Registers setmaxnreg.dec released and no .inc took yet.
  uint64_t registerPool_ = 0;

public:
  std::map<uint32_t, Mbarrier> mbarriers;
  void noteProgress() { ++progress_; }
  uint32_t barrierEpoch = 0;
};

/// A lane mask as reports print it: 0x0000ffff.
inline std::string laneMaskText(uint32_t mask) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08x", mask);
  return text;
}

// Typed values in 64-bit register slots.
inline uint64_t maskTo(uint64_t v, unsigned bits) {
  return bits >= 64 ? v : v & ((uint64_t(1) << bits) - 1);
}
inline int64_t signExtend(uint64_t v, unsigned bits) {
  if (bits >= 64)
    return int64_t(v);
  uint64_t sign = uint64_t(1) << (bits - 1);
  v = maskTo(v, bits);
  return int64_t((v ^ sign) - sign);
}
inline float asF32(uint64_t v) {
  uint32_t b = uint32_t(v);
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline double asF64(uint64_t v) {
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
inline uint64_t fromF32(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline uint64_t fromF64(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

} // namespace quilt::emu

#endif // QUILT_EMULATOR_CTA_H
