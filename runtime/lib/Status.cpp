//===- Status.cpp - The calling thread's last error and status ------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Status.h"

#include "QuiltRuntime.h"

namespace {

thread_local std::string lastError;
thread_local int32_t status = 0;

} // namespace

void quilt::rt::setLastError(std::string message) {
  // A failed operand check's message stays until the status is cleared.
  if (status != 0)
    return;
  lastError = std::move(message);
}

void quilt::rt::recordStatus(int32_t newStatus, std::string message) {
  if (status != 0)
    return;
  status = newStatus;
  lastError = std::move(message);
}

extern "C" QUILT_RT_EXPORT int32_t quilt_rt_status(void) { return status; }

extern "C" QUILT_RT_EXPORT void quilt_rt_clear_status(void) {
  status = 0;
  lastError.clear();
}

extern "C" QUILT_RT_EXPORT const char *quilt_rt_last_error(void) {
  return lastError.c_str();
}
