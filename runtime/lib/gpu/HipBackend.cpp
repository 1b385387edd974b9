//===- HipBackend.cpp - The mgpu* backend on HIP --------------------------===//
//
// Part of the Quilt project. hip_runtime_api.h supplies the types and
// prototypes only: libamdhip64 is opened at run time and every call goes
// through a pointer resolved by dlsym, so this builds without ROCm.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"
#include "DriverLibrary.h"

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
// The C++ template overloads (hipMalloc(T **), ...) would make the C
// functions' types ambiguous.
#define __HIP_DISABLE_CPP_FUNCTIONS__ 1
#include <hip/hip_runtime_api.h>
#include <hip/hip_version.h>

#include <cstring>
#include <memory>
#include <string>

namespace quilt::gpu {
namespace {

#define QUILT_HIP_FUNCTIONS(X)                                                 \
  X(hipInit)                                                                   \
  X(hipGetErrorName)                                                           \
  X(hipGetErrorString)                                                         \
  X(hipGetDeviceCount)                                                         \
  X(hipSetDevice)                                                              \
  X(hipGetDevice)                                                              \
  X(hipDeviceGetAttribute)                                                     \
  X(hipDeviceGetName)                                                          \
  X(hipDeviceTotalMem)                                                         \
  X(hipModuleLoadData)                                                         \
  X(hipModuleUnload)                                                           \
  X(hipModuleGetFunction)                                                      \
  X(hipModuleLaunchKernel)                                                     \
  X(hipStreamCreateWithFlags)                                                  \
  X(hipStreamDestroy)                                                          \
  X(hipStreamSynchronize)                                                      \
  X(hipStreamWaitEvent)                                                        \
  X(hipEventCreateWithFlags)                                                   \
  X(hipEventDestroy)                                                           \
  X(hipEventSynchronize)                                                       \
  X(hipEventRecord)                                                            \
  X(hipMalloc)                                                                 \
  X(hipMallocManaged)                                                          \
  X(hipFree)                                                                   \
  X(hipMemcpyAsync)                                                            \
  X(hipMemcpyHtoD)                                                             \
  X(hipMemsetD32Async)                                                         \
  X(hipMemsetD16Async)                                                         \
  X(hipHostRegister)                                                           \
  X(hipHostUnregister)

struct HipApi {
#define QUILT_HIP_MEMBER(fn) decltype(&::fn) fn = nullptr;
  QUILT_HIP_FUNCTIONS(QUILT_HIP_MEMBER)
#undef QUILT_HIP_MEMBER
  /// Only for the architecture name (gcnArchName); its struct layout is
  /// the headers' version's, so it is optional.
  decltype(&::hipGetDeviceProperties) hipGetDeviceProperties = nullptr;
};

#define QUILT_HIP_STRINGIFY_(x) #x
#define QUILT_HIP_STRINGIFY(x) QUILT_HIP_STRINGIFY_(x)
/// The soname of the HIP version whose headers this is built with first.
constexpr const char *kVersionedLibrary =
    "libamdhip64.so." QUILT_HIP_STRINGIFY(HIP_VERSION_MAJOR);

class HipBackend final : public Backend {
public:
  const char *name() const override { return "HIP"; }
  int32_t vendor() const override { return QUILT_GPU_VENDOR_AMD; }

  Error open(const std::string &library, int ordinal,
             quilt_gpu_facts &facts) override;
  Error bindThread() override;

