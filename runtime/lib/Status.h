//===- Status.h - The calling thread's last error and status ----*- C++ -*-===//
//
// Part of the Quilt project. Shared by the runtime's C entry points:
// QuiltRuntime.h exposes them as quilt_rt_last_error, quilt_rt_status and
// quilt_rt_clear_status.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_RUNTIME_STATUS_H
#define QUILT_RUNTIME_STATUS_H

#include <cstdint>
#include <string>

#define QUILT_RT_EXPORT __attribute__((visibility("default")))

namespace quilt::rt {

/// Records `message` as the calling thread's last error, unless its status
/// is set (that failure's message is kept until the status is cleared).
void setLastError(std::string message);

/// Records a failure that sets the thread's (sticky) status: the first one
/// since the status was last cleared keeps its status and message, later
/// ones are dropped.
void recordStatus(int32_t status, std::string message);

/// The message for a failed operand check of the dispatch `dispatch`
/// (quilt_rt_report_operand_error's arguments).
std::string formatOperandError(const char *dispatch, int32_t check,
                               int64_t got, int64_t expected);

} // namespace quilt::rt

#endif // QUILT_RUNTIME_STATUS_H
