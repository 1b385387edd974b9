//===- MgpuAbi.cpp - The mgpu* entry points of LLVM 22's gpu-to-llvm ------===//
//
// Part of the Quilt project. Each entry point checks its handles, makes
// sure the device is open and bound to the calling thread, runs through
// the Runtime (caches, checks) or straight to the backend, and records a
// failure instead of returning it: the generated code has nowhere to put
// a status. See QuiltGpuRuntime.h for the contract of each.
//
//===----------------------------------------------------------------------===//

#include "QuiltGpuRuntime.h"

#include "Runtime.h"
#include "Status.h"

#include <algorithm>

using namespace quilt::gpu;

namespace {

/// A null handle the caller passed. When an earlier call failed, the
/// message says which, since that is usually where the null came from.
Error nullHandle(const char *what) {
  std::string message = std::string("null ") + what;
  if (quilt_gpu_status() != QUILT_GPU_SUCCESS)
    message += std::string(" (after an earlier failure: ") +
               quilt_gpu_first_error() + ")";
  return Error::make(QUILT_GPU_ERROR_INVALID_ARGUMENT, std::move(message));
}

Error requireHandle(const void *handle, const char *what) {
  return handle ? Error::success() : nullHandle(what);
}

/// Runs entry point `name`: `precondition` (the handle checks), then the
/// device, then `body`. Records the first of them that fails.
template <typename Body>
void call(const char *name, Error precondition, Body &&body) {
  beginCall();
  Error error = std::move(precondition);
  if (!error.failed())
    error = Runtime::instance().ready();
  if (!error.failed())
    error = body(Runtime::instance());
  if (error.failed())
    recordFailure(name, error);
}

template <typename Body> void call(const char *name, Body &&body) {
  call(name, Error::success(), std::forward<Body>(body));
}

/// Runs entry point `name`, which releases `handle`. Releasing null does
/// nothing: the call that should have made the handle failed and said why.
template <typename Body>
void release(const char *name, const void *handle, Body &&body) {
  if (handle)
    call(name, std::forward<Body>(body));
  else
    beginCall();
}

} // namespace

//===----------------------------------------------------------------------===//
// Modules and launches
//===----------------------------------------------------------------------===//

extern "C" QUILT_GPU_EXPORT void *mgpuModuleLoad(void *blob, size_t size) {
  void *module = nullptr;
  call("mgpuModuleLoad", requireHandle(blob, "binary"), [&](Runtime &rt) {
    return rt.loadModule(blob, size, /*jitOptLevel=*/-1, module);
  });
  return module;
}

extern "C" QUILT_GPU_EXPORT void *mgpuModuleLoadJIT(void *ptx, int optLevel) {
  void *module = nullptr;
  call("mgpuModuleLoadJIT", requireHandle(ptx, "PTX"), [&](Runtime &rt) {
    return rt.loadModule(ptx, 0, std::clamp(optLevel, 0, 4), module);
  });
  return module;
}

extern "C" QUILT_GPU_EXPORT void mgpuModuleUnload(void *module) {
  release("mgpuModuleUnload", module,
          [&](Runtime &rt) { return rt.unloadModule(module); });
}

extern "C" QUILT_GPU_EXPORT void *mgpuModuleGetFunction(void *module,
                                                        const char *name) {
  void *function = nullptr;
  Error check = requireHandle(module, "module");
  if (!check.failed())
    check = requireHandle(name, "kernel name");
  call("mgpuModuleGetFunction", std::move(check),
       [&](Runtime &rt) { return rt.getFunction(module, name, function); });
  return function;
}

extern "C" QUILT_GPU_EXPORT void
mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                 intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                 int32_t smem, void *stream, void **params, void **extra,
                 size_t /*nParams*/) {
  call("mgpuLaunchKernel", requireHandle(function, "function"),
       [&](Runtime &rt) {
         const intptr_t grid[3] = {gridX, gridY, gridZ};
         const intptr_t block[3] = {blockX, blockY, blockZ};
         return rt.launch(function, grid, block, smem, stream, params, extra);
       });
}

extern "C" QUILT_GPU_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  // Before the device is open this only records the choice.
  beginCall();
  Error error = Runtime::instance().selectDevice(device);
  if (error.failed())
    recordFailure("mgpuSetDefaultDevice", error);
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

extern "C" QUILT_GPU_EXPORT void *mgpuStreamCreate(void) {
  void *stream = nullptr;
  call("mgpuStreamCreate",
       [&](Runtime &rt) { return rt.acquireStream(stream); });
  return stream;
}

extern "C" QUILT_GPU_EXPORT void mgpuStreamDestroy(void *stream) {
  release("mgpuStreamDestroy", stream,
          [&](Runtime &rt) { return rt.releaseStream(stream); });
}

extern "C" QUILT_GPU_EXPORT void mgpuStreamSynchronize(void *stream) {
  // A null stream is the default stream.
  call("mgpuStreamSynchronize",
       [&](Runtime &rt) { return rt.backend().streamSynchronize(stream); });
}

