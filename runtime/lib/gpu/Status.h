//===- Status.h - Last and first failure of the GPU runtime -----*- C++ -*-===//
//
// Part of the Quilt project. Every mgpu* entry point starts with beginCall
// and reports a failure with recordFailure: the calling thread's last
// status and message, and the process's first failure (sticky until
// quilt_gpu_reset_status), which QuiltGpuRuntime.h exposes.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_RUNTIME_GPU_STATUS_H
#define QUILT_RUNTIME_GPU_STATUS_H

#include "Backend.h"

#define QUILT_GPU_EXPORT __attribute__((visibility("default")))

namespace quilt::gpu {

/// Starts a runtime call on this thread: its last status becomes success.
void beginCall();

/// Records that `call` (an entry point's name) failed with `error`, as
/// "<call>: <message>".
void recordFailure(const char *call, const Error &error);

/// How many failures this thread has recorded: state a failed call may
/// have left behind (the arrival counters) is reset when it changed.
uint64_t failuresOnThisThread();

} // namespace quilt::gpu

#endif // QUILT_RUNTIME_GPU_STATUS_H
