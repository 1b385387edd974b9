//===- SharedMemoryChecker.h - racecheck for one CTA's shared memory -*- C++
//-*-===//
//
// Part of the Quilt project.
//
// A shadow of every shared byte records its last writer and reader with the
// barrier epoch of the access (the number of bar.sync completions the CTA
// had passed), and whether an asynchronous copy owns it:
//
// - two threads of different warps touching the same byte in one epoch,
//   at least one of them writing, is a hazard (racecheck's RAW/WAR/WAW);
//   threads of one warp execute in lock step here and are ordered;
// - a byte a cp.async will write is pending until its thread's
//   cp.async.wait_group completes it: any access before is a hazard;
// - a byte a TMA load wrote is guarded by its mbarrier's phase: a thread
//   must have seen that phase complete (try_wait/test_wait) to read it.
//
// The executor calls it on every shared access (the observer pattern of
// gpuocelot's trace checkers); it only answers whether an access is legal.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_SHAREDMEMORYCHECKER_H
#define QUILT_EMULATOR_SHAREDMEMORYCHECKER_H

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace quilt::emu {

/// Warpgroups of a CTA: 1024 threads / 128.
constexpr uint32_t kMaxWarpgroups = 8;

/// wgmma.mma_async operations are numbered per warpgroup from 1 in issue
/// order. What a thread knows of them: per warpgroup of the CTA, the newest
/// one whose completion it has synchronized with, by its own warp's
/// wgmma.wait_group, or through a barrier or an mbarrier phase from a
/// thread that had (WgmmaHazards.cpp).
using WgmmaKnowledge = std::array<uint32_t, kMaxWarpgroups>;

class SharedMemoryChecker {
public:
  /// Forgets everything; `bytes` is the CTA's shared window.
  void reset(size_t bytes);
  void setEnabled(bool enabled) { enabled_ = enabled; }
  /// Threads t and u are in one warp (NVIDIA, 32) or wave (AMD, 32 or 64)
  /// when t / lanes == u / lanes; those execute in lock step and never race.
  /// `lanes` is a power of two (32 or 64).
  void setWarpSize(uint32_t lanes) { warpShift_ = __builtin_ctz(lanes); }
  bool enabled() const { return enabled_; }

  /// mbarrier shared offset -> phases the reading thread has seen complete.
  using ObservedPhases = std::map<uint32_t, uint32_t>;

  /// Empty when the access is legal, else what it conflicts with.
  /// `recordReader` false: check the read without remembering it as this
  /// thread's (a wgmma's operand reads belong to its whole warpgroup, and
  /// each warp's wgmma.wait_group completes them for that warp).
  std::string read(uint32_t thread, uint32_t offset, uint32_t bytes,
                   uint32_t epoch, const ObservedPhases &observed,
                   bool recordReader = true);
  std::string write(uint32_t thread, uint32_t offset, uint32_t bytes,
                    uint32_t epoch);

  /// A cp.async of `thread` will write [offset, offset + bytes).
  std::string beginCopy(uint32_t thread, uint32_t offset, uint32_t bytes,
                        uint32_t epoch);
  /// It did, at its wait_group.
  void completeCopy(uint32_t thread, uint32_t offset, uint32_t bytes,
                    uint32_t epoch);
  /// A TMA load wrote [offset, offset + bytes), visible to threads that
  /// see phase `phase` of mbarrier `barrier` complete.
  void tmaWrite(uint32_t offset, uint32_t bytes, uint32_t barrier,
                uint32_t phase);

  /// wgmma.mma_async number `wgmma` of warpgroup `warpgroup` read
  /// [offset, offset + bytes) (asynchronously, until its wait_group).
  void wgmmaRead(uint32_t warpgroup, uint32_t wgmma, uint32_t offset,
                 uint32_t bytes);
  /// Empty when a writer knowing `known` (per warpgroup, the newest wgmma
  /// it knows complete) may write [offset, offset + bytes), else what the
  /// write would race with.
  std::string wgmmaOverwrite(const WgmmaKnowledge &known, uint32_t offset,
                             uint32_t bytes) const;

private:
  static constexpr uint32_t kNone = 0xffffffffu;
  // A shift, not a division: this runs for every byte of every access.
  bool sameWarp(uint32_t a, uint32_t b) const {
    return (a >> warpShift_) == (b >> warpShift_);
  }
  bool enabled_ = true;
  uint32_t warpShift_ = 5;
  /// Whether a cp.async or TMA load has written since the reset: until
  /// one has, no byte is pending or guarded (AMD kernels never do), and
  /// accesses skip those checks.
  bool asyncWritesSeen_ = false;
  // Structure of arrays: the common case touches two of them.
  std::vector<uint32_t> writer_, writeEpoch_, reader_, readEpoch_;
  /// A reader of another warp than reader_'s in the same epoch: with both,
  /// every cross-warp reader conflicts with a later writer of either warp.
  std::vector<uint32_t> otherReader_, otherReadEpoch_;
  std::vector<uint32_t> pendingCopy_;               ///< thread, or kNone
  std::vector<uint32_t> guardBarrier_, guardPhase_; ///< kNone: unguarded
  /// Per warpgroup and byte, the newest of its wgmmas that read the byte
  /// (0: none). Sized at the warpgroup's first wgmma in a CTA: other
  /// kernels never pay for it.
  std::vector<uint32_t> wgmmaReader_[kMaxWarpgroups];
  bool wgmmaReadsSeen_ = false;
};

} // namespace quilt::emu

#endif // QUILT_EMULATOR_SHAREDMEMORYCHECKER_H
