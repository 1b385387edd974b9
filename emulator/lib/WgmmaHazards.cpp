//===- WgmmaHazards.cpp - What a wgmma left in flight forbids -------------===//
//
// Part of the Quilt project.
//
// The emulator computes wgmma.mma_async when its warpgroup reaches it, but
// on the GPU it runs on after the instruction: it reads its shared operands
// and writes its accumulators until the wgmma.wait_group that completes its
// group. A kernel is only right if it never depends on when that happens,
// and these checks enforce it (PTX ISA 9.7.15.5, "Asynchronous warpgroup
// level matrix multiply-accumulate operation"):
//
// - Accumulators: until a wait_group of the warp completes the wgmma, no
//   other instruction of the warp reads or writes its accumulator
//   registers (a later wgmma may chain on them: that is ordered).
// - Shared operands: no thread writes a byte a wgmma read (a store, a
//   cp.async or a TMA load it issues) unless it has synchronized with the
//   wait_group that completed that wgmma: its own warp waited, or it
//   acquired that knowledge through a barrier or an mbarrier phase from a
//   thread that had. This is how a pipelined mainloop hands a stage back:
//   the consumers wait for all but the newest group, arrive on the stage's
//   `empty` mbarrier, and the producer waits for that phase before it
//   copies into the stage; without the arrival, or before the wait, the
//   overwrite is a race.
//
// Knowledge per warp (WgmmaKnowledge, SharedMemoryChecker.h) is the newest
// completed wgmma per warpgroup; a barrier joins it over the threads that
// arrive, an mbarrier over its arrivals, handing it to the threads that
// see a phase complete. (An mbarrier keeps the join of all its completed
// phases, so a waiter may acquire a later phase's knowledge than the one it
// waited for: that can hide a race, never invent one.)
//
//===----------------------------------------------------------------------===//

#include "Cta.h"

#include <algorithm>

namespace quilt::emu {
namespace {

constexpr uint32_t kNoRegister = ~0u;

/// Calls `fn` with every register operand of `op`, vectors and address
/// bases included.
template <typename Fn> void forEachRegister(const Operand &op, Fn &&fn) {
  if (op.kind == Operand::Kind::Reg)
    fn(op.reg);
  for (const Operand &element : op.elements)
    forEachRegister(element, fn);
}

} // namespace

void Cta::join(WgmmaKnowledge &into, const WgmmaKnowledge &from) {
  for (uint32_t g = 0; g < kMaxWarpgroups; ++g)
    into[g] = std::max(into[g], from[g]);
}

uint32_t Cta::issueWgmma(const Instruction &inst, Warp *group[4],
                         const Operand &accumulators) {
  uint32_t warpgroup = group[0]->index / 4;
  uint32_t wgmma = ++wgmmaIssued_[warpgroup];
  for (int i = 0; i < 4; ++i) {
    WarpWgmmas &books = group[i]->wgmma;
    books.issued = wgmma;
    if (books.accumulatorOf.empty())
      books.accumulatorOf.assign(kernel_.numRegisters, 0);
    forEachRegister(accumulators, [&](uint32_t reg) {
      if (reg < books.accumulatorOf.size())
        books.accumulatorOf[reg] = wgmma;
    });
    books.newestAccumulator = wgmma;
    books.newestAccumulatorLine = inst.line;
  }
  return wgmma;
}

void Cta::commitWgmmaGroup(Warp &w) {
  // Without a new wgmma the group is empty, and wait_group still counts it.
  w.wgmma.groups.push_back(w.wgmma.issued);
}

void Cta::waitWgmmaGroups(Warp &w, size_t keep) {
  WarpWgmmas &books = w.wgmma;
  uint32_t &complete = books.known[w.index / 4];
  while (books.groups.size() > keep) {
    complete = std::max(complete, books.groups.front());
    books.groups.pop_front();
  }
  if (books.newestAccumulator && complete >= books.newestAccumulator)
    books.newestAccumulator = 0; // every accumulator is the warp's again
}

bool Cta::checkAccumulatorAccess(Warp &w, const Instruction &inst, int lane) {
  const WarpWgmmas &books = w.wgmma;
  uint32_t complete = books.known[w.index / 4];
  uint32_t locked = kNoRegister;
  auto check = [&](uint32_t reg) {
    if (locked == kNoRegister && reg < books.accumulatorOf.size() &&
        books.accumulatorOf[reg] > complete)
      locked = reg;
  };
  for (const Operand &op : inst.operands)
    forEachRegister(op, check);
  if (inst.guarded)
    check(inst.guardReg);
  if (locked == kNoRegister)
    return true;
  const std::string &name = locked < kernel_.registerNames.size()
                                ? kernel_.registerNames[locked]
                                : std::string("a register");
  return fail(kErrorLaunchFailed, "wgmma accumulator hazard", inst, w, lane,
              name + " is an accumulator of wgmma.mma_async " +
                  std::to_string(books.accumulatorOf[locked]) +
                  " of this warpgroup (the newest at PTX line " +
                  std::to_string(books.newestAccumulatorLine) +
                  "), which no wgmma.wait_group of this warp has completed");
}

std::string Cta::wgmmaOverwriteHazard(const Warp &w, uint32_t offset,
                                      uint32_t bytes) {
  return checker_.wgmmaOverwrite(w.wgmma.known, offset, bytes);
}

void Cta::acquireAtBarrier(uint32_t barrier) {
  for (Warp &w : warps_)
    for (const Lane &l : w.lanes)
      if (l.state == LaneState::AtBarrier && l.barrier == barrier) {
        join(w.wgmma.known, barriers_[barrier].knowledge);
        break;
      }
}

} // namespace quilt::emu
