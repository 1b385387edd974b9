//===- DeviceMemory.cpp - The emulated device's global memory -------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "DeviceMemory.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace quilt::emu {

uint64_t DeviceMemory::allocate(uint64_t bytes, Kind kind) {
  // Round up so that vector accesses near the end of a buffer that the
  // program itself keeps in bounds never straddle into the allocator's
  // bookkeeping; the registered size stays the requested one.
  uint64_t rounded = (bytes + 255) / 256 * 256;
  void *p = std::aligned_alloc(256, rounded ? rounded : 256);
  if (!p)
    return 0;
  std::memset(p, 0, rounded ? rounded : 256);
  add(reinterpret_cast<uint64_t>(p), bytes, kind);
  return reinterpret_cast<uint64_t>(p);
}

bool DeviceMemory::free(uint64_t address) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = ranges_.find(address);
    if (it == ranges_.end() ||
        (it->second.kind != Kind::Device && it->second.kind != Kind::Managed))
      return false;
  }
  remove(address);
  std::free(reinterpret_cast<void *>(address));
  return true;
}

void DeviceMemory::add(uint64_t address, uint64_t bytes, Kind kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  ranges_[address] = Range{bytes, kind};
  lastBase_ = lastEnd_ = 0;
}

bool DeviceMemory::remove(uint64_t address) {
  std::lock_guard<std::mutex> lock(mutex_);
  lastBase_ = lastEnd_ = 0;
  return ranges_.erase(address) > 0;
}

bool DeviceMemory::contains(uint64_t address, uint64_t bytes) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (address >= lastBase_ && address + bytes <= lastEnd_ &&
      address + bytes >= address)
    return true;
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin())
    return false;
  --it;
  uint64_t end = it->first + it->second.size;
  if (address + bytes < address || address + bytes > end)
    return false;
  lastBase_ = it->first;
  lastEnd_ = end;
  return true;
}

std::string DeviceMemory::describe(uint64_t address, uint64_t bytes) const {
  std::lock_guard<std::mutex> lock(mutex_);
  char buffer[160];
  auto it = ranges_.upper_bound(address);
  if (it != ranges_.begin()) {
    auto before = std::prev(it);
    uint64_t end = before->first + before->second.size;
    if (address < end) {
      std::snprintf(buffer, sizeof(buffer),
                    "%llu bytes past the end of the %llu-byte allocation at "
                    "0x%llx",
                    (unsigned long long)(address + bytes - end),
                    (unsigned long long)before->second.size,
                    (unsigned long long)before->first);
      return buffer;
    }
    std::snprintf(buffer, sizeof(buffer),
                  "%llu bytes after the %llu-byte allocation at 0x%llx",
                  (unsigned long long)(address - end),
                  (unsigned long long)before->second.size,
                  (unsigned long long)before->first);
    return buffer;
  }
  return "not in any allocation";
}

DeviceMemory &deviceMemory() {
  static DeviceMemory *memory = new DeviceMemory();
  return *memory;
}

} // namespace quilt::emu