  Error loadModule(const void *image, void *&module) override {
    return check(
        api_.hipModuleLoadData(reinterpret_cast<hipModule_t *>(&module), image),
        "hipModuleLoadData");
  }
  Error loadModuleJit(const void *, int, void *&) override {
    return Error::make(QUILT_GPU_ERROR_UNSUPPORTED,
                       "HIP cannot JIT-compile a module; build the gpu.module "
                       "with gpu-module-to-binary format=bin");
  }
  Error unloadModule(void *module) override {
    return check(api_.hipModuleUnload(static_cast<hipModule_t>(module)),
                 "hipModuleUnload");
  }
  Error getFunction(void *module, const char *name, void *&function) override {
    return check(
        api_.hipModuleGetFunction(reinterpret_cast<hipFunction_t *>(&function),
                                  static_cast<hipModule_t>(module), name),
        "hipModuleGetFunction", name);
  }
  Error setMaxDynamicSharedMemory(void *, int32_t) override {
    // LDS needs no opt-in: a block may use up to the per-block limit, which
    // the Runtime checks before launching.
    return Error::success();
  }
  Error launch(void *function, const uint32_t grid[3], const uint32_t block[3],
               uint32_t smem, void *stream, void **params,
               void **extra) override {
    return check(api_.hipModuleLaunchKernel(
                     static_cast<hipFunction_t>(function), grid[0], grid[1],
                     grid[2], block[0], block[1], block[2], smem,
                     static_cast<hipStream_t>(stream), params, extra),
                 "hipModuleLaunchKernel");
  }

  Error streamCreate(void *&stream) override {
    // Blocking, as on CUDA: launches wait for the caller's work on the
    // null stream.
    return check(
        api_.hipStreamCreateWithFlags(reinterpret_cast<hipStream_t *>(&stream),
                                      hipStreamDefault),
        "hipStreamCreateWithFlags");
  }
  Error streamDestroy(void *stream) override {
    return check(api_.hipStreamDestroy(static_cast<hipStream_t>(stream)),
                 "hipStreamDestroy");
  }
  Error streamSynchronize(void *stream) override {
    return check(api_.hipStreamSynchronize(static_cast<hipStream_t>(stream)),
                 "hipStreamSynchronize");
  }
  Error streamWaitEvent(void *stream, void *event) override {
    return check(api_.hipStreamWaitEvent(static_cast<hipStream_t>(stream),
                                         static_cast<hipEvent_t>(event), 0),
                 "hipStreamWaitEvent");
  }
  Error eventCreate(void *&event) override {
    return check(
        api_.hipEventCreateWithFlags(reinterpret_cast<hipEvent_t *>(&event),
                                     hipEventDisableTiming),
        "hipEventCreateWithFlags");
  }
  Error eventDestroy(void *event) override {
    return check(api_.hipEventDestroy(static_cast<hipEvent_t>(event)),
                 "hipEventDestroy");
  }
  Error eventSynchronize(void *event) override {
    return check(api_.hipEventSynchronize(static_cast<hipEvent_t>(event)),
                 "hipEventSynchronize");
  }
  Error eventRecord(void *event, void *stream) override {
    return check(api_.hipEventRecord(static_cast<hipEvent_t>(event),
                                     static_cast<hipStream_t>(stream)),
                 "hipEventRecord");
  }

  Error memAlloc(uint64_t bytes, bool hostShared, void *&ptr) override {
    return hostShared
               ? check(api_.hipMallocManaged(&ptr, bytes, hipMemAttachGlobal),
                       "hipMallocManaged", std::to_string(bytes) + " bytes")
               : check(api_.hipMalloc(&ptr, bytes), "hipMalloc",
                       std::to_string(bytes) + " bytes");
  }
  Error memFree(void *ptr) override {
    return check(api_.hipFree(ptr), "hipFree");
  }
  Error memcpyAsync(void *dst, const void *src, size_t bytes,
                    void *stream) override {
    return check(api_.hipMemcpyAsync(dst, src, bytes, hipMemcpyDefault,
                                     static_cast<hipStream_t>(stream)),
                 "hipMemcpyAsync");
  }
  Error memset32Async(void *dst, uint32_t value, size_t count,
                      void *stream) override {
    return check(api_.hipMemsetD32Async(static_cast<hipDeviceptr_t>(dst),
                                        int(value), count,
                                        static_cast<hipStream_t>(stream)),
                 "hipMemsetD32Async");
  }
  Error memset16Async(void *dst, uint16_t value, size_t count,
                      void *stream) override {
    return check(api_.hipMemsetD16Async(static_cast<hipDeviceptr_t>(dst), value,
                                        count,
                                        static_cast<hipStream_t>(stream)),
                 "hipMemsetD16Async");
  }
  Error hostRegister(void *ptr, size_t bytes) override {
    return check(api_.hipHostRegister(ptr, bytes, hipHostRegisterDefault),
                 "hipHostRegister");
  }
  Error hostUnregister(void *ptr) override {
    return check(api_.hipHostUnregister(ptr), "hipHostUnregister");
  }

