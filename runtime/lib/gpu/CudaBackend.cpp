//===- CudaBackend.cpp - The mgpu* backend on the CUDA driver API ---------===//
//
// Part of the Quilt project. cuda.h supplies the types and prototypes only:
// libcuda.so.1 is opened at run time and every call goes through a pointer
// resolved by dlsym under the symbol the header maps the name to
// (cuMemAlloc -> cuMemAlloc_v2), so this builds without a driver.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"
#include "DriverLibrary.h"

#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace quilt::gpu {
namespace {

// The driver functions the backend calls. Each expands to a member of the
// header's type named (and looked up) by the header's versioned symbol.
#define QUILT_CUDA_FUNCTIONS(X)                                                \
  X(cuInit)                                                                    \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceTotalMem)                                                          \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxSetCurrent)                                                           \
  X(cuModuleLoadData)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventSynchronize)                                                        \
  X(cuEventRecord)                                                             \
  X(cuMemAlloc)                                                                \
  X(cuMemAllocManaged)                                                         \
  X(cuMemFree)                                                                 \
  X(cuMemcpyAsync)                                                             \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemsetD32Async)                                                          \
  X(cuMemsetD16Async)                                                          \
  X(cuMemHostRegister)                                                         \
  X(cuMemHostUnregister)

struct CudaApi {
#define QUILT_CUDA_MEMBER(fn) decltype(&::fn) fn = nullptr;
  QUILT_CUDA_FUNCTIONS(QUILT_CUDA_MEMBER)
#undef QUILT_CUDA_MEMBER
#if CUDA_VERSION >= 12000
  /// CUDA 12+ drivers only; its absence fails only tensor-map calls.
  decltype(&::cuTensorMapEncodeTiled) cuTensorMapEncodeTiled = nullptr;
#endif
};

class CudaBackend final : public Backend {
public:
  const char *name() const override { return "CUDA"; }
  int32_t vendor() const override { return QUILT_GPU_VENDOR_NVIDIA; }

  Error open(const std::string &library, int ordinal,
             quilt_gpu_facts &facts) override;
  Error bindThread() override;