extern "C" QUILT_GPU_EXPORT void mgpuStreamWaitEvent(void *stream,
                                                     void *event) {
  call("mgpuStreamWaitEvent", requireHandle(event, "event"), [&](Runtime &rt) {
    return rt.backend().streamWaitEvent(stream, event);
  });
}

extern "C" QUILT_GPU_EXPORT void *mgpuEventCreate(void) {
  void *event = nullptr;
  call("mgpuEventCreate",
       [&](Runtime &rt) { return rt.backend().eventCreate(event); });
  return event;
}

extern "C" QUILT_GPU_EXPORT void mgpuEventDestroy(void *event) {
  release("mgpuEventDestroy", event,
          [&](Runtime &rt) { return rt.backend().eventDestroy(event); });
}

extern "C" QUILT_GPU_EXPORT void mgpuEventSynchronize(void *event) {
  call("mgpuEventSynchronize", requireHandle(event, "event"),
       [&](Runtime &rt) { return rt.backend().eventSynchronize(event); });
}

extern "C" QUILT_GPU_EXPORT void mgpuEventRecord(void *event, void *stream) {
  call("mgpuEventRecord", requireHandle(event, "event"),
       [&](Runtime &rt) { return rt.backend().eventRecord(event, stream); });
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

extern "C" QUILT_GPU_EXPORT void *
mgpuMemAlloc(uint64_t bytes, void * /*stream*/, bool hostShared) {
  void *ptr = nullptr;
  if (bytes == 0) {
    beginCall(); // An empty buffer: null, as upstream.
    return nullptr;
  }
  call("mgpuMemAlloc", [&](Runtime &rt) {
    return rt.backend().memAlloc(bytes, hostShared, ptr);
  });
  return ptr;
}

extern "C" QUILT_GPU_EXPORT void mgpuMemFree(void *ptr, void * /*stream*/) {
  release("mgpuMemFree", ptr,
          [&](Runtime &rt) { return rt.backend().memFree(ptr); });
}

extern "C" QUILT_GPU_EXPORT void mgpuMemcpy(void *dst, void *src, size_t bytes,
                                            void *stream) {
  if (bytes == 0) {
    beginCall();
    return;
  }
  Error check = requireHandle(dst, "destination");
  if (!check.failed())
    check = requireHandle(src, "source");
  call("mgpuMemcpy", std::move(check), [&](Runtime &rt) {
    return rt.backend().memcpyAsync(dst, src, bytes, stream);
  });
}

extern "C" QUILT_GPU_EXPORT void mgpuMemset32(void *dst, int32_t value,
                                              size_t count, void *stream) {
  if (count == 0) {
    beginCall();
    return;
  }
  call("mgpuMemset32", requireHandle(dst, "destination"), [&](Runtime &rt) {
    return rt.backend().memset32Async(dst, uint32_t(value), count, stream);
  });
}

extern "C" QUILT_GPU_EXPORT void mgpuMemset16(void *dst, int16_t value,
                                              size_t count, void *stream) {
  if (count == 0) {
    beginCall();
    return;
  }
  call("mgpuMemset16", requireHandle(dst, "destination"), [&](Runtime &rt) {
    return rt.backend().memset16Async(dst, uint16_t(value), count, stream);
  });
}

extern "C" QUILT_GPU_EXPORT void
mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                          int64_t elementSizeBytes) {
  call("mgpuMemHostRegisterMemRef", requireHandle(descriptor, "descriptor"),
       [&](Runtime &rt) {
         return rt.registerHostMemRef(rank, descriptor, elementSizeBytes,
                                      /*registering=*/true);
       });
}

extern "C" QUILT_GPU_EXPORT void
mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                            int64_t elementSizeBytes) {
  call("mgpuMemHostUnregisterMemRef", requireHandle(descriptor, "descriptor"),
       [&](Runtime &rt) {
         return rt.registerHostMemRef(rank, descriptor, elementSizeBytes,
                                      /*registering=*/false);
       });
}

extern "C" QUILT_GPU_EXPORT void *
mgpuTensorMapEncodeTiledMemref(int64_t rank, void *descriptor, int64_t dtype,
                               int64_t interleave, int64_t swizzle,
                               int64_t l2promo, int64_t oob, void *boxDims) {
  void *map = nullptr;
  Error check = requireHandle(descriptor, "descriptor");
  if (!check.failed())
    check = requireHandle(boxDims, "box sizes");
  call("mgpuTensorMapEncodeTiledMemref", std::move(check), [&](Runtime &rt) {
    return rt.encodeTensorMap(rank, descriptor, dtype, interleave, swizzle,
                              l2promo, oob,
                              static_cast<const int64_t *>(boxDims), map);
  });
  return map;
}

