//===- DriverApi.cpp - The CUDA driver API in front of the emulator -------===//
//
// Part of the Quilt project.
//
// libquilt_cuda_emulator.so exports the driver functions that
// libquilt_cuda_runtime.so resolves, under the same versioned symbols and
// with the same signatures (cuda.h supplies both: including it maps
// cuMemAlloc to cuMemAlloc_v2 here as in the runtime), so that
// QUILT_GPU_DRIVER=<path>/libquilt_cuda_emulator.so runs a Quilt program
// unchanged. Work runs in order, synchronously: a launch has finished, or
// failed, when cuLaunchKernel returns.
//
// Errors are CUresults. cuGetErrorString of the last error of a thread
// returns the driver's description followed by what exactly went wrong,
// which is how the details reach the runtime's error message.
//
//===----------------------------------------------------------------------===//

#include "DeviceMemory.h"
#include "EmulatedDevice.h"
#include "EmulatorTarget.h"
#include "Executor.h"
#include "LaunchProfile.h"
#include "PtxParser.h"
#include "TensorMap.h"

#include "QuiltEmulator.h"

#include <cuda.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#define QUILT_EMULATOR_EXPORT extern "C" __attribute__((visibility("default")))

using namespace quilt::emu;

namespace {

struct EmulatedFunction;

std::mutex &apiMutex() {
  static std::mutex *m = new std::mutex();
  return *m;
}

struct EmulatedModule {
  std::unique_ptr<Module> ptx;
  std::map<std::string, std::unique_ptr<EmulatedFunction>> functions;
};

struct EmulatedFunction {
  EmulatedModule *module = nullptr;
  const Function *function = nullptr;
  int maxDynamicSharedBytes = 48 * 1024;
};

thread_local CUresult lastError = CUDA_SUCCESS;
thread_local std::string lastDetail;
thread_local std::string lastDescription;

CUresult failWith(CUresult code, std::string detail) {
  lastError = code;
  lastDetail = std::move(detail);
  return code;
}

/// Streams and events: work runs in order at once, so they only need to
/// be valid handles. A set of the live ones makes a second destroy an
/// error, as the driver's CUDA_ERROR_INVALID_HANDLE, instead of a double
/// free.
enum class HandleKind { Stream, Event };
struct Handle {
  HandleKind kind;
};
std::set<const Handle *> &liveHandles() {
  static std::set<const Handle *> *handles = new std::set<const Handle *>();
  return *handles;
}
template <typename T> T newHandle(HandleKind kind) {
  std::lock_guard<std::mutex> lock(apiMutex());
  Handle *h = new Handle{kind};
  liveHandles().insert(h);
  return reinterpret_cast<T>(h);
}
/// Null is the default stream (valid for streams, not for events).
CUresult checkHandle(const void *handle, HandleKind kind, const char *what) {
  if (!handle && kind == HandleKind::Stream)
    return CUDA_SUCCESS;
  std::lock_guard<std::mutex> lock(apiMutex());
  const Handle *h = static_cast<const Handle *>(handle);
  if (!liveHandles().count(h) || h->kind != kind)
    return failWith(CUDA_ERROR_INVALID_HANDLE,
                    std::string("not a live ") + what);
  return CUDA_SUCCESS;
}
CUresult destroyHandle(const void *handle, HandleKind kind, const char *what) {
  if (!handle)
    return failWith(CUDA_ERROR_INVALID_HANDLE, std::string("null ") + what);
  if (CUresult r = checkHandle(handle, kind, what))
    return r;
  std::lock_guard<std::mutex> lock(apiMutex());
  liveHandles().erase(static_cast<const Handle *>(handle));
  delete static_cast<const Handle *>(handle);
  return CUDA_SUCCESS;
}

bool initialized = false;
int contextToken = 0;

/// The one emulated device: a target of Quilt's database
/// (QUILT_CUDA_EMULATOR_TARGET or QUILT_EMULATOR_TARGET, default h100).
const EmulatedDevice &facts() {
  static EmulatedDevice f = [] {
    EmulatorTarget target = emulatorTarget("QUILT_CUDA_EMULATOR_TARGET", "h100");
    return emulatedDevice(target.name, target.variable);
  }();
  return f;
}

/// Every launch since the last quilt_emulator_reset_counters.
Counters totals;
uint64_t totalLaunches = 0;
double totalSeconds = 0;

/// Read at every launch (a getenv is nothing beside a launch), so that a
/// program may profile some launches only.
bool profiling() {
  const char *v = std::getenv("QUILT_EMULATOR_PROFILE");
  return v && *v && std::string(v) != "0";
}

CUresult requireInit() {
  if (!initialized)
    return failWith(CUDA_ERROR_NOT_INITIALIZED, "cuInit was not called");
  if (!facts().valid)
    return failWith(CUDA_ERROR_NO_DEVICE, facts().error);
  return CUDA_SUCCESS;
}

const char *errorName(CUresult r) {
  switch (r) {
  case CUDA_SUCCESS:
    return "CUDA_SUCCESS";
  case CUDA_ERROR_INVALID_VALUE:
    return "CUDA_ERROR_INVALID_VALUE";
  case CUDA_ERROR_OUT_OF_MEMORY:
    return "CUDA_ERROR_OUT_OF_MEMORY";
  case CUDA_ERROR_NOT_INITIALIZED:
    return "CUDA_ERROR_NOT_INITIALIZED";
  case CUDA_ERROR_NO_DEVICE:
    return "CUDA_ERROR_NO_DEVICE";
  case CUDA_ERROR_INVALID_DEVICE:
    return "CUDA_ERROR_INVALID_DEVICE";
  case CUDA_ERROR_INVALID_IMAGE:
    return "CUDA_ERROR_INVALID_IMAGE";
  case CUDA_ERROR_INVALID_CONTEXT:
    return "CUDA_ERROR_INVALID_CONTEXT";
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
    return "CUDA_ERROR_NO_BINARY_FOR_GPU";
  case CUDA_ERROR_INVALID_PTX:
    return "CUDA_ERROR_INVALID_PTX";
  case CUDA_ERROR_INVALID_HANDLE:
    return "CUDA_ERROR_INVALID_HANDLE";
  case CUDA_ERROR_NOT_FOUND:
    return "CUDA_ERROR_NOT_FOUND";
  case CUDA_ERROR_ILLEGAL_ADDRESS:
    return "CUDA_ERROR_ILLEGAL_ADDRESS";
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
  case CUDA_ERROR_MISALIGNED_ADDRESS:
    return "CUDA_ERROR_MISALIGNED_ADDRESS";
  case CUDA_ERROR_LAUNCH_FAILED:
    return "CUDA_ERROR_LAUNCH_FAILED";
  case CUDA_ERROR_NOT_SUPPORTED:
    return "CUDA_ERROR_NOT_SUPPORTED";
  case CUDA_ERROR_UNKNOWN:
    return "CUDA_ERROR_UNKNOWN";
  default:
    return nullptr;
  }
}

const char *errorDescription(CUresult r) {
  switch (r) {
  case CUDA_SUCCESS:
    return "no error";
  case CUDA_ERROR_INVALID_VALUE:
    return "invalid argument";
  case CUDA_ERROR_OUT_OF_MEMORY:
    return "out of memory";
  case CUDA_ERROR_NOT_INITIALIZED:
    return "initialization error";
  case CUDA_ERROR_NO_DEVICE:
    return "no CUDA-capable device is detected";
  case CUDA_ERROR_INVALID_DEVICE:
    return "invalid device ordinal";
  case CUDA_ERROR_INVALID_IMAGE:
    return "device kernel image is invalid";
  case CUDA_ERROR_INVALID_CONTEXT:
    return "invalid device context";
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
    return "no kernel image is available for execution on the device";
  case CUDA_ERROR_INVALID_PTX:
    return "a PTX JIT compilation failed";
  case CUDA_ERROR_INVALID_HANDLE:
    return "invalid resource handle";
  case CUDA_ERROR_NOT_FOUND:
    return "named symbol not found";
  case CUDA_ERROR_ILLEGAL_ADDRESS:
    return "an illegal memory access was encountered";
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    return "too many resources requested for launch";
  case CUDA_ERROR_MISALIGNED_ADDRESS:
    return "misaligned address";
  case CUDA_ERROR_LAUNCH_FAILED:
    return "unspecified launch failure";
  case CUDA_ERROR_NOT_SUPPORTED:
    return "operation not supported";
  default:
    return nullptr;
  }
}

/// Parses PTX text into a module; a cubin or fatbin gets a clear error.
CUresult loadImage(CUmodule *module, const void *image, std::string &log) {
  if (!module || !image)
    return failWith(CUDA_ERROR_INVALID_VALUE, "null module or image");
  if (CUresult r = requireInit())
    return r;
  const unsigned char *bytes = static_cast<const unsigned char *>(image);
  if (bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F')
    return failWith(CUDA_ERROR_INVALID_IMAGE,
                    "the image is a cubin; the Quilt PTX emulator executes "
                    "PTX: build the device code as PTX (quiltc "
                    "--device-format=isa, or format=isa in the pipeline)");
  uint32_t magic;
  std::memcpy(&magic, bytes, 4);
  if (magic == 0xBA55ED50u || magic == 0x466243B1u)
    return failWith(CUDA_ERROR_INVALID_IMAGE,
                    "the image is a fatbin; the Quilt PTX emulator executes "
                    "PTX text: build the device code as PTX (quiltc "
                    "--device-format=isa, or format=isa in the pipeline)");
  std::string error;
  std::unique_ptr<Module> ptx =
      parsePtx(static_cast<const char *>(image), error);
  if (!ptx) {
    log = error;
    return failWith(CUDA_ERROR_INVALID_PTX, error);
  }
  if (!ptx->target.empty() && !targetRuns(facts(), ptx->target)) {
    std::string why = "the PTX targets " + ptx->target + ", the emulated " +
                      facts().name + " is " + facts().chip;
    log = why;
    return failWith(CUDA_ERROR_NO_BINARY_FOR_GPU, why);
  }
  auto emulated = std::make_unique<EmulatedModule>();
  for (const auto &var : ptx->globals)
    if (var->space == Space::Global || var->space == Space::Const)
      deviceMemory().add(var->address, var->size ? var->size : 1,
                         DeviceMemory::Kind::ModuleVariable);
  emulated->ptx = std::move(ptx);
  *module = reinterpret_cast<CUmodule>(emulated.release());
  return CUDA_SUCCESS;
}

} // namespace

QUILT_EMULATOR_EXPORT CUresult cuInit(unsigned int flags) {
  if (flags != 0)
    return failWith(CUDA_ERROR_INVALID_VALUE, "cuInit flags must be 0");
  initialized = true;
  if (!facts().valid)
    return failWith(CUDA_ERROR_NO_DEVICE, facts().error);
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuDriverGetVersion(int *version) {
  if (!version)
    return failWith(CUDA_ERROR_INVALID_VALUE, "null version");
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuGetErrorName(CUresult error,
                                              const char **name) {
  if (!name)
    return CUDA_ERROR_INVALID_VALUE;
  *name = errorName(error);
  return *name ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

QUILT_EMULATOR_EXPORT CUresult cuGetErrorString(CUresult error,
                                                const char **text) {
  if (!text)
    return CUDA_ERROR_INVALID_VALUE;
  const char *base = errorDescription(error);
  if (!base) {
    *text = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
  lastDescription = base;
  if (error == lastError && !lastDetail.empty())
    lastDescription += " (Quilt PTX emulator: " + lastDetail + ")";
  *text = lastDescription.c_str();
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuDeviceGetCount(int *count) {
  if (!count)
    return failWith(CUDA_ERROR_INVALID_VALUE, "null count");
  if (CUresult r = requireInit())
    return r;
  *count = 1;
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (!device)
    return failWith(CUDA_ERROR_INVALID_VALUE, "null device");
  if (CUresult r = requireInit())
    return r;
  if (ordinal != 0)
    return failWith(CUDA_ERROR_INVALID_DEVICE,
                    "the emulator has one device, 0");
  *device = 0;
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuDeviceGetName(char *name, int length,
                                               CUdevice device) {
  if (!name || length <= 0)
    return failWith(CUDA_ERROR_INVALID_VALUE, "null name");
  if (device != 0)
    return failWith(CUDA_ERROR_INVALID_DEVICE,
                    "device " + std::to_string(device));
  std::snprintf(name, size_t(length), "Quilt PTX emulator (%s)",
                facts().name.c_str());
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuDeviceGetAttribute(int *value,
                                                    CUdevice_attribute which,
                                                    CUdevice device) {
  if (!value)
    return failWith(CUDA_ERROR_INVALID_VALUE, "null value");
  if (device != 0)
    return failWith(CUDA_ERROR_INVALID_DEVICE,
                    "device " + std::to_string(device));
  if (!deviceAttribute(facts(), int(which), *value))
    return failWith(CUDA_ERROR_INVALID_VALUE, "device attribute " +
                                                  std::to_string(int(which)) +
                                                  " is not emulated");
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuDeviceTotalMem(size_t *bytes,
                                                CUdevice device) {
  if (!bytes)
    return failWith(CUDA_ERROR_INVALID_VALUE, "null bytes");
  if (device != 0)
    return failWith(CUDA_ERROR_INVALID_DEVICE,
                    "device " + std::to_string(device));
  *bytes = size_t(facts().totalMemoryBytes);
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *context,
                                                        CUdevice device) {
  if (!context)
    return failWith(CUDA_ERROR_INVALID_VALUE, "null context");
  if (CUresult r = requireInit())
    return r;
  if (device != 0)
    return failWith(CUDA_ERROR_INVALID_DEVICE,
                    "device " + std::to_string(device));
  *context = reinterpret_cast<CUcontext>(&contextToken);
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuCtxGetCurrent(CUcontext *context) {
  if (!context)
    return failWith(CUDA_ERROR_INVALID_VALUE, "null context");
  *context = initialized ? reinterpret_cast<CUcontext>(&contextToken) : nullptr;
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuCtxSetCurrent(CUcontext context) {
  if (context && context != reinterpret_cast<CUcontext>(&contextToken))
    return failWith(CUDA_ERROR_INVALID_CONTEXT, "not the emulator's context");
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuCtxSynchronize() { return CUDA_SUCCESS; }

QUILT_EMULATOR_EXPORT CUresult cuModuleLoadData(CUmodule *module,
                                                const void *image) {
  std::lock_guard<std::mutex> lock(apiMutex());
  std::string log;
  return loadImage(module, image, log);
}

QUILT_EMULATOR_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module,
                                                  const void *image,
                                                  unsigned int numOptions,
                                                  CUjit_option *options,
                                                  void **values) {
  std::lock_guard<std::mutex> lock(apiMutex());
  std::string log;
  CUresult result = loadImage(module, image, log);
  // The JIT options that matter here: where to write the error log.
  char *errorLog = nullptr;
  size_t errorLogBytes = 0;
  for (unsigned i = 0; options && values && i < numOptions; ++i) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
      errorLog = static_cast<char *>(values[i]);
    else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      errorLogBytes = size_t(reinterpret_cast<uintptr_t>(values[i]));
  }
  if (errorLog && errorLogBytes) {
    std::snprintf(errorLog, errorLogBytes, "%s", log.c_str());
  }
  return result;
}

QUILT_EMULATOR_EXPORT CUresult cuModuleUnload(CUmodule module) {
  std::lock_guard<std::mutex> lock(apiMutex());
  auto *emulated = reinterpret_cast<EmulatedModule *>(module);
  if (!emulated)
    return failWith(CUDA_ERROR_INVALID_HANDLE, "null module");
  for (const auto &var : emulated->ptx->globals)
    if (var->space == Space::Global || var->space == Space::Const)
      deviceMemory().remove(var->address);
  delete emulated;
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuModuleGetFunction(CUfunction *function,
                                                   CUmodule module,
                                                   const char *name) {
  std::lock_guard<std::mutex> lock(apiMutex());
  auto *emulated = reinterpret_cast<EmulatedModule *>(module);
  if (!function || !emulated || !name)
    return failWith(CUDA_ERROR_INVALID_VALUE, "null argument");
  auto it = emulated->ptx->functions.find(name);
  if (it == emulated->ptx->functions.end() || !it->second.isEntry)
    return failWith(CUDA_ERROR_NOT_FOUND,
                    std::string("no kernel named ") + name + " in the module");
  std::unique_ptr<EmulatedFunction> &slot = emulated->functions[name];
  if (!slot) {
    slot = std::make_unique<EmulatedFunction>();
    slot->module = emulated;
    slot->function = &it->second;
  }
  *function = reinterpret_cast<CUfunction>(slot.get());
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuFuncSetAttribute(CUfunction function,
                                                  CUfunction_attribute which,
                                                  int value) {
  auto *f = reinterpret_cast<EmulatedFunction *>(function);
  if (!f)
    return failWith(CUDA_ERROR_INVALID_HANDLE, "null function");
  if (which == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    int64_t limit = facts().sharedMemPerBlockOptin -
                    int64_t(f->function->staticSharedBytes);
    if (value < 0 || value > limit)
      return failWith(CUDA_ERROR_INVALID_VALUE,
                      "dynamic shared memory " + std::to_string(value) +
                          " bytes: the device allows " + std::to_string(limit) +
                          " beside the kernel's " +
                          std::to_string(f->function->staticSharedBytes) +
                          " static bytes");
    f->maxDynamicSharedBytes = value;
    return CUDA_SUCCESS;
  }
  if (which == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)
    return CUDA_SUCCESS;
  return failWith(CUDA_ERROR_NOT_SUPPORTED, "function attribute " +
                                                std::to_string(int(which)) +
                                                " is not emulated");
}

QUILT_EMULATOR_EXPORT CUresult cuLaunchKernel(CUfunction function, unsigned gx,
                                              unsigned gy, unsigned gz,
                                              unsigned bx, unsigned by,
                                              unsigned bz, unsigned sharedBytes,
                                              CUstream stream, void **params,
                                              void **extra) {
  (void)stream;
  std::lock_guard<std::mutex> lock(apiMutex());
  DeviceAccess access;
  auto *f = reinterpret_cast<EmulatedFunction *>(function);
  if (!f)
    return failWith(CUDA_ERROR_INVALID_HANDLE, "null function");
  const Function &kernel = *f->function;
  uint64_t threads = uint64_t(bx) * by * bz;
  if (!gx || !gy || !gz || !bx || !by || !bz)
    return failWith(CUDA_ERROR_INVALID_VALUE, "a grid or block dimension is 0");
  if (threads > uint64_t(facts().maxThreadsPerBlock) || bz > 64 || gy > 65535 ||
      gz > 65535)
    return failWith(CUDA_ERROR_INVALID_VALUE, "block (" + std::to_string(bx) +
                                                  "," + std::to_string(by) +
                                                  "," + std::to_string(bz) +
                                                  ") or grid exceeds the "
                                                  "device's limits");
  if (kernel.maxThreads[0]) {
    uint64_t limit = uint64_t(kernel.maxThreads[0]) *
                     std::max(1u, kernel.maxThreads[1]) *
                     std::max(1u, kernel.maxThreads[2]);
    if (threads > limit)
      return failWith(CUDA_ERROR_INVALID_VALUE,
                      std::to_string(threads) + " threads per block, but " +
                          kernel.name + " declares .maxntid " +
                          std::to_string(limit));
  }
  if (int64_t(sharedBytes) > f->maxDynamicSharedBytes)
    return failWith(CUDA_ERROR_INVALID_VALUE,
                    std::to_string(sharedBytes) +
                        " bytes of dynamic shared memory, above the " +
                        std::to_string(f->maxDynamicSharedBytes) +
                        " the function allows "
                        "(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  LaunchConfig config;
  config.grid[0] = gx;
  config.grid[1] = gy;
  config.grid[2] = gz;
  config.block[0] = bx;
  config.block[1] = by;
  config.block[2] = bz;
  config.dynamicSharedBytes = sharedBytes;
  config.smCount = uint32_t(facts().smCount);
  config.params.assign(kernel.paramBytes, 0);
  if (params) {
    for (size_t i = 0; i < kernel.params.size(); ++i) {
      if (!params[i])
        return failWith(CUDA_ERROR_INVALID_VALUE,
                        "kernel parameter " + std::to_string(i) + " is null");
      std::memcpy(config.params.data() + kernel.params[i].offset, params[i],
                  kernel.params[i].size);
    }
  } else if (extra) {
    void *buffer = nullptr;
    size_t bytes = 0;
    for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
        buffer = extra[i + 1];
      else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
        bytes = *static_cast<size_t *>(extra[i + 1]);
    }
    if (!buffer || bytes < kernel.paramBytes)
      return failWith(CUDA_ERROR_INVALID_VALUE,
                      "the extra parameter buffer is missing or too small");
    std::memcpy(config.params.data(), buffer, kernel.paramBytes);
  } else if (!kernel.params.empty()) {
    return failWith(CUDA_ERROR_INVALID_VALUE,
                    kernel.name + " takes parameters; none were given");
  }

  Counters counters;
  LaunchFailure failure;
  auto start = std::chrono::steady_clock::now();
  bool ok = runKernel(kernel, config, counters, failure);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  totals.add(counters);
  ++totalLaunches;
  totalSeconds += seconds;
  if (profiling())
    printLaunchProfile(stderr, kernel.name, config, counters, seconds);
  if (!ok) {
    std::fprintf(stderr, "quilt-emulator: %s\n", failure.report.c_str());
    return failWith(CUresult(failure.error), failure.report);
  }
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned int) {
  if (!stream)
    return failWith(CUDA_ERROR_INVALID_VALUE, "null stream");
  *stream = newHandle<CUstream>(HandleKind::Stream);
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuStreamDestroy(CUstream stream) {
  return destroyHandle(stream, HandleKind::Stream, "stream");
}

QUILT_EMULATOR_EXPORT CUresult cuStreamSynchronize(CUstream stream) {
  return checkHandle(stream, HandleKind::Stream, "stream");
}

QUILT_EMULATOR_EXPORT CUresult cuStreamWaitEvent(CUstream stream, CUevent event,
                                                 unsigned int) {
  if (CUresult r = checkHandle(stream, HandleKind::Stream, "stream"))
    return r;
  return checkHandle(event, HandleKind::Event, "event");
}

QUILT_EMULATOR_EXPORT CUresult cuEventCreate(CUevent *event, unsigned int) {
  if (!event)
    return failWith(CUDA_ERROR_INVALID_VALUE, "null event");
  *event = newHandle<CUevent>(HandleKind::Event);
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuEventDestroy(CUevent event) {
  return destroyHandle(event, HandleKind::Event, "event");
}

QUILT_EMULATOR_EXPORT CUresult cuEventSynchronize(CUevent event) {
  return checkHandle(event, HandleKind::Event, "event");
}

QUILT_EMULATOR_EXPORT CUresult cuEventRecord(CUevent event, CUstream stream) {
  if (CUresult r = checkHandle(stream, HandleKind::Stream, "stream"))
    return r;
  return checkHandle(event, HandleKind::Event, "event");
}

QUILT_EMULATOR_EXPORT CUresult cuMemAlloc(CUdeviceptr *ptr, size_t bytes) {
  if (!ptr)
    return failWith(CUDA_ERROR_INVALID_VALUE, "null pointer");
  if (CUresult r = requireInit())
    return r;
  if (bytes == 0)
    return failWith(CUDA_ERROR_INVALID_VALUE, "cuMemAlloc of 0 bytes");
  uint64_t p = deviceMemory().allocate(bytes, DeviceMemory::Kind::Device);
  if (!p)
    return failWith(CUDA_ERROR_OUT_OF_MEMORY, std::to_string(bytes) + " bytes");
  *ptr = CUdeviceptr(p);
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *ptr, size_t bytes,
                                                 unsigned int) {
  if (!ptr)
    return failWith(CUDA_ERROR_INVALID_VALUE, "null pointer");
  if (CUresult r = requireInit())
    return r;
  if (bytes == 0)
    return failWith(CUDA_ERROR_INVALID_VALUE, "cuMemAllocManaged of 0 bytes");
  uint64_t p = deviceMemory().allocate(bytes, DeviceMemory::Kind::Managed);
  if (!p)
    return failWith(CUDA_ERROR_OUT_OF_MEMORY, std::to_string(bytes) + " bytes");
  *ptr = CUdeviceptr(p);
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuMemFree(CUdeviceptr ptr) {
  if (!ptr)
    return CUDA_SUCCESS;
  if (!deviceMemory().free(uint64_t(ptr)))
    return failWith(CUDA_ERROR_INVALID_VALUE,
                    "cuMemFree of a pointer cuMemAlloc did not return");
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src,
                                             size_t bytes, CUstream) {
  DeviceAccess access;
  if (bytes && (!dst || !src))
    return failWith(CUDA_ERROR_INVALID_VALUE, "null copy address");
  std::memmove(reinterpret_cast<void *>(dst),
               reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src,
                                            size_t bytes) {
  DeviceAccess access;
  if (bytes && !deviceMemory().contains(uint64_t(dst), bytes))
    return failWith(CUDA_ERROR_INVALID_VALUE,
                    "cuMemcpyHtoD destination is not device memory");
  std::memmove(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src,
                                            size_t bytes) {
  DeviceAccess access;
  if (bytes && !deviceMemory().contains(uint64_t(src), bytes))
    return failWith(CUDA_ERROR_INVALID_VALUE,
                    "cuMemcpyDtoH source is not device memory");
  std::memmove(dst, reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst,
                                                unsigned int value,
                                                size_t count, CUstream) {
  DeviceAccess access;
  if (count && !deviceMemory().contains(uint64_t(dst), count * 4))
    return failWith(CUDA_ERROR_INVALID_VALUE,
                    "cuMemsetD32 outside device memory");
  uint32_t *p = reinterpret_cast<uint32_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    p[i] = value;
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuMemsetD16Async(CUdeviceptr dst,
                                                unsigned short value,
                                                size_t count, CUstream) {
  DeviceAccess access;
  if (count && !deviceMemory().contains(uint64_t(dst), count * 2))
    return failWith(CUDA_ERROR_INVALID_VALUE,
                    "cuMemsetD16 outside device memory");
  uint16_t *p = reinterpret_cast<uint16_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    p[i] = value;
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuMemHostRegister(void *ptr, size_t bytes,
                                                 unsigned int) {
  if (!ptr || !bytes)
    return failWith(CUDA_ERROR_INVALID_VALUE, "null or empty host range");
  deviceMemory().add(reinterpret_cast<uint64_t>(ptr), bytes,
                     DeviceMemory::Kind::HostRegistered);
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuMemHostUnregister(void *ptr) {
  if (!deviceMemory().remove(reinterpret_cast<uint64_t>(ptr)))
    return failWith(CUDA_ERROR_INVALID_VALUE,
                    "the host range was not registered");
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT CUresult cuTensorMapEncodeTiled(
    CUtensorMap *map, CUtensorMapDataType dataType, cuuint32_t rank,
    void *globalAddress, const cuuint64_t *globalDim,
    const cuuint64_t *globalStrides, const cuuint32_t *boxDim,
    const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
    CUtensorMapFloatOOBfill oobFill) {
  if (!map || !globalDim || !boxDim || !elementStrides ||
      (rank > 1 && !globalStrides))
    return failWith(CUDA_ERROR_INVALID_VALUE, "null tensor-map argument");
  if (rank < 1 || rank > 5)
    return failWith(CUDA_ERROR_INVALID_VALUE,
                    "tensor rank " + std::to_string(rank) + " (1..5)");
  TensorMap m{};
  m.dataType = uint32_t(dataType);
  m.elementBytes = 0;
  m.rank = rank;
  m.globalAddress = reinterpret_cast<uint64_t>(globalAddress);
  for (uint32_t i = 0; i < rank; ++i) {
    m.globalDim[i] = globalDim[i];
    m.boxDim[i] = boxDim[i];
    m.elementStride[i] = elementStrides[i];
    if (i > 0)
      m.globalStride[i] = globalStrides[i - 1];
  }
  m.interleave = uint32_t(interleave);
  switch (swizzle) {
  case CU_TENSOR_MAP_SWIZZLE_NONE:
    m.swizzle = Swizzle::None;
    break;
  case CU_TENSOR_MAP_SWIZZLE_32B:
    m.swizzle = Swizzle::B32;
    break;
  case CU_TENSOR_MAP_SWIZZLE_64B:
    m.swizzle = Swizzle::B64;
    break;
  case CU_TENSOR_MAP_SWIZZLE_128B:
    m.swizzle = Swizzle::B128;
    break;
  default:
    return failWith(CUDA_ERROR_INVALID_VALUE, "swizzle mode " +
                                                  std::to_string(int(swizzle)) +
                                                  " is not emulated");
  }
  m.l2Promotion = uint32_t(l2Promotion);
  m.oobFill = uint32_t(oobFill);
  m.globalStride[0] = tensorMapElementBytes(m.dataType);
  std::string why;
  if (encodeTensorMap(m, map, &why) != TensorMapSuccess)
    return failWith(CUDA_ERROR_INVALID_VALUE, why);
  return CUDA_SUCCESS;
}

QUILT_EMULATOR_EXPORT void
quilt_emulator_read_counters(quilt_emulator_counters *out) {
  if (!out)
    return;
  std::lock_guard<std::mutex> lock(apiMutex());
  const Counters &c = totals;
  *out = quilt_emulator_counters{};
  out->launches = totalLaunches;
  out->ctas = c.ctas;
  out->warp_instructions = c.warpInstructions;
  out->thread_instructions = c.threadInstructions;
  static_assert(QUILT_EMU_NUM_CLASSES == kNumInstructionClasses,
                "the C header's classes are the emulator's");
  for (int i = 0; i < kNumInstructionClasses; ++i)
    out->by_class[i] = c.byClass[i];
  out->global_load_bytes = c.globalLoadBytes;
  out->global_store_bytes = c.globalStoreBytes;
  out->shared_load_bytes = c.sharedLoadBytes;
  out->shared_store_bytes = c.sharedStoreBytes;
  out->async_copy_bytes = c.asyncCopyBytes;
  out->shared_requests = c.sharedRequests;
  out->shared_wavefronts = c.sharedWavefronts;
  out->shared_ideal_wavefronts = c.sharedIdealWavefronts;
  out->global_requests = c.globalRequests;
  out->global_sectors = c.globalSectors;
  out->global_ideal_sectors = c.globalIdealSectors;
  out->barriers = c.barriers;
  out->seconds = totalSeconds;
}

QUILT_EMULATOR_EXPORT void quilt_emulator_reset_counters(void) {
  std::lock_guard<std::mutex> lock(apiMutex());
  totals = Counters();
  totalLaunches = 0;
  totalSeconds = 0;
}