  Error loadModule(const void *image, void *&module) override {
    return check(
        api_.cuModuleLoadData(reinterpret_cast<CUmodule *>(&module), image),
        "cuModuleLoadData");
  }
  Error loadModuleJit(const void *ptx, int optLevel, void *&module) override;
  Error unloadModule(void *module) override {
    return check(api_.cuModuleUnload(static_cast<CUmodule>(module)),
                 "cuModuleUnload");
  }
  Error getFunction(void *module, const char *name, void *&function) override {
    CUresult result =
        api_.cuModuleGetFunction(reinterpret_cast<CUfunction *>(&function),
                                 static_cast<CUmodule>(module), name);
    return check(result, "cuModuleGetFunction", name);
  }
  Error setMaxDynamicSharedMemory(void *function, int32_t bytes) override {
    return check(api_.cuFuncSetAttribute(
                     static_cast<CUfunction>(function),
                     CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
                 "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  }
  Error launch(void *function, const uint32_t grid[3], const uint32_t block[3],
               uint32_t smem, void *stream, void **params,
               void **extra) override {
    return check(
        api_.cuLaunchKernel(static_cast<CUfunction>(function), grid[0], grid[1],
                            grid[2], block[0], block[1], block[2], smem,
                            static_cast<CUstream>(stream), params, extra),
        "cuLaunchKernel");
  }

  Error streamCreate(void *&stream) override {
    // Blocking: a call's launches wait for the work its caller queued on
    // the legacy default stream (PyTorch's and CuPy's default), which may
    // still be writing the call's operands. On a non-blocking stream the
    // kernels raced with it (seen on an H100: every f32 candidate wrong in
    // 5 of 6 calls on operands PyTorch had just queued work on).
    return check(api_.cuStreamCreate(reinterpret_cast<CUstream *>(&stream),
                                     CU_STREAM_DEFAULT),
                 "cuStreamCreate");
  }
  Error streamDestroy(void *stream) override {
    return check(api_.cuStreamDestroy(static_cast<CUstream>(stream)),
                 "cuStreamDestroy");
  }
  Error streamSynchronize(void *stream) override {
    return check(api_.cuStreamSynchronize(static_cast<CUstream>(stream)),
                 "cuStreamSynchronize");
  }
  Error streamWaitEvent(void *stream, void *event) override {
    return check(api_.cuStreamWaitEvent(static_cast<CUstream>(stream),
                                        static_cast<CUevent>(event), 0),
                 "cuStreamWaitEvent");
  }
  Error eventCreate(void *&event) override {
    return check(api_.cuEventCreate(reinterpret_cast<CUevent *>(&event),
                                    CU_EVENT_DISABLE_TIMING),
                 "cuEventCreate");
  }
  Error eventDestroy(void *event) override {
    return check(api_.cuEventDestroy(static_cast<CUevent>(event)),
                 "cuEventDestroy");
  }
  Error eventSynchronize(void *event) override {
    return check(api_.cuEventSynchronize(static_cast<CUevent>(event)),
                 "cuEventSynchronize");
  }
  Error eventRecord(void *event, void *stream) override {
    return check(api_.cuEventRecord(static_cast<CUevent>(event),
                                    static_cast<CUstream>(stream)),
                 "cuEventRecord");
  }

  Error memAlloc(uint64_t bytes, bool hostShared, void *&ptr) override {
    CUdeviceptr device = 0;
    Error error =
        hostShared
            ? check(
                  api_.cuMemAllocManaged(&device, bytes, CU_MEM_ATTACH_GLOBAL),
                  "cuMemAllocManaged", std::to_string(bytes) + " bytes")
            : check(api_.cuMemAlloc(&device, bytes), "cuMemAlloc",
                    std::to_string(bytes) + " bytes");
    ptr = reinterpret_cast<void *>(device);
    return error;
  }
  Error memFree(void *ptr) override {
    return check(api_.cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)),
                 "cuMemFree");
  }
  Error memcpyAsync(void *dst, const void *src, size_t bytes,
                    void *stream) override {
    return check(api_.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                                    reinterpret_cast<CUdeviceptr>(src), bytes,
                                    static_cast<CUstream>(stream)),
                 "cuMemcpyAsync");
  }
  Error memset32Async(void *dst, uint32_t value, size_t count,
                      void *stream) override {
    return check(api_.cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst),
                                       value, count,
                                       static_cast<CUstream>(stream)),
                 "cuMemsetD32Async");
  }
  Error memset16Async(void *dst, uint16_t value, size_t count,
                      void *stream) override {
    return check(api_.cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst),
                                       value, count,
                                       static_cast<CUstream>(stream)),
                 "cuMemsetD16Async");
  }
  Error hostRegister(void *ptr, size_t bytes) override {
    return check(api_.cuMemHostRegister(ptr, bytes, 0), "cuMemHostRegister");
  }
  Error hostUnregister(void *ptr) override {
    return check(api_.cuMemHostUnregister(ptr), "cuMemHostUnregister");
  }

  size_t tensorMapBytes() const override;
  Error encodeTensorMap(const TensorMapRequest &request, void *map) override;
  Error copyToDevice(void *dst, const void *src, size_t bytes) override {
    return check(
        api_.cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(dst), src, bytes),
        "cuMemcpyHtoD");
  }

private:
  /// Success, or "<call> failed[ (<detail>)]: <NAME>: <description>".
  Error check(CUresult result, const char *call,
              const std::string &detail = "") const;
  Error queryFacts(CUdevice device, quilt_gpu_facts &facts) const;

  DriverLibrary library_;
  CudaApi api_;
  CUcontext context_ = nullptr;
};

