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
// And, as on a GPU, host code cannot dereference device memory: cuMemAlloc
// and hipMalloc allocations are mapped inaccessible (PROT_NONE) except
// while the emulator itself runs a kernel or copies (DeviceAccess), so a
// compiled program whose host code loads or stores device memory faults
// here as it would on the GPU, with a report naming the allocation, instead
// of reading the right value. Managed allocations and registered host
// ranges stay accessible, as they are on a GPU.
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

/// Generic address of shared offset 0, of local offset 0 and of the
/// kernel's parameter offset 0 (`cvta.param`, for __grid_constant__
/// parameters: read-only).
constexpr uint64_t kSharedWindow = 0x0001000000000000ull;
constexpr uint64_t kLocalWindow = 0x0002000000000000ull;
constexpr uint64_t kParamWindow = 0x0003000000000000ull;
constexpr uint64_t kWindowSize = 0x0000000100000000ull;

inline bool inSharedWindow(uint64_t a) {
  return a >= kSharedWindow && a < kSharedWindow + kWindowSize;
}
inline bool inLocalWindow(uint64_t a) {
  return a >= kLocalWindow && a < kLocalWindow + kWindowSize;
}
inline bool inParamWindow(uint64_t a) {
  return a >= kParamWindow && a < kParamWindow + kWindowSize;
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

  /// Opens every device allocation to the emulator's own reads and writes
  /// until the matching closeForEmulator(). Calls are counted across
  /// threads and nesting: the allocations close when the last open one
  /// closes.
  void openForEmulator();
  void closeForEmulator();

  /// True when [address, address + bytes) lies in one live range.
  bool contains(uint64_t address, uint64_t bytes) const;
  /// For reports: "N bytes past the end of the 4096-byte allocation at 0x..."
  /// or "not in any allocation".
  std::string describe(uint64_t address, uint64_t bytes) const;

  /// For the fault handler: the device allocation holding `address`, if
  /// any, without waiting for the lock (false when it is held).
  bool deviceAllocationAt(uint64_t address, uint64_t &base,
                          uint64_t &size) const;

private:
  /// mprotects every device allocation readable and writable, or not at
  /// all; the caller holds the lock.
  void protectDeviceAllocations(bool open) const;

  mutable std::mutex mutex_;
  std::map<uint64_t, Range> ranges_;
  mutable uint64_t lastBase_ = 0, lastEnd_ = 0;
  int openCount_ = 0;
};

DeviceMemory &deviceMemory();

/// The emulator's own access to device memory for one API call (a launch,
/// a copy, a fill).
class DeviceAccess {
public:
  DeviceAccess() { deviceMemory().openForEmulator(); }
  ~DeviceAccess() { deviceMemory().closeForEmulator(); }
  DeviceAccess(const DeviceAccess &) = delete;
  DeviceAccess &operator=(const DeviceAccess &) = delete;
};

} // namespace quilt::emu

#endif // QUILT_EMULATOR_DEVICEMEMORY_H
