//===- RegisterMoves.cpp - setmaxnreg between a CTA's warpgroups ----------===//
//
// Part of the Quilt project.
//
// setmaxnreg (PTX ISA 9.7.19.5, sm_90a) moves registers between the warps
// of a CTA through a pool: `.dec` gives the executing warp's registers above
// the new count back to it, `.inc` takes what the new count needs from it
// and waits until the pool has that much. A warp-specialized kernel's
// producer warpgroup keeps a few (40) and its consumers take the rest,
// which only works if the pool ever holds enough: otherwise the consumers
// wait forever. The emulator keeps the pool as the GPU does, and checks
// the instruction's rules:
//
// - the count is a multiple of 8 in [24, 256];
// - every thread of the warp executes it (.sync.aligned), and every warp of
//   a warpgroup executes the same setmaxnreg as its n-th;
// - .dec does not raise a warp's count, .inc does not lower it;
// - the kernel declares `.minnctapersm`: a thread's registers at launch are
//   then what ptxas allocates, the budget of `.maxntid` threads and that
//   many blocks on the SM's four 16K-register sub-partitions (checked with
//   ptxas 13 for sm_90a: 168 at 384 threads and one block, 128 at 256 and
//   two, even for a kernel whose code needs 26). Without it ptxas gives the
//   kernel what its code outside the moves needs, so no pool is known.
//
// An `.inc` that the pool cannot serve makes its warp wait; when every warp
// waits, the launch fails as a deadlock naming the setmaxnreg.
//
//===----------------------------------------------------------------------===//

#include "Cta.h"

#include <algorithm>
#include <string>

namespace quilt::emu {

namespace {

/// Hopper's register file: 64K 32-bit registers an SM, in four
/// sub-partitions a warp takes its registers from, in granules of 8 a
/// thread; at most 255 a thread.
constexpr uint32_t kSubPartitions = 4;
constexpr uint32_t kRegistersPerSubPartition = 16384;
constexpr uint32_t kGranule = 8;
constexpr uint32_t kMostPerThread = 255;

} // namespace

uint32_t Cta::launchRegisters() const {
  if (kernel_.minBlocksPerSM == 0)
    return 0;
  uint32_t threads = threads_;
  if (kernel_.maxThreads[0])
    threads = kernel_.maxThreads[0] * std::max(kernel_.maxThreads[1], 1u) *
              std::max(kernel_.maxThreads[2], 1u);
  uint32_t warps = (threads + 31) / 32;
  uint32_t warpsPerSubPartition =
      (kernel_.minBlocksPerSM * warps + kSubPartitions - 1) / kSubPartitions;
  if (warpsPerSubPartition == 0)
    return 0;
  uint32_t perThread = kRegistersPerSubPartition / warpsPerSubPartition / 32;
  return std::min(perThread / kGranule * kGranule, kMostPerThread);
}

bool Cta::setMaxRegisters(Warp &w, const Instruction &inst, uint32_t exec,
                          uint32_t pc, bool &waits) {
  waits = false;
  int lane0 = __builtin_ctz(exec);
  const char *name = inst.hi ? "setmaxnreg.inc" : "setmaxnreg.dec";
  bool immediate =
      inst.operands.size() == 1 && inst.operands[0].kind == Operand::Kind::Imm;
  uint64_t count = immediate ? inst.operands[0].imm : 0;
  if (!immediate || count % kGranule || count < 24 || count > 256)
    return fail(kErrorLaunchFailed, "invalid setmaxnreg", inst, w, lane0,
                std::string(name) +
                    " takes an immediate register count, a multiple of 8 "
                    "from 24 to 256");
  if (exec != 0xffffffffu || w.liveMask != 0xffffffffu)
    return fail(kErrorLaunchFailed, "divergent setmaxnreg", inst, w, lane0,
                std::string(name) + " reached by lanes " + laneMaskText(exec) +
                    " of a warp whose 32 lanes are all required");
  // The n-th setmaxnreg of a warp is the n-th of every warp of its
  // warpgroup.
  size_t nth = w.setMaxRegisterPcs.size();
  uint32_t first = w.index / 4 * 4;
  for (uint32_t i = first; i < first + 4 && i < warps_.size(); ++i) {
    const Warp &peer = warps_[i];
    if (peer.setMaxRegisterPcs.size() > nth &&
        peer.setMaxRegisterPcs[nth] != pc)
      return fail(
          kErrorLaunchFailed, "divergent setmaxnreg", inst, w, lane0,
          "warp " + std::to_string(i) +
              " of the warpgroup executed the setmaxnreg at PTX "
              "line " +
              std::to_string(kernel_.code[peer.setMaxRegisterPcs[nth]].line) +
              " in this one's place");
  }
  if (w.maxRegisters == 0)
    return fail(kErrorLaunchFailed, "setmaxnreg without a register budget",
                inst, w, lane0,
                "the kernel declares no .minnctapersm: ptxas then allocates "
                "a thread's registers at launch for its code, not the "
                "budget of its blocks, and the CTA's pool is unknown");
  uint32_t current = w.maxRegisters;
  if (!inst.hi && count > current)
    return fail(kErrorLaunchFailed, "invalid setmaxnreg", inst, w, lane0,
                "setmaxnreg.dec to " + std::to_string(count) +
                    " registers a thread, above the warp's " +
                    std::to_string(current));
  if (inst.hi && count < current)
    return fail(kErrorLaunchFailed, "invalid setmaxnreg", inst, w, lane0,
                "setmaxnreg.inc to " + std::to_string(count) +
                    " registers a thread, below the warp's " +
                    std::to_string(current));
  if (inst.hi) {
    uint64_t needed = uint64_t(count - current) * 32;
    if (needed > registerPool_) {
      // Waits for other warps' setmaxnreg.dec (or forever: the deadlock
      // report names this instruction).
      for (Lane &l : w.lanes)
        l.spinPc = pc;
      waits = true;
      return true;
    }
    registerPool_ -= needed;
  } else {
    registerPool_ += uint64_t(current - count) * 32;
  }
  w.maxRegisters = uint32_t(count);
  w.setMaxRegisterPcs.push_back(pc);
  noteProgress();
  return true;
}

std::string Cta::registerWaitDetail(const Warp &w,
                                    const Instruction &inst) const {
  uint64_t count = inst.operands.empty() ? 0 : inst.operands[0].imm;
  return "waits at setmaxnreg.inc for " +
         std::to_string((count - w.maxRegisters) * 32) + " registers (from " +
         std::to_string(w.maxRegisters) + " to " + std::to_string(count) +
         " a thread), but the CTA's pool holds " +
         std::to_string(registerPool_) + " and no warp is left to give more";
}

} // namespace quilt::emu