Error CudaBackend::check(CUresult result, const char *call,
                         const std::string &detail) const {
  if (result == CUDA_SUCCESS)
    return Error::success();
  const char *name = nullptr, *description = nullptr;
  if (api_.cuGetErrorName)
    api_.cuGetErrorName(result, &name);
  if (api_.cuGetErrorString)
    api_.cuGetErrorString(result, &description);
  std::string message = std::string(call) + " failed";
  if (!detail.empty())
    message += " (" + detail + ")";
  message += ": ";
  if (name)
    message += name;
  else if (result == CUDA_ERROR_STUB_LIBRARY)
    // The stub cannot even name its own error.
    message += "CUDA_ERROR_STUB_LIBRARY: " + library_.path() +
               " is the toolkit's stub, not a driver";
  else
    message += "CUDA error " + std::to_string(int(result));
  if (description)
    message += std::string(": ") + description;
  int32_t status;
  switch (result) {
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_INVALID_DEVICE:
    status = QUILT_GPU_ERROR_NO_DEVICE;
    break;
  case CUDA_ERROR_STUB_LIBRARY:
  case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    status = QUILT_GPU_ERROR_NO_DRIVER;
    break;
  default:
    status = QUILT_GPU_ERROR_DRIVER;
  }
  return Error::make(status, std::move(message));
}

Error CudaBackend::open(const std::string &library, int ordinal,
                        quilt_gpu_facts &facts) {
  Error error = library_.open("CUDA driver library", library, {"libcuda.so.1"});
  if (error.failed())
    return error;
  std::string missing;
#define QUILT_CUDA_RESOLVE(fn)                                                 \
  library_.resolve(QUILT_GPU_SYMBOL_NAME(fn), api_.fn, missing);
  QUILT_CUDA_FUNCTIONS(QUILT_CUDA_RESOLVE)
#undef QUILT_CUDA_RESOLVE
  if (!missing.empty())
    return library_.missingSymbols(missing);
#if CUDA_VERSION >= 12000
  std::string optional;
  library_.resolve(QUILT_GPU_SYMBOL_NAME(cuTensorMapEncodeTiled),
                   api_.cuTensorMapEncodeTiled, optional);
#endif

  if ((error = check(api_.cuInit(0), "cuInit")).failed())
    return error;
  int count = 0;
  if ((error = check(api_.cuDeviceGetCount(&count), "cuDeviceGetCount"))
          .failed())
    return error;
  if (ordinal >= count)
    return Error::make(QUILT_GPU_ERROR_NO_DEVICE,
                       "device " + std::to_string(ordinal) +
                           " requested, but CUDA found " +
                           std::to_string(count) + " device(s)");
  CUdevice device;
  if ((error = check(api_.cuDeviceGet(&device, ordinal), "cuDeviceGet"))
          .failed())
    return error;
  // The primary context is the one the CUDA runtime API uses too, so
  // pointers and streams mix with code that uses it.
  if ((error = check(api_.cuDevicePrimaryCtxRetain(&context_, device),
                     "cuDevicePrimaryCtxRetain"))
          .failed())
    return error;
  if ((error = bindThread()).failed())
    return error;
  return queryFacts(device, facts);
}

