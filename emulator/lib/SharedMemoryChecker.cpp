//===- SharedMemoryChecker.cpp - racecheck for one CTA's shared memory ----===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "SharedMemoryChecker.h"

#include <algorithm>
#include <string>

namespace quilt::emu {
namespace {

std::string thread(uint32_t t) { return "thread " + std::to_string(t); }

uint32_t seen(const SharedMemoryChecker::ObservedPhases &observed,
              uint32_t barrier) {
  auto it = observed.find(barrier);
  return it == observed.end() ? 0 : it->second;
}

} // namespace

void SharedMemoryChecker::reset(size_t bytes) {
  writer_.assign(bytes, kNone);
  writeEpoch_.assign(bytes, 0);
  reader_.assign(bytes, kNone);
  readEpoch_.assign(bytes, 0);
  otherReader_.assign(bytes, kNone);
  otherReadEpoch_.assign(bytes, 0);
  pendingCopy_.assign(bytes, kNone);
  guardBarrier_.assign(bytes, kNone);
  asyncWritesSeen_ = false;
  guardPhase_.assign(bytes, 0);
  wgmmaReadsSeen_ = false;
  for (std::vector<uint32_t> &readers : wgmmaReader_)
    readers.clear();
}

std::string SharedMemoryChecker::read(uint32_t t, uint32_t offset,
                                      uint32_t bytes, uint32_t epoch,
                                      const ObservedPhases &observed,
                                      bool recordReader) {
  if (!enabled_)
    return {};
  for (uint32_t i = offset; i < offset + bytes; ++i) {
    if (asyncWritesSeen_ && pendingCopy_[i] != kNone)
      return "reads byte " + std::to_string(i) + " that a cp.async of " +
             thread(pendingCopy_[i]) +
             " has not completed (no cp.async.wait_group since it was "
             "issued)";
    if (asyncWritesSeen_ && guardBarrier_[i] != kNone &&
        seen(observed, guardBarrier_[i]) <= guardPhase_[i])
      return "reads byte " + std::to_string(i) +
             " of a TMA load before waiting for phase " +
             std::to_string(guardPhase_[i]) + " of the mbarrier at " +
             std::to_string(guardBarrier_[i]);
    if (writer_[i] != kNone && writer_[i] != t && !sameWarp(writer_[i], t) &&
        writeEpoch_[i] == epoch)
      return "read-after-write hazard on byte " + std::to_string(i) + " with " +
             thread(writer_[i]) + " (no barrier between)";
    if (!recordReader)
      continue;
    if (reader_[i] == kNone || readEpoch_[i] != epoch || reader_[i] == t) {
      reader_[i] = t;
      readEpoch_[i] = epoch;
    } else if (!sameWarp(reader_[i], t)) {
      otherReader_[i] = t;
      otherReadEpoch_[i] = epoch;
    }
  }
  return {};
}

std::string SharedMemoryChecker::write(uint32_t t, uint32_t offset,
                                       uint32_t bytes, uint32_t epoch) {
  if (!enabled_)
    return {};
  for (uint32_t i = offset; i < offset + bytes; ++i) {
    if (asyncWritesSeen_ && pendingCopy_[i] != kNone)
      return "writes byte " + std::to_string(i) + " that a cp.async of " +
             thread(pendingCopy_[i]) + " has not completed";
    if (writer_[i] != kNone && writer_[i] != t && !sameWarp(writer_[i], t) &&
        writeEpoch_[i] == epoch)
      return "write-after-write hazard on byte " + std::to_string(i) +
             " with " + thread(writer_[i]) + " (no barrier between)";
    if (reader_[i] != kNone && reader_[i] != t && !sameWarp(reader_[i], t) &&
        readEpoch_[i] == epoch)
      return "write-after-read hazard on byte " + std::to_string(i) + " with " +
             thread(reader_[i]) + " (no barrier between)";
    if (otherReader_[i] != kNone && !sameWarp(otherReader_[i], t) &&
        otherReadEpoch_[i] == epoch)
      return "write-after-read hazard on byte " + std::to_string(i) + " with " +
             thread(otherReader_[i]) + " (no barrier between)";
    writer_[i] = t;
    writeEpoch_[i] = epoch;
    guardBarrier_[i] = kNone;
  }
  return {};
}

std::string SharedMemoryChecker::beginCopy(uint32_t t, uint32_t offset,
                                           uint32_t bytes, uint32_t epoch) {
  asyncWritesSeen_ = true;
  if (!enabled_)
    return {};
  for (uint32_t i = offset; i < offset + bytes; ++i) {
    if (pendingCopy_[i] != kNone && pendingCopy_[i] != t)
      return "cp.async to byte " + std::to_string(i) +
             " overlaps a pending cp.async of " + thread(pendingCopy_[i]);
    if (reader_[i] != kNone && reader_[i] != t && !sameWarp(reader_[i], t) &&
        readEpoch_[i] == epoch)
      return "cp.async overwrites byte " + std::to_string(i) + " that " +
             thread(reader_[i]) + " read with no barrier between";
    pendingCopy_[i] = t;
  }
  return {};
}

void SharedMemoryChecker::completeCopy(uint32_t t, uint32_t offset,
                                       uint32_t bytes, uint32_t epoch) {
  if (!enabled_)
    return;
  for (uint32_t i = offset; i < offset + bytes; ++i) {
    pendingCopy_[i] = kNone;
    writer_[i] = t;
    writeEpoch_[i] = epoch;
    guardBarrier_[i] = kNone;
  }
}

void SharedMemoryChecker::tmaWrite(uint32_t offset, uint32_t bytes,
                                   uint32_t barrier, uint32_t phase) {
  asyncWritesSeen_ = true;
  if (!enabled_)
    return;
  for (uint32_t i = offset; i < offset + bytes; ++i) {
    guardBarrier_[i] = barrier;
    guardPhase_[i] = phase;
    // The async proxy is no thread: its ordering is the mbarrier's.
    writer_[i] = kNone;
    reader_[i] = kNone;
  }
}

void SharedMemoryChecker::wgmmaRead(uint32_t warpgroup, uint32_t wgmma,
                                    uint32_t offset, uint32_t bytes) {
  if (!enabled_ || warpgroup >= std::size(wgmmaReader_))
    return;
  std::vector<uint32_t> &readers = wgmmaReader_[warpgroup];
  if (readers.empty())
    readers.assign(writer_.size(), 0);
  wgmmaReadsSeen_ = true;
  std::fill(readers.begin() + offset, readers.begin() + offset + bytes, wgmma);
}

std::string SharedMemoryChecker::wgmmaOverwrite(const WgmmaKnowledge &known,
                                                uint32_t offset,
                                                uint32_t bytes) const {
  if (!enabled_ || !wgmmaReadsSeen_)
    return {};
  for (uint32_t warpgroup = 0; warpgroup < std::size(wgmmaReader_);
       ++warpgroup) {
    const std::vector<uint32_t> &readers = wgmmaReader_[warpgroup];
    if (readers.empty())
      continue;
    for (uint32_t i = offset; i < offset + bytes; ++i) {
      uint32_t wgmma = readers[i];
      if (wgmma && known[warpgroup] < wgmma)
        return "overwrites byte " + std::to_string(i) +
               " that wgmma.mma_async " + std::to_string(wgmma) +
               " of warpgroup " + std::to_string(warpgroup) +
               " reads, and the writer has not synchronized with the "
               "wgmma.wait_group that completes it (the reading warps' "
               "mbarrier arrival after their wait, or a barrier)";
    }
  }
  return {};
}

} // namespace quilt::emu
