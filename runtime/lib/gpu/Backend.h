//===- Backend.h - The driver calls behind the mgpu* ABI --------*- C++ -*-===//
//
// Part of the Quilt project. One implementation of the mgpu* entry points,
// their caches and error handling (Runtime.cpp, MgpuAbi.cpp) sits on this
// small interface; CudaBackend.cpp and HipBackend.cpp implement it on the
// CUDA driver API and on HIP, and each shared library links exactly one.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_RUNTIME_GPU_BACKEND_H
#define QUILT_RUNTIME_GPU_BACKEND_H

#include "QuiltGpuRuntime.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace quilt::gpu {

/// The outcome of a backend call: success, or a QUILT_GPU_ERROR_* status
/// and what went wrong (naming the driver call and the driver's error).
struct Error {
  int32_t status = QUILT_GPU_SUCCESS;
  std::string message;

  bool failed() const { return status != QUILT_GPU_SUCCESS; }
  static Error success() { return {}; }
  static Error make(int32_t status, std::string message) {
    return {status, std::move(message)};
  }
};

/// A TMA descriptor request, decoded from the memref descriptor
/// (innermost dimension first, as the driver wants it).
struct TensorMapRequest {
  int64_t rank = 0;
  void *globalAddress = nullptr;
  uint64_t globalDim[5] = {};
  uint64_t globalStrides[4] = {}; ///< bytes, dims 1..rank-1
  uint32_t boxDim[5] = {};
  int64_t dtype = 0;
  int64_t interleave = 0, swizzle = 0, l2promo = 0, oob = 0;
};

/// The driver calls. Every method but name/vendor/open needs a successful
/// open() first; the Runtime guarantees it. Handles are the driver's.
class Backend {
public:
  virtual ~Backend() = default;

  /// "CUDA" or "HIP".
  virtual const char *name() const = 0;
  virtual int32_t vendor() const = 0;

  /// Opens the driver library (`library`, or the backend's default when
  /// empty), initializes it, opens device `ordinal`, binds it to the calling
  /// thread and fills `facts`. Called once per process.
  virtual Error open(const std::string &library, int ordinal,
                     quilt_gpu_facts &facts) = 0;
  /// Makes the opened device current on the calling thread.
  virtual Error bindThread() = 0;

  virtual Error loadModule(const void *image, void *&module) = 0;
  virtual Error loadModuleJit(const void *ptx, int optLevel, void *&module) = 0;
  virtual Error unloadModule(void *module) = 0;
  virtual Error getFunction(void *module, const char *name,
                            void *&function) = 0;
  /// Lets `function` use up to `bytes` of dynamic shared memory.
  virtual Error setMaxDynamicSharedMemory(void *function, int32_t bytes) = 0;
  virtual Error launch(void *function, const uint32_t grid[3],
                       const uint32_t block[3], uint32_t smem, void *stream,
                       void **params, void **extra) = 0;

  virtual Error streamCreate(void *&stream) = 0;
  virtual Error streamDestroy(void *stream) = 0;
  virtual Error streamSynchronize(void *stream) = 0;
  virtual Error streamWaitEvent(void *stream, void *event) = 0;
  virtual Error eventCreate(void *&event) = 0;
  virtual Error eventDestroy(void *event) = 0;
  virtual Error eventSynchronize(void *event) = 0;
  virtual Error eventRecord(void *event, void *stream) = 0;

  virtual Error memAlloc(uint64_t bytes, bool hostShared, void *&ptr) = 0;
  virtual Error memFree(void *ptr) = 0;
  virtual Error memcpyAsync(void *dst, const void *src, size_t bytes,
                            void *stream) = 0;
  virtual Error memset32Async(void *dst, uint32_t value, size_t count,
                              void *stream) = 0;
  virtual Error memset16Async(void *dst, uint16_t value, size_t count,
                              void *stream) = 0;
  virtual Error hostRegister(void *ptr, size_t bytes) = 0;
  virtual Error hostUnregister(void *ptr) = 0;

  /// Bytes of the driver's tensor map (0 without tensor maps). Encodes a
  /// tensor map on the host into `map` (that many bytes).
  virtual size_t tensorMapBytes() const = 0;
  virtual Error encodeTensorMap(const TensorMapRequest &request, void *map) = 0;
  /// Synchronous host-to-device copy (for tensor maps).
  virtual Error copyToDevice(void *dst, const void *src, size_t bytes) = 0;
};

/// The backend this library was built with (defined by CudaBackend.cpp or
/// HipBackend.cpp).
Backend &builtinBackend();

} // namespace quilt::gpu

#endif // QUILT_RUNTIME_GPU_BACKEND_H