Error CudaBackend::bindThread() {
  CUcontext current = nullptr;
  Error error = check(api_.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (error.failed() || current == context_)
    return error;
  return check(api_.cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

Error CudaBackend::queryFacts(CUdevice device, quilt_gpu_facts &facts) const {
  facts = quilt_gpu_facts{};
  Error error;
  auto attribute = [&](CUdevice_attribute which, const char *what) {
    int value = 0;
    if (!error.failed())
      error = check(api_.cuDeviceGetAttribute(&value, which, device),
                    "cuDeviceGetAttribute", what);
    return int64_t(value);
  };
  facts.compute_units =
      attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "SM count");
  facts.warp_size = attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE, "warp size");
  facts.max_threads_per_block = attribute(
      CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "max threads per block");
  facts.max_threads_per_cu = attribute(
      CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, "max threads per SM");
  facts.registers_per_block = attribute(
      CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, "registers per block");
  facts.registers_per_cu = attribute(
      CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, "registers per SM");
  facts.shared_mem_per_block =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
                "shared memory per block");
  facts.shared_mem_per_block_optin =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                "opt-in shared memory per block");
  facts.shared_mem_per_cu =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
                "shared memory per SM");
  facts.l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2 size");
  facts.arch_major = int32_t(attribute(
      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability"));
  facts.arch_minor = int32_t(attribute(
      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability"));
  int64_t clockKHz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "clock rate");
  int64_t memoryClockKHz =
      attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "memory clock rate");
  int64_t busBits = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH,
                              "memory bus width");
  if (error.failed())
    return error;
  facts.clock_ghz = double(clockKHz) * 1e-6;
  // Double data rate: two transfers per memory clock.
  facts.memory_bandwidth_gbs =
      2.0 * double(memoryClockKHz) * 1e3 * double(busBits) / 8.0 * 1e-9;
  if (facts.shared_mem_per_block_optin < facts.shared_mem_per_block)
    facts.shared_mem_per_block_optin = facts.shared_mem_per_block;
  std::snprintf(facts.arch, sizeof(facts.arch), "sm_%d%d", facts.arch_major,
                facts.arch_minor);
  size_t total = 0;
  if ((error = check(api_.cuDeviceTotalMem(&total, device), "cuDeviceTotalMem"))
          .failed())
    return error;
  facts.total_memory_bytes = int64_t(total);
  return check(api_.cuDeviceGetName(facts.name, sizeof(facts.name), device),
               "cuDeviceGetName");
}

Error CudaBackend::loadModuleJit(const void *ptx, int optLevel, void *&module) {
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(uintptr_t(sizeof(log))),
                    reinterpret_cast<void *>(uintptr_t(optLevel))};
  CUresult result = api_.cuModuleLoadDataEx(
      reinterpret_cast<CUmodule *>(&module), ptx, 3, options, values);
  log[sizeof(log) - 1] = '\0';
  return check(result, "cuModuleLoadDataEx (PTX JIT)",
               *log ? std::string("log: ") + log : std::string());
}

size_t CudaBackend::tensorMapBytes() const {
#if CUDA_VERSION >= 12000
  // quilt_gpu_tile_map's callers hold maps in buffers of this size.
  static_assert(sizeof(CUtensorMap) == QUILT_GPU_TENSOR_MAP_BYTES &&
                    alignof(CUtensorMap) <= QUILT_GPU_TENSOR_MAP_BYTES,
                "QuiltGpuRuntime.h's tensor map buffer holds the driver's");
  return sizeof(CUtensorMap);
#else
  return 0;
#endif
}

Error CudaBackend::encodeTensorMap(const TensorMapRequest &request, void *map) {
#if CUDA_VERSION >= 12000
  if (!api_.cuTensorMapEncodeTiled)
    return Error::make(QUILT_GPU_ERROR_UNSUPPORTED,
                       library_.path() +
                           " has no cuTensorMapEncodeTiled (CUDA 12+ driver)");
  cuuint32_t elementStrides[5] = {1, 1, 1, 1, 1};
  return check(api_.cuTensorMapEncodeTiled(
                   static_cast<CUtensorMap *>(map),
                   CUtensorMapDataType(request.dtype), cuuint32_t(request.rank),
                   request.globalAddress, request.globalDim,
                   request.globalStrides, request.boxDim, elementStrides,
                   CUtensorMapInterleave(request.interleave),
                   CUtensorMapSwizzle(request.swizzle),
                   CUtensorMapL2promotion(request.l2promo),
                   CUtensorMapFloatOOBfill(request.oob)),
               "cuTensorMapEncodeTiled");
#else
  return Error::make(QUILT_GPU_ERROR_UNSUPPORTED,
                     "tensor maps need CUDA 12 headers; this runtime was "
                     "built with older ones");
#endif
}

} // namespace

Backend &builtinBackend() {
  static CudaBackend *backend = new CudaBackend();
  return *backend;
}

} // namespace quilt::gpu
