//===- Status.cpp - Last and first failure of the GPU runtime -------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Status.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace quilt::gpu {
namespace {

/// Messages are kept in fixed buffers (long ones are cut): generated code
/// calls in from global destructors, after a thread_local std::string would
/// have been destroyed, and the pointer quilt_gpu_first_error returns must
/// stay valid while other threads fail.
constexpr size_t kMessageBytes = 2048;

thread_local int32_t lastStatus = QUILT_GPU_SUCCESS;
thread_local char lastMessage[kMessageBytes];
thread_local uint64_t failures = 0;

/// The first failure; only the first one writes it.
std::mutex firstMutex;
std::atomic<int32_t> firstStatus{QUILT_GPU_SUCCESS};
char firstMessage[kMessageBytes];

bool verbose() {
  static const bool enabled = [] {
    const char *value = std::getenv("QUILT_GPU_VERBOSE");
    return value && *value && std::strcmp(value, "0") != 0;
  }();
  return enabled;
}

} // namespace

void beginCall() {
  lastStatus = QUILT_GPU_SUCCESS;
  lastMessage[0] = '\0';
}

void recordFailure(const char *call, const Error &error) {
  lastStatus = error.status;
  ++failures;
  std::snprintf(lastMessage, kMessageBytes, "%s: %s", call,
                error.message.c_str());
  if (verbose())
    std::fprintf(stderr, "quilt-gpu: %s\n", lastMessage);
  if (firstStatus.load(std::memory_order_acquire) != QUILT_GPU_SUCCESS)
    return;
  std::lock_guard<std::mutex> lock(firstMutex);
  if (firstStatus.load(std::memory_order_relaxed) != QUILT_GPU_SUCCESS)
    return;
  std::memcpy(firstMessage, lastMessage, kMessageBytes);
  firstStatus.store(error.status, std::memory_order_release);
}

uint64_t failuresOnThisThread() { return failures; }

} // namespace quilt::gpu

using namespace quilt::gpu;

extern "C" QUILT_GPU_EXPORT int32_t quilt_gpu_last_status(void) {
  return lastStatus;
}

extern "C" QUILT_GPU_EXPORT const char *quilt_gpu_last_error(void) {
  return lastMessage;
}

extern "C" QUILT_GPU_EXPORT int32_t quilt_gpu_status(void) {
  return firstStatus.load(std::memory_order_acquire);
}

extern "C" QUILT_GPU_EXPORT const char *quilt_gpu_first_error(void) {
  return firstStatus.load(std::memory_order_acquire) != QUILT_GPU_SUCCESS
             ? firstMessage
             : "";
}

extern "C" QUILT_GPU_EXPORT void quilt_gpu_reset_status(void) {
  std::lock_guard<std::mutex> lock(firstMutex);
  firstStatus.store(QUILT_GPU_SUCCESS, std::memory_order_release);
  firstMessage[0] = '\0';
  beginCall();
}