extern "C" QUILT_GPU_EXPORT int32_t
quilt_gpu_tile_map(void *map, const void *address, int64_t dtype, int64_t batch,
                   int64_t rows, int64_t cols, int64_t batch_stride,
                   int64_t row_stride, int64_t box_rows, int64_t box_cols) {
  TileMapRequest request;
  request.address = address;
  request.dtype = dtype;
  request.batch = batch, request.rows = rows, request.cols = cols;
  request.batchStride = batch_stride, request.rowStride = row_stride;
  request.boxRows = box_rows, request.boxCols = box_cols;
  bool encoded = false;
  // Not a failure: the caller falls back to a kernel without tensor maps.
  if (map && !request.describable()) {
    beginCall();
    return 0;
  }
  call("quilt_gpu_tile_map", requireHandle(map, "tensor map buffer"),
       [&](Runtime &rt) { return rt.encodeTileMap(request, map, encoded); });
  return encoded ? 1 : 0;
}

namespace {

/// A per-thread scratch buffer of at least `bytes` from `lend` (a Runtime
/// member), as runtime call `name`: null without an error for 0 bytes.
void *threadScratch(const char *name, uint64_t bytes,
                    Error (Runtime::*lend)(uint64_t, void *&)) {
  void *ptr = nullptr;
  if (bytes == 0) {
    beginCall();
    return nullptr;
  }
  call(name, [&](Runtime &rt) { return (rt.*lend)(bytes, ptr); });
  return ptr;
}

} // namespace

extern "C" QUILT_GPU_EXPORT void *quilt_gpu_workspace(uint64_t bytes) {
  return threadScratch("quilt_gpu_workspace", bytes, &Runtime::workspace);
}

namespace {

/// MLIR's C interface of runtime buffer `name` (`name(i64) ->
/// memref<?xT>`): `get(size)` for a size >= 0 (an invalid-argument status
/// naming `what` otherwise) into a descriptor of `size` elements, empty on
/// failure.
template <typename Descriptor, typename Get>
void bufferDescriptor(const char *name, const char *what, Descriptor *result,
                      int64_t size, Get get) {
  decltype(get(0)) ptr = nullptr;
  if (result && size >= 0) {
    ptr = get(uint64_t(size));
  } else {
    Error precondition = requireHandle(result, "result descriptor");
    if (!precondition.failed())
      precondition = Error::make(QUILT_GPU_ERROR_INVALID_ARGUMENT,
                                 std::string("negative ") + what + " " +
                                     std::to_string(size));
    call(name, std::move(precondition),
         [](Runtime &) { return Error::success(); });
  }
  if (result)
    *result = {ptr, ptr, 0, ptr ? size : 0, 1};
}

} // namespace

extern "C" QUILT_GPU_EXPORT void
_mlir_ciface_quilt_gpu_workspace(quilt_gpu_byte_memref *result, int64_t bytes) {
  bufferDescriptor("quilt_gpu_workspace", "workspace size", result, bytes,
                   quilt_gpu_workspace);
}

extern "C" QUILT_GPU_EXPORT void *quilt_gpu_operand_copies(uint64_t bytes) {
  return threadScratch("quilt_gpu_operand_copies", bytes,
                       &Runtime::operandCopies);
}

extern "C" QUILT_GPU_EXPORT void
_mlir_ciface_quilt_gpu_operand_copies(quilt_gpu_byte_memref *result,
                                      int64_t bytes) {
  bufferDescriptor("quilt_gpu_operand_copies", "operand copies size", result,
                   bytes, quilt_gpu_operand_copies);
}

extern "C" QUILT_GPU_EXPORT int32_t *
quilt_gpu_arrival_counters(uint64_t count) {
  int32_t *ptr = nullptr;
  if (count == 0) {
    beginCall();
    return nullptr;
  }
  call("quilt_gpu_arrival_counters",
       [&](Runtime &rt) { return rt.arrivalCounters(count, ptr); });
  return ptr;
}

extern "C" QUILT_GPU_EXPORT void
_mlir_ciface_quilt_gpu_arrival_counters(quilt_gpu_i32_memref *result,
                                        int64_t count) {
  bufferDescriptor("quilt_gpu_arrival_counters", "counter count", result, count,
                   quilt_gpu_arrival_counters);
}

//===----------------------------------------------------------------------===//
// Quilt's queries
//===----------------------------------------------------------------------===//

extern "C" QUILT_GPU_EXPORT int32_t
quilt_gpu_device_facts(quilt_gpu_facts *out) {
  call("quilt_gpu_device_facts", requireHandle(out, "output"),
       [&](Runtime &rt) {
         *out = rt.facts();
         return Error::success();
       });
  int32_t status = quilt_gpu_last_status();
  if (status != QUILT_GPU_SUCCESS && out)
    *out = quilt_gpu_facts{};
  return status;
}

extern "C" QUILT_GPU_EXPORT const char *quilt_gpu_backend(void) {
  return builtinBackend().name();
}
