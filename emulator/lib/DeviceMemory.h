//===- DeviceMemory.h - The emulated device's global memory -----*- C++ -*-===//
//
// Part of the Quilt project.
//
// Device pointers are host pointers: cuMemAlloc returns host memory, so the
// host code of a compiled program (which copies with cuMemcpy and, for
// managed memory, reads device pointers directly) works unchanged. What
// makes it a device memory is the registry: every kernel access must fall
// inside a live allocation, a registered host range or a module variable,
// as compute-sanitizer's memcheck requires.
//
// Generic addresses place the state spaces the way the PTX ISA's generic
// addressing does (section 6.4.1.2): the shared and local windows are
// ranges no host pointer can take (x86-64 and AArch64 user addresses stay
// below 2^48), so `isspacep` and `cvta` are exact.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_DEVICEMEMORY_H
#define QUILT_EMULATOR_DEVICEMEMORY_H

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace quilt::emu {

/// Generic address of shared offset 0 and of local offset 0.
constexpr uint64_t kSharedWindow = 0x0001000000000000ull;
constexpr uint64_t kLocalWindow = 0x0002000000000000ull;
constexpr uint64_t kWindowSize = 0x0000000100000000ull;

inline bool inSharedWindow(uint64_t a) {
  return a >= kSharedWindow && a < kSharedWindow + kWindowSize;
}
inline bool inLocalWindow(uint64_t a) {
  return a >= kLocalWindow && a < kLocalWindow + kWindowSize;
}

class DeviceMemory {
public:
  enum class Kind { Device, Managed, HostRegistered, ModuleVariable };
  struct Range {
    uint64_t size = 0;
    Kind kind = Kind::Device;
  };

  /// Allocates `bytes` (256-byte aligned, as cuMemAlloc's are); 0 on
  /// exhaustion.
  uint64_t allocate(uint64_t bytes, Kind kind);
  /// Frees an allocation made by allocate(); false if `address` is not one.
  bool free(uint64_t address);
  void add(uint64_t address, uint64_t bytes, Kind kind);
  bool remove(uint64_t address);

  /// True when [address, address + bytes) lies in one live range.
  bool contains(uint64_t address, uint64_t bytes) const;
  /// For reports: "N bytes past the end of the 4096-byte allocation at 0x..."
  /// or "not in any allocation".
  std::string describe(uint64_t address, uint64_t bytes) const;

private:
  mutable std::mutex mutex_;
  std::map<uint64_t, Range> ranges_;
  mutable uint64_t lastBase_ = 0, lastEnd_ = 0;
};

DeviceMemory &deviceMemory();

} // namespace quilt::emu

#endif // QUILT_EMULATOR_DEVICEMEMORY_H
