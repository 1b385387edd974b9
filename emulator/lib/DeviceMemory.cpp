//===- DeviceMemory.cpp - The emulated device's global memory -------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "DeviceMemory.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace quilt::emu {

namespace {

uint64_t pageBytes() {
  static const uint64_t bytes = uint64_t(sysconf(_SC_PAGESIZE));
  return bytes;
}

/// Device allocations take whole pages, so that each can be closed to host
/// code on its own.
uint64_t mappedBytes(uint64_t bytes) {
  uint64_t page = pageBytes();
  return (bytes ? (bytes + page - 1) / page : 1) * page;
}

struct sigaction previousSegvAction;

/// A fault in a closed device allocation is host code dereferencing device
/// memory: say so, then fault again with the handler that was there before
/// (the default one kills the process, as the GPU program would die).
void reportHostAccess(int signal, siginfo_t *info, void *context) {
  uint64_t address = reinterpret_cast<uint64_t>(info->si_addr), base, size;
  if (deviceMemory().deviceAllocationAt(address, base, size)) {
    char message[256];
    int length = std::snprintf(
        message, sizeof(message),
        "quilt-emulator: host code accessed device memory at 0x%llx, in the "
        "%llu-byte device allocation at 0x%llx: a GPU program's host code "
        "cannot dereference device memory (copy it, or use managed "
        "memory)\n",
        (unsigned long long)address, (unsigned long long)size,
        (unsigned long long)base);
    if (length > 0)
      (void)!write(STDERR_FILENO, message, size_t(length));
  }
  sigaction(SIGSEGV, &previousSegvAction, nullptr);
  (void)signal;
  (void)context;
}

void installFaultReportOnce() {
  static bool installed = [] {
    struct sigaction action {};
    action.sa_sigaction = reportHostAccess;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &previousSegvAction);
    return true;
  }();
  (void)installed;
}

} // namespace

uint64_t DeviceMemory::allocate(uint64_t bytes, Kind kind) {
  if (kind == Kind::Device) {
    installFaultReportOnce();
    uint64_t mapped = mappedBytes(bytes);
    std::lock_guard<std::mutex> lock(mutex_);
    void *p = mmap(nullptr, mapped,
                   openCount_ ? PROT_READ | PROT_WRITE : PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return 0;
    ranges_[reinterpret_cast<uint64_t>(p)] = Range{bytes, kind};
    lastBase_ = lastEnd_ = 0;
    return reinterpret_cast<uint64_t>(p);
  }
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
  Range range;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = ranges_.find(address);
    if (it == ranges_.end() ||
        (it->second.kind != Kind::Device && it->second.kind != Kind::Managed))
      return false;
    range = it->second;
  }
  remove(address);
  if (range.kind == Kind::Device)
    munmap(reinterpret_cast<void *>(address), mappedBytes(range.size));
  else
    std::free(reinterpret_cast<void *>(address));
  return true;
}

void DeviceMemory::protectDeviceAllocations(bool open) const {
  for (const auto &[address, range] : ranges_)
    if (range.kind == Kind::Device)
      mprotect(reinterpret_cast<void *>(address), mappedBytes(range.size),
               open ? PROT_READ | PROT_WRITE : PROT_NONE);
}

void DeviceMemory::openForEmulator() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (openCount_++ == 0)
    protectDeviceAllocations(/*open=*/true);
}

void DeviceMemory::closeForEmulator() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (--openCount_ == 0)
    protectDeviceAllocations(/*open=*/false);
}

bool DeviceMemory::deviceAllocationAt(uint64_t address, uint64_t &base,
                                      uint64_t &size) const {
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock())
    return false;
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin())
    return false;
  --it;
  if (it->second.kind != Kind::Device ||
      address >= it->first + mappedBytes(it->second.size))
    return false;
  base = it->first;
  size = it->second.size;
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
