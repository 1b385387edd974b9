//===- AsyncOps.cpp - cp.async, mbarrier and TMA tile loads ---------------===//
//
// Part of the Quilt project.
//
// cp.async (PTX ISA 9.7.9.25.3): a copy is checked when issued and performed
// when its thread's cp.async.wait_group completes its group, so data that is
// read too early is the old data and the checker reports the read.
//
// mbarrier (9.7.13.15): an expected arrival count, a pending count and a
// transaction count per phase; the phase completes when both reach zero.
// try_wait/test_wait.parity P succeed once the phase of parity P has
// completed, i.e. when the current phase's parity differs from P.
//
// cp.async.bulk.tensor (9.7.9.25.5): the tile is read through the tensor map
// when issued and its bytes complete on the mbarrier at once; the bytes are
// guarded so that only threads that saw that phase complete may read them.
//
//===----------------------------------------------------------------------===//

#include "Cta.h"
#include "DeviceMemory.h"
#include "Swizzle.h"
#include "TensorMap.h"

#include <algorithm>

namespace quilt::emu {
namespace {

/// A shared-space operand's offset: a .shared address is one already, a
/// generic one (no space modifier) goes through the window.
uint64_t sharedOffset(Space space, uint64_t address) {
  if (space != Space::Shared && inSharedWindow(address))
    return address - kSharedWindow;
  return address;
}

/// Ends the mbarrier's current phase: what its arrivals knew of wgmmas
/// becomes what the threads that see it complete acquire.
void completePhase(Mbarrier &mb) {
  ++mb.phase;
  mb.pending = mb.expected;
  Cta::join(mb.releasedKnowledge, mb.arrivedKnowledge);
  mb.arrivedKnowledge = WgmmaKnowledge{};
}

} // namespace

bool Cta::completeCopies(Warp &w, int lane, const Instruction &inst,
                         size_t keep) {
  Lane &l = w.lanes[lane];
  uint32_t t = threadId(w, lane);
  while (l.committedGroups.size() > keep) {
    for (const PendingCopy &copy : l.committedGroups.front()) {
      uint8_t data[16] = {0};
      if (copy.sourceBytes) {
        if (!deviceMemory().contains(copy.source, copy.sourceBytes))
          return fail(kErrorIllegalAddress, "out-of-bounds cp.async", inst, w,
                      lane,
                      "its source was freed before it completed (issued at "
                      "PTX line " +
                          std::to_string(copy.line) + ")");
        std::memcpy(data, reinterpret_cast<const void *>(copy.source),
                    copy.sourceBytes);
      }
      checker_.completeCopy(t, copy.sharedDst, copy.bytes, barrierEpoch);
      std::memcpy(shared_.data() + copy.sharedDst, data, copy.bytes);
      counters_.asyncCopyBytes += copy.bytes;
    }
    l.committedGroups.erase(l.committedGroups.begin());
  }
  return true;
}

bool Cta::executeAsync(Warp &w, const Instruction &inst, uint32_t exec,
                       bool &yield) {
  const std::vector<Operand> &ops = inst.operands;
  bool anyWaitFailed = false, anyWaitSucceeded = false, initialized = false;
  for (int lane = 0; lane < 32; ++lane) {
    if (!(exec >> lane & 1))
      continue;
    Lane &l = w.lanes[lane];
    uint32_t t = threadId(w, lane);
    switch (inst.op) {
    case Op::CpAsync: {
      uint64_t dst = sharedOffset(inst.space, addressOf(w, lane, ops[0]));
      uint64_t src = addressOf(w, lane, ops[1]);
      uint32_t bytes = uint32_t(read(w, lane, ops[2]));
      uint32_t sourceBytes =
          ops.size() > 3 && ops[3].kind != Operand::Kind::Address
              ? uint32_t(read(w, lane, ops[3]))
              : bytes;
      if (bytes != 4 && bytes != 8 && bytes != 16)
        return fail(kErrorLaunchFailed, "invalid cp.async", inst, w, lane,
                    "cp-size " + std::to_string(bytes) + " (4, 8 or 16)");
      if (sourceBytes > bytes)
        return fail(kErrorLaunchFailed, "invalid cp.async", inst, w, lane,
                    "src-size " + std::to_string(sourceBytes) +
                        " exceeds cp-size " + std::to_string(bytes));
      if (dst % bytes || src % bytes)
        return fail(kErrorMisalignedAddress, "misaligned address", inst, w,
                    lane,
                    "cp.async of " + std::to_string(bytes) + " bytes from " +
                        std::to_string(src) + " to shared offset " +
                        std::to_string(dst));
      if (!sharedBytesAt(dst, bytes))
        return fail(kErrorIllegalAddress, "out-of-bounds shared store", inst, w,
                    lane,
                    "cp.async to shared offset " + std::to_string(dst) +
                        ", outside the CTA's " +
                        std::to_string(shared_.size()) + " bytes");
      if (sourceBytes && !deviceMemory().contains(src, sourceBytes))
        return fail(kErrorIllegalAddress, "out-of-bounds global load", inst, w,
                    lane,
                    "cp.async of " + std::to_string(sourceBytes) +
                        " bytes from " + std::to_string(src) + ", " +
                        deviceMemory().describe(src, sourceBytes));
      std::string hazard =
          checker_.beginCopy(t, uint32_t(dst), bytes, barrierEpoch);
      if (hazard.empty())
        hazard = wgmmaOverwriteHazard(w, uint32_t(dst), bytes);
      if (!hazard.empty())
        return fail(kErrorLaunchFailed, "shared-memory hazard", inst, w, lane,
                    hazard);
      l.openGroup.push_back(
          {src, uint32_t(dst), bytes, sourceBytes, inst.line});
      counters_.globalLoadBytes += sourceBytes;
      break;
    }
    case Op::CpAsyncCommit:
      // An empty group is still a group (wait_group counts it).
      l.committedGroups.push_back(std::move(l.openGroup));
      l.openGroup.clear();
      break;
    case Op::CpAsyncWait:
    case Op::CpAsyncWaitAll: {
      size_t keep = 0;
      if (inst.op == Op::CpAsyncWaitAll) {
        l.committedGroups.push_back(std::move(l.openGroup));
        l.openGroup.clear();
      } else {
        keep = size_t(read(w, lane, ops[0]));
      }
      if (!completeCopies(w, lane, inst, keep))
        return false;
      break;
    }
    case Op::MbarInit:
    case Op::MbarInval:
    case Op::MbarArrive:
    case Op::MbarArriveExpectTx:
    case Op::MbarExpectTx:
    case Op::MbarCompleteTx:
    case Op::MbarTestWait:
    case Op::MbarTryWait: {
      // Operand layout: init/expect_tx/complete_tx/inval [addr], ...;
      // arrive/test/try state-or-pred, [addr], ...
      bool hasResult =
          inst.op == Op::MbarArrive || inst.op == Op::MbarArriveExpectTx ||
          inst.op == Op::MbarTestWait || inst.op == Op::MbarTryWait;
      size_t addrIndex = hasResult ? 1 : 0;
      if (ops.size() <= addrIndex ||
          ops[addrIndex].kind != Operand::Kind::Address)
        return fail(kErrorLaunchFailed, "invalid mbarrier operands", inst, w,
                    lane, "expected an address operand");
      uint64_t offset =
          sharedOffset(inst.space, addressOf(w, lane, ops[addrIndex]));
      if (offset % 8 || !sharedBytesAt(offset, 8))
        return fail(offset % 8 ? kErrorMisalignedAddress : kErrorIllegalAddress,
                    "invalid mbarrier address", inst, w, lane,
                    "shared offset " + std::to_string(offset) +
                        (offset % 8 ? " is not 8-byte aligned"
                                    : " is outside the CTA's shared memory"));
      uint32_t key = uint32_t(offset);
      if (inst.op == Op::MbarInit) {
        uint32_t count = uint32_t(read(w, lane, ops[1]));
        if (count == 0 || count >= (1u << 20))
          return fail(kErrorLaunchFailed, "invalid mbarrier.init", inst, w,
                      lane, "count " + std::to_string(count) + " (1..2^20-1)");
        // PTX ISA (mbarrier.init): init on a valid mbarrier is undefined.
        // MLIR's nvgpu tests let every thread init the same barrier at entry,
        // which hardware survives because all warps start together: accept a
        // re-init that loses nothing, reject one that would drop arrivals.
        auto prior = mbarriers.find(key);
        if (prior != mbarriers.end()) {
          const Mbarrier &o = prior->second;
          if (o.expected != count || o.pending != o.expected ||
              o.transactions != 0 || o.phase != 0)
            return fail(
                kErrorLaunchFailed, "mbarrier re-initialized", inst, w, lane,
                "mbarrier.init of the live mbarrier at shared offset " +
                    std::to_string(offset) + " (phase " +
                    std::to_string(o.phase) + ", " +
                    std::to_string(o.expected - o.pending) + " of " +
                    std::to_string(o.expected) + " arrivals, tx-count " +
                    std::to_string(o.transactions) +
                    ") discards its state; mbarrier.inval it first");
        }
        mbarriers[key] = Mbarrier{count, count, 0, 0};
        initialized = true; // let the other warps reach their inits first
        noteProgress();
        break;
      }
      auto it = mbarriers.find(key);
      if (it == mbarriers.end())
        return fail(kErrorLaunchFailed, "uninitialized mbarrier", inst, w, lane,
                    "no mbarrier.init for the mbarrier at shared offset " +
                        std::to_string(offset));
      Mbarrier &mb = it->second;
      auto completeIfDone = [&] {
        if (mb.pending == 0 && mb.transactions == 0) {
          completePhase(mb);
          noteProgress();
        }
      };
      switch (inst.op) {
      case Op::MbarInval:
        mbarriers.erase(it);
        break;
      case Op::MbarExpectTx:
      case Op::MbarCompleteTx: {
        int64_t tx = int64_t(read(w, lane, ops[1]));
        mb.transactions += inst.op == Op::MbarExpectTx ? tx : -tx;
        noteProgress();
        completeIfDone();
        break;
      }
      case Op::MbarArrive:
      case Op::MbarArriveExpectTx: {
        uint32_t count = 1;
        if (inst.op == Op::MbarArriveExpectTx)
          mb.transactions += int64_t(read(w, lane, ops[2]));
        else if (ops.size() > 2)
          count = uint32_t(read(w, lane, ops[2]));
        if (count > mb.pending)
          return fail(kErrorLaunchFailed, "mbarrier over-arrival", inst, w,
                      lane,
                      std::to_string(count) + " arrivals, but only " +
                          std::to_string(mb.pending) +
                          " are pending in the current phase");
        // The state token names the phase the arrival belongs to.
        write(w, lane, ops[0], mb.phase, Type::B64);
        join(mb.arrivedKnowledge, w.wgmma.known);
        mb.pending -= count;
        noteProgress();
        completeIfDone();
        break;
      }
      default: { // test_wait / try_wait
        uint64_t operand = read(w, lane, ops[2]);
        bool done = inst.count /* .parity */
                        ? (operand & 1) != (mb.phase & 1)
                        : mb.phase > operand;
        write(w, lane, ops[0], done, Type::Pred);
        if (done) {
          uint32_t &seen = l.observedPhases[key];
          seen = std::max(seen, mb.phase);
          join(w.wgmma.known, mb.releasedKnowledge);
          anyWaitSucceeded = true;
        } else {
          anyWaitFailed = true;
          l.spinPc = l.pc;
        }
        break;
      }
      }
      break;
    }
    case Op::CpAsyncBulkTensor: {
      uint64_t dst = sharedOffset(Space::Generic, addressOf(w, lane, ops[0]));
      const Operand &source = ops[1];
      uint64_t mapAddress = addressOf(w, lane, source);
      uint64_t barrier =
          sharedOffset(Space::Generic, addressOf(w, lane, ops[2]));
      if (source.elements.empty() ||
          source.elements[0].kind != Operand::Kind::Vector ||
          int(source.elements[0].elements.size()) != inst.count)
        return fail(kErrorLaunchFailed, "invalid tensor copy", inst, w, lane,
                    "expected " + std::to_string(inst.count) +
                        " tensor coordinates");
      int32_t coords[5] = {0, 0, 0, 0, 0};
      for (int i = 0; i < inst.count; ++i)
        coords[i] = int32_t(read(w, lane, source.elements[0].elements[i]));
      // In device memory, or a __grid_constant__ kernel parameter.
      uint8_t encoded[128];
      uint64_t paramOffset = mapAddress - kParamWindow;
      bool inParams = inParamWindow(mapAddress) && paramOffset % 64 == 0 &&
                      paramOffset + 128 <= config_.params.size();
      if (!inParams &&
          (mapAddress % 64 || !deviceMemory().contains(mapAddress, 128)))
        return fail(kErrorIllegalAddress, "invalid tensor map", inst, w, lane,
                    "the tensor map at " + std::to_string(mapAddress) +
                        " is not 128 readable, 64-byte aligned bytes of "
                        "device memory or kernel parameters");
      std::memcpy(encoded,
                  inParams ? config_.params.data() + paramOffset
                           : reinterpret_cast<const uint8_t *>(mapAddress),
                  128);
      TensorMap map;
      std::string why;
      if (!decodeTensorMap(encoded, map, &why))
        return fail(kErrorLaunchFailed, "invalid tensor map", inst, w, lane,
                    why);
      if (int(map.rank) != inst.count)
        return fail(kErrorLaunchFailed, "invalid tensor copy", inst, w, lane,
                    "a " + std::to_string(inst.count) + "d copy with a rank-" +
                        std::to_string(map.rank) + " tensor map");
      uint64_t repeat =
          std::max<uint64_t>(128, swizzleRepeatBytes(map.swizzle));
      if (dst % repeat)
        return fail(
            kErrorMisalignedAddress, "misaligned address", inst, w, lane,
            "TMA destination at shared offset " + std::to_string(dst) +
                " is not aligned to " + std::to_string(repeat) + " bytes");
      auto it = mbarriers.find(uint32_t(barrier));
      if (it == mbarriers.end())
        return fail(kErrorLaunchFailed, "uninitialized mbarrier", inst, w, lane,
                    "the tensor copy completes on shared offset " +
                        std::to_string(barrier) +
                        ", which holds no initialized mbarrier");
      uint64_t boxBytes = map.elementBytes;
      for (uint32_t i = 0; i < map.rank; ++i)
        boxBytes *=
            (map.boxDim[i] + map.elementStride[i] - 1) / map.elementStride[i];
      if (!sharedBytesAt(dst, boxBytes))
        return fail(kErrorIllegalAddress, "out-of-bounds shared store", inst, w,
                    lane,
                    "TMA box of " + std::to_string(boxBytes) +
                        " bytes at shared offset " + std::to_string(dst) +
                        ", outside the CTA's " +
                        std::to_string(shared_.size()) + " bytes");
      std::vector<uint8_t> box(boxBytes);
      uint32_t written = 0;
      std::string readFailure;
      bool ok = tmaLoadTile(
          map, coords, box.data(),
          [&](uint64_t a, void *d, unsigned n) {
            if (!deviceMemory().contains(a, n)) {
              readFailure = deviceMemory().describe(a, n);
              return false;
            }
            std::memcpy(d, reinterpret_cast<const void *>(a), n);
            return true;
          },
          written, &why);
      if (!ok)
        return fail(kErrorIllegalAddress, "out-of-bounds TMA load", inst, w,
                    lane,
                    why + (readFailure.empty() ? "" : ": " + readFailure));
      Mbarrier &mb = it->second;
      std::string hazard =
          wgmmaOverwriteHazard(w, uint32_t(dst), uint32_t(boxBytes));
      if (!hazard.empty())
        return fail(kErrorLaunchFailed, "shared-memory hazard", inst, w, lane,
                    "TMA load " + hazard);
      checker_.tmaWrite(uint32_t(dst), uint32_t(boxBytes), uint32_t(barrier),
                        mb.phase);
      std::memcpy(shared_.data() + dst, box.data(), boxBytes);
      counters_.asyncCopyBytes += boxBytes;
      counters_.globalLoadBytes += boxBytes;
      mb.transactions -= written;
      noteProgress();
      if (mb.pending == 0 && mb.transactions == 0)
        completePhase(mb);
      break;
    }
    default:
      break;
    }
  }
  // A spin loop that made no headway lets the other warps run.
  if ((anyWaitFailed && !anyWaitSucceeded) || initialized)
    yield = true;
  return true;
}

} // namespace quilt::emu