  size_t tensorMapBytes() const override { return 0; }
  Error encodeTensorMap(const TensorMapRequest &, void *) override {
    return Error::make(QUILT_GPU_ERROR_UNSUPPORTED,
                       "tensor maps (TMA) are NVIDIA-only");
  }
  Error copyToDevice(void *dst, const void *src, size_t bytes) override {
    return check(api_.hipMemcpyHtoD(static_cast<hipDeviceptr_t>(dst),
                                    const_cast<void *>(src), bytes),
                 "hipMemcpyHtoD");
  }

private:
  Error check(hipError_t result, const char *call,
              const std::string &detail = "") const;
  Error queryFacts(quilt_gpu_facts &facts) const;

  DriverLibrary library_;
  HipApi api_;
  int ordinal_ = 0;
};

Error HipBackend::check(hipError_t result, const char *call,
                        const std::string &detail) const {
  if (result == hipSuccess)
    return Error::success();
  const char *name =
      api_.hipGetErrorName ? api_.hipGetErrorName(result) : nullptr;
  const char *description =
      api_.hipGetErrorString ? api_.hipGetErrorString(result) : nullptr;
  std::string message = std::string(call) + " failed";
  if (!detail.empty())
    message += " (" + detail + ")";
  message += ": ";
  message += name ? name : "HIP error " + std::to_string(int(result));
  // Older HIP returns the name again as the description.
  if (description && (!name || std::strcmp(name, description) != 0))
    message += std::string(": ") + description;
  int32_t status;
  switch (result) {
  case hipErrorNoDevice:
  case hipErrorInvalidDevice:
    status = QUILT_GPU_ERROR_NO_DEVICE;
    break;
  case hipErrorInsufficientDriver:
    status = QUILT_GPU_ERROR_NO_DRIVER;
    break;
  default:
    status = QUILT_GPU_ERROR_DRIVER;
  }
  return Error::make(status, std::move(message));
}

Error HipBackend::open(const std::string &library, int ordinal,
                       quilt_gpu_facts &facts) {
  Error error = library_.open("HIP library", library,
                              {kVersionedLibrary, "libamdhip64.so"});
  if (error.failed())
    return error;
  std::string missing;
#define QUILT_HIP_RESOLVE(fn)                                                  \
  library_.resolve(QUILT_GPU_SYMBOL_NAME(fn), api_.fn, missing);
  QUILT_HIP_FUNCTIONS(QUILT_HIP_RESOLVE)
#undef QUILT_HIP_RESOLVE
  if (!missing.empty())
    return library_.missingSymbols(missing);
  std::string optional;
  library_.resolve(QUILT_GPU_SYMBOL_NAME(hipGetDeviceProperties),
                   api_.hipGetDeviceProperties, optional);

  if ((error = check(api_.hipInit(0), "hipInit")).failed())
    return error;
  int count = 0;
  if ((error = check(api_.hipGetDeviceCount(&count), "hipGetDeviceCount"))
          .failed())
    return error;
  if (ordinal >= count)
    return Error::make(QUILT_GPU_ERROR_NO_DEVICE,
                       "device " + std::to_string(ordinal) +
                           " requested, but HIP found " +
                           std::to_string(count) + " device(s)");
  ordinal_ = ordinal;
  if ((error = bindThread()).failed())
    return error;
  return queryFacts(facts);
}

Error HipBackend::bindThread() {
  // HIP's current device is per thread.
  int current = -1;
  Error error = check(api_.hipGetDevice(&current), "hipGetDevice");
  if (error.failed() || current == ordinal_)
    return error;
  return check(api_.hipSetDevice(ordinal_), "hipSetDevice");
}

Error HipBackend::queryFacts(quilt_gpu_facts &facts) const {
  facts = quilt_gpu_facts{};
  Error error;
  auto attribute = [&](hipDeviceAttribute_t which, const char *what,
                       bool required = true) {
    int value = 0;
    if (!error.failed()) {
      Error result = check(api_.hipDeviceGetAttribute(&value, which, ordinal_),
                           "hipDeviceGetAttribute", what);
      if (result.failed() && required)
        error = std::move(result);
    }
    return int64_t(value);
  };
  facts.compute_units =
      attribute(hipDeviceAttributeMultiprocessorCount, "CU count");
  facts.warp_size = attribute(hipDeviceAttributeWarpSize, "wavefront size");
  facts.max_threads_per_block =
      attribute(hipDeviceAttributeMaxThreadsPerBlock, "max threads per block");
  facts.max_threads_per_cu = attribute(
      hipDeviceAttributeMaxThreadsPerMultiProcessor, "max threads per CU");
  facts.registers_per_block =
      attribute(hipDeviceAttributeMaxRegistersPerBlock, "registers per block");
  facts.registers_per_cu =
      attribute(hipDeviceAttributeMaxRegistersPerMultiprocessor,
                "registers per CU", /*required=*/false);
  facts.shared_mem_per_block =
      attribute(hipDeviceAttributeMaxSharedMemoryPerBlock, "LDS per block");
  facts.shared_mem_per_cu =
      attribute(hipDeviceAttributeMaxSharedMemoryPerMultiprocessor,
                "LDS per CU", /*required=*/false);
  facts.l2_bytes = attribute(hipDeviceAttributeL2CacheSize, "L2 size");
  facts.arch_major = int32_t(attribute(hipDeviceAttributeComputeCapabilityMajor,
                                       "compute capability"));
  facts.arch_minor = int32_t(attribute(hipDeviceAttributeComputeCapabilityMinor,
                                       "compute capability"));
  int64_t clockKHz = attribute(hipDeviceAttributeClockRate, "clock rate");
  int64_t memoryClockKHz =
      attribute(hipDeviceAttributeMemoryClockRate, "memory clock rate", false);
  int64_t busBits =
      attribute(hipDeviceAttributeMemoryBusWidth, "memory bus width", false);
  if (error.failed())
    return error;
  facts.clock_ghz = double(clockKHz) * 1e-6;
  facts.memory_bandwidth_gbs =
      2.0 * double(memoryClockKHz) * 1e3 * double(busBits) / 8.0 * 1e-9;
  // No opt-in on AMD: the per-block limit is the limit.
  facts.shared_mem_per_block_optin = facts.shared_mem_per_block;
  if (facts.shared_mem_per_cu < facts.shared_mem_per_block)
    facts.shared_mem_per_cu = facts.shared_mem_per_block;

  size_t total = 0;
  if ((error =
           check(api_.hipDeviceTotalMem(&total, ordinal_), "hipDeviceTotalMem"))
          .failed())
    return error;
  facts.total_memory_bytes = int64_t(total);
  if ((error = check(
           api_.hipDeviceGetName(facts.name, sizeof(facts.name), ordinal_),
           "hipDeviceGetName"))
          .failed())
    return error;
  if (api_.hipGetDeviceProperties) {
    // Room beyond the struct in case the library's is larger.
    auto storage =
        std::make_unique<unsigned char[]>(sizeof(hipDeviceProp_t) + 16384);
    auto *props = reinterpret_cast<hipDeviceProp_t *>(storage.get());
    if (api_.hipGetDeviceProperties(props, ordinal_) == hipSuccess) {
      // "gfx90a:sramecc+:xnack-" -> "gfx90a".
      size_t length = 0;
      while (length + 1 < sizeof(facts.arch) &&
             length < sizeof(props->gcnArchName) &&
             props->gcnArchName[length] && props->gcnArchName[length] != ':')
        ++length;
      std::memcpy(facts.arch, props->gcnArchName, length);
      facts.arch[length] = '\0';
    }
  }
  return Error::success();
}

} // namespace

Backend &builtinBackend() {
  static HipBackend *backend = new HipBackend();
  return *backend;
}

} // namespace quilt::gpu
