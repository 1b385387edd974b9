//===- HipApi.cpp - The HIP API in front of the AMDGCN emulator -----------===//
//
// Part of the Quilt project.
//
// libquilt_hip_emulator.so exports the HIP functions libquilt_hip_runtime.so
// resolves, with HIP's names, signatures and error codes (hip_runtime_api.h
// supplies them), so QUILT_GPU_DRIVER=<path>/libquilt_hip_emulator.so runs
// a program Quilt built for an AMD target unchanged. The device reports the
// facts of a target of Quilt's database (QUILT_HIP_EMULATOR_TARGET or
// QUILT_EMULATOR_TARGET: mi300x by default, mi250x, rx7900xtx); a code
// object for another processor is refused with hipErrorNoBinaryForGpu, as
// HIP refuses it. Work runs in order and synchronously: a launch has
// finished, or failed, when hipModuleLaunchKernel returns.
//
//===----------------------------------------------------------------------===//

#include "CodeObject.h"
#include "Decoder.h"
#include "Dispatch.h"

#include "../lib/DeviceMemory.h"
#include "../lib/EmulatorTarget.h"

#include "CostModel/TargetDatabase.h"

#include "QuiltEmulator.h"

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#define __HIP_DISABLE_CPP_FUNCTIONS__ 1
#include <hip/hip_runtime_api.h>

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

using namespace quilt::amdgcn;

namespace {

std::mutex &apiMutex() {
  static std::mutex *m = new std::mutex();
  return *m;
}

struct EmulatedModule {
  std::map<std::string, std::unique_ptr<LoadedKernel>> kernels;
};

/// Every launch since the last quilt_emulator_reset_counters.
Counters totals;
uint64_t totalLaunches = 0;
double totalSeconds = 0;

thread_local hipError_t lastError = hipSuccess;
thread_local std::string lastDetail;
thread_local std::string lastDescription;

hipError_t failWith(hipError_t code, std::string detail) {
  lastError = code;
  lastDetail = std::move(detail);
  return code;
}
hipError_t succeed() { return hipSuccess; }

/// The emulated device: a target of Quilt's database.
struct Device {
  bool valid = false;
  std::string error;
  const quilt::TargetDesc *target = nullptr;
  int major = 0, minor = 0;
};

const Device &device() {
  static Device d = [] {
    Device d;
    quilt::emu::EmulatorTarget target =
        quilt::emu::emulatorTarget("QUILT_HIP_EMULATOR_TARGET", "mi300x");
    const std::string &name = target.name;
    const quilt::TargetDesc *t =
        quilt::TargetDatabase::builtin().lookup(name);
    if (!t || t->vendor != quilt::Vendor::AMD) {
      d.error = target.variable + "=" + name +
                " is not an AMD target of Quilt's database (mi300x, mi250x, "
                "rx7900xtx, ...; see quiltc targets)";
      return d;
    }
    d.target = t;
    // gfx942 -> 9.4, gfx90a -> 9.0 (HIP's major.minor), gfx1100 -> 11.0.
    std::string digits = t->chip.substr(3);
    if (digits.size() == 4) {
      d.major = std::stoi(digits.substr(0, 2));
      d.minor = digits[2] - '0';
    } else {
      d.major = digits[0] - '0';
      d.minor = std::isdigit(digits[1]) ? digits[1] - '0' : 0;
    }
    d.valid = true;
    return d;
  }();
  return d;
}

bool initialized = false;

hipError_t requireDevice(int ordinal = 0) {
  if (!initialized)
    return failWith(hipErrorNotInitialized, "hipInit has not been called");
  if (!device().valid)
    return failWith(hipErrorNoDevice, device().error);
  if (ordinal != 0)
    return failWith(hipErrorInvalidDevice,
                    "the emulator has one device (ordinal 0)");
  return hipSuccess;
}

enum class HandleKind { Stream, Event };
std::map<void *, HandleKind> &handles() {
  static auto *h = new std::map<void *, HandleKind>();
  return *h;
}
void *newHandle(HandleKind kind) {
  void *h = new char(0);
  handles()[h] = kind;
  return h;
}
bool deleteHandle(void *h, HandleKind kind) {
  auto it = handles().find(h);
  if (it == handles().end() || it->second != kind)
    return false;
  handles().erase(it);
  delete static_cast<char *>(h);
  return true;
}
bool validStream(void *s) {
  return s == nullptr || (handles().count(s) &&
                          handles()[s] == HandleKind::Stream);
}

/// Hidden arguments (code object v5) the kernel may read after its own.
void fillHiddenArguments(const KernelInfo &info, const LaunchConfig &config,
                         std::vector<uint8_t> &kernarg) {
  for (const KernelArgument &arg : info.arguments) {
    uint64_t value = 0;
    const std::string &k = arg.valueKind;
    int axis = k.empty() ? 0 : k.back() - 'x';
    if (axis < 0 || axis > 2)
      axis = 0; // only the _x/_y/_z kinds below use it
    if (k.rfind("hidden_block_count_", 0) == 0)
      value = config.grid[axis];
    else if (k.rfind("hidden_group_size_", 0) == 0)
      value = config.block[axis];
    else if (k.rfind("hidden_remainder_", 0) == 0)
      value = 0; // grids are whole workgroups
    else if (k == "hidden_grid_dims")
      value = config.grid[2] * config.block[2] > 1   ? 3
              : config.grid[1] * config.block[1] > 1 ? 2
                                                     : 1;
    else if (k.rfind("hidden_", 0) == 0)
      value = 0; // offsets, pointers the emulator does not provide
    else
      continue;
    if (arg.offset + arg.size <= kernarg.size() && arg.size <= 8)
      std::memcpy(kernarg.data() + arg.offset, &value, arg.size);
  }
}

} // namespace

// Errors.

QUILT_EMULATOR_EXPORT const char *hipGetErrorName(hipError_t error) {
  switch (error) {
#define NAME(e)                                                                \
  case e:                                                                      \
    return #e;
    NAME(hipSuccess)
    NAME(hipErrorInvalidValue)
    NAME(hipErrorOutOfMemory)
    NAME(hipErrorNotInitialized)
    NAME(hipErrorNoDevice)
    NAME(hipErrorInvalidDevice)
    NAME(hipErrorInvalidImage)
    NAME(hipErrorInvalidContext)
    NAME(hipErrorNoBinaryForGpu)
    NAME(hipErrorInvalidKernelFile)
    NAME(hipErrorNotFound)
    NAME(hipErrorInvalidHandle)
    NAME(hipErrorIllegalAddress)
    NAME(hipErrorLaunchFailure)
    NAME(hipErrorInvalidConfiguration)
    NAME(hipErrorNotSupported)
    NAME(hipErrorHostMemoryAlreadyRegistered)
    NAME(hipErrorHostMemoryNotRegistered)
    NAME(hipErrorInvalidDevicePointer)
#undef NAME
  default:
    return "hipErrorUnknown";
  }
}

QUILT_EMULATOR_EXPORT const char *hipGetErrorString(hipError_t error) {
  const char *base;
  switch (error) {
  case hipSuccess: base = "no error"; break;
  case hipErrorInvalidValue: base = "invalid argument"; break;
  case hipErrorOutOfMemory: base = "out of memory"; break;
  case hipErrorNotInitialized: base = "initialization error"; break;
  case hipErrorNoDevice: base = "no ROCm-capable device is detected"; break;
  case hipErrorInvalidDevice: base = "invalid device ordinal"; break;
  case hipErrorInvalidImage: base = "device kernel image is invalid"; break;
  case hipErrorNoBinaryForGpu: base = "no kernel image is available for execution on the device"; break;
  case hipErrorNotFound: base = "named symbol not found"; break;
  case hipErrorInvalidHandle: base = "invalid resource handle"; break;
  case hipErrorIllegalAddress: base = "an illegal memory access was encountered"; break;
  case hipErrorLaunchFailure: base = "unspecified launch failure"; break;
  case hipErrorInvalidConfiguration: base = "invalid configuration argument"; break;
  case hipErrorNotSupported: base = "operation not supported"; break;
  default: base = "unknown error"; break;
  }
  if (error != lastError || lastDetail.empty())
    return base;
  lastDescription = std::string(base) + ": " + lastDetail;
  return lastDescription.c_str();
}

QUILT_EMULATOR_EXPORT hipError_t hipGetLastError() {
  hipError_t e = lastError;
  lastError = hipSuccess;
  return e;
}
QUILT_EMULATOR_EXPORT hipError_t hipPeekAtLastError() { return lastError; }

// Devices.

QUILT_EMULATOR_EXPORT hipError_t hipInit(unsigned int flags) {
  std::lock_guard<std::mutex> lock(apiMutex());
  if (flags != 0)
    return failWith(hipErrorInvalidValue, "hipInit flags must be 0");
  if (!device().valid)
    return failWith(hipErrorNoDevice, device().error);
  initialized = true;
  return succeed();
}

QUILT_EMULATOR_EXPORT hipError_t hipDriverGetVersion(int *version) {
  if (!version)
    return failWith(hipErrorInvalidValue, "null version");
  *version = 50200000;
  return succeed();
}
QUILT_EMULATOR_EXPORT hipError_t hipRuntimeGetVersion(int *version) {
  return hipDriverGetVersion(version);
}

QUILT_EMULATOR_EXPORT hipError_t hipGetDeviceCount(int *count) {
  if (!count)
    return failWith(hipErrorInvalidValue, "null count");
  if (!initialized)
    return failWith(hipErrorNotInitialized, "hipInit has not been called");
  *count = device().valid ? 1 : 0;
  return device().valid ? succeed() : failWith(hipErrorNoDevice, device().error);
}

thread_local int currentDevice = 0;
QUILT_EMULATOR_EXPORT hipError_t hipSetDevice(int ordinal) {
  if (hipError_t e = requireDevice(ordinal))
    return e;
  currentDevice = ordinal;
  return succeed();
}
QUILT_EMULATOR_EXPORT hipError_t hipGetDevice(int *ordinal) {
  if (!ordinal)
    return failWith(hipErrorInvalidValue, "null device");
  *ordinal = currentDevice;
  return succeed();
}
QUILT_EMULATOR_EXPORT hipError_t hipDeviceSynchronize() { return succeed(); }

QUILT_EMULATOR_EXPORT hipError_t hipDeviceGetAttribute(int *value,
                                                       hipDeviceAttribute_t which,
                                                       int ordinal) {
  if (!value)
    return failWith(hipErrorInvalidValue, "null value");
  if (hipError_t e = requireDevice(ordinal))
    return e;
  const quilt::TargetDesc &t = *device().target;
  switch (which) {
  case hipDeviceAttributeMultiprocessorCount: *value = int(t.computeUnits); break;
  case hipDeviceAttributeWarpSize: *value = int(t.warpSize); break;
  case hipDeviceAttributeMaxThreadsPerBlock: *value = int(t.maxThreadsPerBlock); break;
  case hipDeviceAttributeMaxThreadsPerMultiProcessor: *value = int(t.maxThreadsPerCU); break;
  case hipDeviceAttributeMaxRegistersPerBlock: *value = int(t.registersPerBlock); break;
  case hipDeviceAttributeMaxRegistersPerMultiprocessor: *value = int(t.registersPerCU); break;
  case hipDeviceAttributeMaxSharedMemoryPerBlock: *value = int(t.sharedMemPerBlock); break;
  case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor: *value = int(t.sharedMemPerCU); break;
  case hipDeviceAttributeL2CacheSize: *value = int(t.l2Bytes); break;
  case hipDeviceAttributeComputeCapabilityMajor: *value = device().major; break;
  case hipDeviceAttributeComputeCapabilityMinor: *value = device().minor; break;
  case hipDeviceAttributeClockRate: *value = int(t.clockGHz * 1e6); break;
  // Any bus width and clock whose double-data-rate product is the
  // database's bandwidth; the HBM parts have an 8192-bit bus.
  case hipDeviceAttributeMemoryBusWidth: *value = 8192; break;
  case hipDeviceAttributeMemoryClockRate:
    *value = int(t.memBandwidthGBs * 1e9 * 8 / (2.0 * 8192) / 1e3);
    break;
  case hipDeviceAttributeMaxBlockDimX:
  case hipDeviceAttributeMaxBlockDimY:
  case hipDeviceAttributeMaxBlockDimZ: *value = 1024; break;
  case hipDeviceAttributeMaxGridDimX:
  case hipDeviceAttributeMaxGridDimY:
  case hipDeviceAttributeMaxGridDimZ: *value = 0x7fffffff; break;
  default:
    return failWith(hipErrorInvalidValue,
                    "device attribute " + std::to_string(int(which)) +
                        " is not emulated");
  }
  return succeed();
}

QUILT_EMULATOR_EXPORT hipError_t hipDeviceGetName(char *name, int length,
                                                  int ordinal) {
  if (!name || length <= 0)
    return failWith(hipErrorInvalidValue, "null name");
  if (hipError_t e = requireDevice(ordinal))
    return e;
  std::snprintf(name, size_t(length), "Quilt emulated %s (%s)",
                device().target->name.c_str(), device().target->chip.c_str());
  return succeed();
}

QUILT_EMULATOR_EXPORT hipError_t hipDeviceTotalMem(size_t *bytes, int ordinal) {
  if (!bytes)
    return failWith(hipErrorInvalidValue, "null size");
  if (hipError_t e = requireDevice(ordinal))
    return e;
  *bytes = size_t(64) << 30;
  return succeed();
}

QUILT_EMULATOR_EXPORT hipError_t hipGetDeviceProperties(hipDeviceProp_t *props,
                                                        int ordinal) {
  if (!props)
    return failWith(hipErrorInvalidValue, "null properties");
  if (hipError_t e = requireDevice(ordinal))
    return e;
  const quilt::TargetDesc &t = *device().target;
  std::memset(props, 0, sizeof(*props));
  (void)hipDeviceGetName(props->name, sizeof(props->name), ordinal);
  props->totalGlobalMem = size_t(64) << 30;
  props->sharedMemPerBlock = size_t(t.sharedMemPerBlock);
  props->regsPerBlock = int(t.registersPerBlock);
  props->warpSize = int(t.warpSize);
  props->maxThreadsPerBlock = int(t.maxThreadsPerBlock);
  props->maxThreadsDim[0] = props->maxThreadsDim[1] = props->maxThreadsDim[2] = 1024;
  props->maxGridSize[0] = props->maxGridSize[1] = props->maxGridSize[2] = 0x7fffffff;
  props->clockRate = int(t.clockGHz * 1e6);
  props->major = device().major;
  props->minor = device().minor;
  props->multiProcessorCount = int(t.computeUnits);
  props->l2CacheSize = int(t.l2Bytes);
  props->maxThreadsPerMultiProcessor = int(t.maxThreadsPerCU);
  props->maxSharedMemoryPerMultiProcessor = size_t(t.sharedMemPerCU);
  std::snprintf(props->gcnArchName, sizeof(props->gcnArchName), "%s",
                t.chip.c_str());
  return succeed();
}

// Memory.

QUILT_EMULATOR_EXPORT hipError_t hipMalloc(void **ptr, size_t bytes) {
  if (!ptr)
    return failWith(hipErrorInvalidValue, "null pointer");
  uint64_t address =
      quilt::emu::deviceMemory().allocate(bytes, quilt::emu::DeviceMemory::Kind::Device);
  if (!address)
    return failWith(hipErrorOutOfMemory, std::to_string(bytes) + " bytes");
  *ptr = reinterpret_cast<void *>(address);
  return succeed();
}

QUILT_EMULATOR_EXPORT hipError_t hipMallocManaged(void **ptr, size_t bytes,
                                                  unsigned int flags) {
  if (!ptr)
    return failWith(hipErrorInvalidValue, "null pointer");
  if (flags != hipMemAttachGlobal && flags != hipMemAttachHost)
    return failWith(hipErrorInvalidValue, "invalid hipMallocManaged flags");
  uint64_t address = quilt::emu::deviceMemory().allocate(
      bytes, quilt::emu::DeviceMemory::Kind::Managed);
  if (!address)
    return failWith(hipErrorOutOfMemory, std::to_string(bytes) + " bytes");
  *ptr = reinterpret_cast<void *>(address);
  return succeed();
}

QUILT_EMULATOR_EXPORT hipError_t hipFree(void *ptr) {
  if (!ptr)
    return succeed();
  if (!quilt::emu::deviceMemory().free(reinterpret_cast<uint64_t>(ptr)))
    return failWith(hipErrorInvalidValue,
                    "hipFree of a pointer hipMalloc did not return");
  return succeed();
}

QUILT_EMULATOR_EXPORT hipError_t hipHostRegister(void *ptr, size_t bytes,
                                                 unsigned int) {
  if (!ptr || bytes == 0)
    return failWith(hipErrorInvalidValue, "null or empty host range");
  uint64_t address = reinterpret_cast<uint64_t>(ptr);
  if (quilt::emu::deviceMemory().contains(address, 1))
    return failWith(hipErrorHostMemoryAlreadyRegistered,
                    "the range overlaps a registered or allocated one");
  quilt::emu::deviceMemory().add(address, bytes,
                                 quilt::emu::DeviceMemory::Kind::HostRegistered);
  return succeed();
}

QUILT_EMULATOR_EXPORT hipError_t hipHostUnregister(void *ptr) {
  if (!quilt::emu::deviceMemory().remove(reinterpret_cast<uint64_t>(ptr)))
    return failWith(hipErrorHostMemoryNotRegistered,
                    "the pointer was not registered");
  return succeed();
}

QUILT_EMULATOR_EXPORT hipError_t hipMemcpy(void *dst, const void *src,
                                           size_t bytes, hipMemcpyKind) {
  quilt::emu::DeviceAccess access;
  if (bytes && (!dst || !src))
    return failWith(hipErrorInvalidValue, "null pointer");
  if (bytes)
    std::memmove(dst, src, bytes);
  return succeed();
}
QUILT_EMULATOR_EXPORT hipError_t hipMemcpyAsync(void *dst, const void *src,
                                                size_t bytes,
                                                hipMemcpyKind kind,
                                                hipStream_t stream) {
  if (!validStream(stream))
    return failWith(hipErrorInvalidHandle, "invalid stream");
  return hipMemcpy(dst, src, bytes, kind);
}
QUILT_EMULATOR_EXPORT hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src,
                                               size_t bytes) {
  return hipMemcpy(dst, src, bytes, hipMemcpyHostToDevice);
}
QUILT_EMULATOR_EXPORT hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src,
                                               size_t bytes) {
  return hipMemcpy(dst, src, bytes, hipMemcpyDeviceToHost);
}
QUILT_EMULATOR_EXPORT hipError_t hipMemset(void *dst, int value, size_t bytes) {
  quilt::emu::DeviceAccess access;
  if (bytes && !dst)
    return failWith(hipErrorInvalidValue, "null pointer");
  std::memset(dst, value, bytes);
  return succeed();
}
QUILT_EMULATOR_EXPORT hipError_t hipMemsetD32Async(hipDeviceptr_t dst,
                                                   int value, size_t count,
                                                   hipStream_t stream) {
  quilt::emu::DeviceAccess access;
  if (!validStream(stream))
    return failWith(hipErrorInvalidHandle, "invalid stream");
  if (count && !dst)
    return failWith(hipErrorInvalidValue, "null pointer");
  auto *p = static_cast<uint32_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    p[i] = uint32_t(value);
  return succeed();
}
QUILT_EMULATOR_EXPORT hipError_t hipMemsetD16Async(hipDeviceptr_t dst,
                                                   unsigned short value,
                                                   size_t count,
                                                   hipStream_t stream) {
  quilt::emu::DeviceAccess access;
  if (!validStream(stream))
    return failWith(hipErrorInvalidHandle, "invalid stream");
  if (count && !dst)
    return failWith(hipErrorInvalidValue, "null pointer");
  auto *p = static_cast<uint16_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    p[i] = value;
  return succeed();
}

// Streams and events: work runs at once, in order, so they only need to be
// valid handles.

QUILT_EMULATOR_EXPORT hipError_t hipStreamCreateWithFlags(hipStream_t *stream,
                                                          unsigned int) {
  if (!stream)
    return failWith(hipErrorInvalidValue, "null stream");
  std::lock_guard<std::mutex> lock(apiMutex());
  *stream = static_cast<hipStream_t>(newHandle(HandleKind::Stream));
  return succeed();
}
QUILT_EMULATOR_EXPORT hipError_t hipStreamCreate(hipStream_t *stream) {
  return hipStreamCreateWithFlags(stream, 0);
}
QUILT_EMULATOR_EXPORT hipError_t hipStreamDestroy(hipStream_t stream) {
  std::lock_guard<std::mutex> lock(apiMutex());
  if (!deleteHandle(stream, HandleKind::Stream))
    return failWith(hipErrorInvalidHandle, "not a live stream");
  return succeed();
}
QUILT_EMULATOR_EXPORT hipError_t hipStreamSynchronize(hipStream_t stream) {
  std::lock_guard<std::mutex> lock(apiMutex());
  return validStream(stream) ? succeed()
                             : failWith(hipErrorInvalidHandle, "invalid stream");
}
QUILT_EMULATOR_EXPORT hipError_t hipEventCreateWithFlags(hipEvent_t *event,
                                                         unsigned int) {
  if (!event)
    return failWith(hipErrorInvalidValue, "null event");
  std::lock_guard<std::mutex> lock(apiMutex());
  *event = static_cast<hipEvent_t>(newHandle(HandleKind::Event));
  return succeed();
}
QUILT_EMULATOR_EXPORT hipError_t hipEventCreate(hipEvent_t *event) {
  return hipEventCreateWithFlags(event, 0);
}
QUILT_EMULATOR_EXPORT hipError_t hipEventDestroy(hipEvent_t event) {
  std::lock_guard<std::mutex> lock(apiMutex());
  if (!deleteHandle(event, HandleKind::Event))
    return failWith(hipErrorInvalidHandle, "not a live event");
  return succeed();
}
QUILT_EMULATOR_EXPORT hipError_t hipEventRecord(hipEvent_t event,
                                                hipStream_t stream) {
  std::lock_guard<std::mutex> lock(apiMutex());
  if (!handles().count(event) || !validStream(stream))
    return failWith(hipErrorInvalidHandle, "invalid event or stream");
  return succeed();
}
QUILT_EMULATOR_EXPORT hipError_t hipEventSynchronize(hipEvent_t event) {
  std::lock_guard<std::mutex> lock(apiMutex());
  return handles().count(event) ? succeed()
                                : failWith(hipErrorInvalidHandle, "invalid event");
}
QUILT_EMULATOR_EXPORT hipError_t hipStreamWaitEvent(hipStream_t stream,
                                                    hipEvent_t event,
                                                    unsigned int) {
  std::lock_guard<std::mutex> lock(apiMutex());
  if (!handles().count(event) || !validStream(stream))
    return failWith(hipErrorInvalidHandle, "invalid event or stream");
  return succeed();
}

// Modules and launches.

QUILT_EMULATOR_EXPORT hipError_t hipModuleLoadData(hipModule_t *module,
                                                   const void *image) {
  if (!module || !image)
    return failWith(hipErrorInvalidValue, "null module or image");
  if (hipError_t e = requireDevice())
    return e;
  auto object = readCodeObject(image, 0);
  if (!object)
    return failWith(hipErrorInvalidImage, llvm::toString(object.takeError()));
  const std::string &chip = device().target->chip;
  if (object->processor != chip)
    return failWith(hipErrorNoBinaryForGpu,
                    "the code object is for " + object->processor +
                        ", the emulated " + device().target->name + " is " +
                        chip);
  auto loaded = std::make_unique<EmulatedModule>();
  std::string errors;
  for (KernelInfo &info : object->kernels) {
    // The emulator computes with the host's IEEE arithmetic; a kernel
    // that asks for another float mode is refused, not run in the wrong
    // one.
    if (std::string mode = unemulatedFloatMode(info); !mode.empty()) {
      errors += (errors.empty() ? "" : "; ") +
                ("kernel " + info.name + ": its float mode (" + mode +
                 ") is not emulated (only round to nearest even with "
                 "denormals kept)");
      continue;
    }
    auto code = decodeKernel(object->processor, info.code);
    if (!code) {
      // Every kernel's reason, so one load names all that is missing.
      errors += (errors.empty() ? "" : "; ") + ("kernel " + info.name + ": " +
                                                llvm::toString(code.takeError()));
      continue;
    }
    auto kernel = std::make_unique<LoadedKernel>();
    kernel->processor = object->processor;
    kernel->code = std::move(*code);
    kernel->info = std::move(info);
    std::string name = kernel->info.name;
    loaded->kernels[name] = std::move(kernel);
  }
  if (!errors.empty())
    return failWith(hipErrorInvalidImage, errors);
  *module = reinterpret_cast<hipModule_t>(loaded.release());
  return succeed();
}

QUILT_EMULATOR_EXPORT hipError_t hipModuleLoadDataEx(hipModule_t *module,
                                                     const void *image,
                                                     unsigned int,
                                                     hipJitOption *, void **) {
  return hipModuleLoadData(module, image);
}

QUILT_EMULATOR_EXPORT hipError_t hipModuleUnload(hipModule_t module) {
  if (!module)
    return failWith(hipErrorInvalidHandle, "null module");
  delete reinterpret_cast<EmulatedModule *>(module);
  return succeed();
}

QUILT_EMULATOR_EXPORT hipError_t hipModuleGetFunction(hipFunction_t *function,
                                                      hipModule_t module,
                                                      const char *name) {
  if (!function || !module || !name)
    return failWith(hipErrorInvalidValue, "null function, module or name");
  auto *m = reinterpret_cast<EmulatedModule *>(module);
  auto it = m->kernels.find(name);
  if (it == m->kernels.end())
    return failWith(hipErrorNotFound,
                    std::string("no kernel named ") + name + " in the module");
  *function = reinterpret_cast<hipFunction_t>(it->second.get());
  return succeed();
}

QUILT_EMULATOR_EXPORT hipError_t hipModuleLaunchKernel(
    hipFunction_t function, unsigned int gridX, unsigned int gridY,
    unsigned int gridZ, unsigned int blockX, unsigned int blockY,
    unsigned int blockZ, unsigned int sharedBytes, hipStream_t stream,
    void **params, void **extra) {
  quilt::emu::DeviceAccess access;
  if (!function)
    return failWith(hipErrorInvalidHandle, "null function");
  if (!validStream(stream))
    return failWith(hipErrorInvalidHandle, "invalid stream");
  const auto &kernel = *reinterpret_cast<const LoadedKernel *>(function);
  const KernelInfo &info = kernel.info;
  const quilt::TargetDesc &t = *device().target;
  uint64_t threads = uint64_t(blockX) * blockY * blockZ;
  if (threads > uint64_t(t.maxThreadsPerBlock) || blockX > 1024 ||
      blockY > 1024 || blockZ > 1024)
    return failWith(hipErrorInvalidConfiguration,
                    "block of " + std::to_string(threads) + " threads");
  for (int i = 0; i < 3; ++i) {
    uint32_t block[3] = {blockX, blockY, blockZ};
    if (info.requiredWorkgroupSize[i] && threads &&
        info.requiredWorkgroupSize[i] != block[i])
      return failWith(hipErrorInvalidConfiguration,
                      info.name + " requires a workgroup of " +
                          std::to_string(info.requiredWorkgroupSize[0]) + "x" +
                          std::to_string(info.requiredWorkgroupSize[1]) + "x" +
                          std::to_string(info.requiredWorkgroupSize[2]));
  }
  if (info.groupSegmentFixedSize + uint64_t(sharedBytes) >
      uint64_t(t.sharedMemPerBlock))
    return failWith(hipErrorInvalidValue,
                    "the launch needs " +
                        std::to_string(info.groupSegmentFixedSize + sharedBytes) +
                        " bytes of LDS, the device has " +
                        std::to_string(t.sharedMemPerBlock) + " per workgroup");

  for (const KernelArgument &arg : info.arguments)
    if (uint64_t(arg.offset) + arg.size > std::max<uint32_t>(info.kernargSegmentSize, 16))
      return failWith(hipErrorInvalidImage,
                      info.name + ": an argument at offset " +
                          std::to_string(arg.offset) + " lies outside the " +
                          std::to_string(info.kernargSegmentSize) +
                          "-byte argument segment of its metadata");
  LaunchConfig config;
  config.grid[0] = gridX, config.grid[1] = gridY, config.grid[2] = gridZ;
  config.block[0] = blockX, config.block[1] = blockY, config.block[2] = blockZ;
  config.dynamicLdsBytes = sharedBytes;
  config.kernarg.assign(std::max<uint32_t>(info.kernargSegmentSize, 16), 0);
  if (params) {
    for (size_t i = 0; i < info.arguments.size(); ++i) {
      const KernelArgument &arg = info.arguments[i];
      if (arg.valueKind.rfind("hidden_", 0) == 0)
        continue;
      if (!params[i])
        return failWith(hipErrorInvalidValue,
                        "kernel parameter " + std::to_string(i) + " is null");
      std::memcpy(config.kernarg.data() + arg.offset, params[i], arg.size);
    }
  } else if (extra) {
    // HIP_LAUNCH_PARAM_BUFFER_POINTER, ptr, HIP_LAUNCH_PARAM_BUFFER_SIZE,
    // &size, HIP_LAUNCH_PARAM_END.
    void *buffer = nullptr;
    size_t size = 0;
    for (void **p = extra; *p != HIP_LAUNCH_PARAM_END; p += 2) {
      if (*p == HIP_LAUNCH_PARAM_BUFFER_POINTER)
        buffer = p[1];
      else if (*p == HIP_LAUNCH_PARAM_BUFFER_SIZE)
        size = *static_cast<size_t *>(p[1]);
      else
        return failWith(hipErrorInvalidValue, "unknown launch extra entry");
    }
    if (!buffer || size > config.kernarg.size())
      return failWith(hipErrorInvalidValue,
                      "the extra argument buffer is missing or larger than "
                      "the kernel's argument segment");
    std::memcpy(config.kernarg.data(), buffer, size);
  } else if (!info.arguments.empty()) {
    return failWith(hipErrorInvalidValue, "no kernel parameters");
  }
  fillHiddenArguments(info, config, config.kernarg);

  // The kernel reads its argument segment like device memory.
  auto &memory = quilt::emu::deviceMemory();
  uint64_t kernargAddress = reinterpret_cast<uint64_t>(config.kernarg.data());
  memory.add(kernargAddress, config.kernarg.size(),
             quilt::emu::DeviceMemory::Kind::ModuleVariable);
  Counters counters;
  LaunchFailure failure;
  auto start = std::chrono::steady_clock::now();
  bool ok = runKernel(kernel, config, counters, failure);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  memory.remove(kernargAddress);
  {
    std::lock_guard<std::mutex> lock(apiMutex());
    totals += counters;
    ++totalLaunches;
    totalSeconds += seconds;
  }
  if (profilingRequested()) {
    auto n = [](uint64_t v) { return (unsigned long long)v; };
    std::fprintf(
        stderr,
        "quilt-emulator: %s grid (%u,%u,%u) block (%u,%u,%u) lds %u: %llu "
        "wave instructions (matrix %llu, valu %llu, salu %llu, lds %llu, "
        "global %llu, scalar memory %llu, scratch %llu), global %llu B loaded "
        "%llu B stored in %llu 64-byte segments (fewest %llu), lds %llu B "
        "loaded %llu B stored with %llu bank-conflict cycles, %llu barriers, "
        "%.3f s, %.2f M wave instructions/s\n",
        info.name.c_str(), gridX, gridY, gridZ, blockX, blockY, blockZ,
        info.groupSegmentFixedSize + sharedBytes, n(counters.waveInstructions),
        n(counters.of(Unit::Matrix)), n(counters.of(Unit::Valu)),
        n(counters.of(Unit::Salu)), n(counters.of(Unit::Lds)),
        n(counters.of(Unit::GlobalLoad) + counters.of(Unit::GlobalStore)),
        n(counters.of(Unit::ScalarMemory)),
        n(counters.of(Unit::Scratch)), n(counters.globalBytesLoaded),
        n(counters.globalBytesStored), n(counters.globalSegments),
        n(counters.globalMinimumSegments), n(counters.ldsBytesLoaded),
        n(counters.ldsBytesStored), n(counters.ldsBankConflictCycles()),
        n(counters.barriers), seconds,
        seconds > 0 ? counters.waveInstructions / seconds * 1e-6 : 0.0);
  }
  if (!ok) {
    std::fprintf(stderr, "%s\n", failure.report.c_str());
    return failWith(hipError_t(failure.error), failure.report);
  }
  return succeed();
}

// What tools read (QuiltEmulator.h): the PTX emulator's counters, filled
// with their AMD counterparts (docs/gpu-emulator.md gives the mapping).
QUILT_EMULATOR_EXPORT void
quilt_emulator_read_counters(quilt_emulator_counters *out) {
  if (!out)
    return;
  std::lock_guard<std::mutex> lock(apiMutex());
  const Counters &c = totals;
  *out = quilt_emulator_counters{};
  out->launches = totalLaunches;
  out->ctas = c.workgroups;
  out->warp_instructions = c.waveInstructions;
  out->thread_instructions = c.laneInstructions;
  out->by_class[QUILT_EMU_CLASS_TENSOR_CORE] = c.of(Unit::Matrix);
  out->by_class[QUILT_EMU_CLASS_FMA] = c.of(Unit::Valu);
  out->by_class[QUILT_EMU_CLASS_LOAD] =
      c.of(Unit::GlobalLoad) + c.of(Unit::ScalarMemory);
  out->by_class[QUILT_EMU_CLASS_STORE] = c.of(Unit::GlobalStore);
  out->by_class[QUILT_EMU_CLASS_SHARED] = c.of(Unit::Lds);
  out->by_class[QUILT_EMU_CLASS_BARRIER] = c.of(Unit::Barrier);
  out->by_class[QUILT_EMU_CLASS_OTHER] =
      c.of(Unit::Salu) + c.of(Unit::Scratch) + c.of(Unit::Control);
  out->global_load_bytes = c.globalBytesLoaded;
  out->global_store_bytes = c.globalBytesStored;
  out->shared_load_bytes = c.ldsBytesLoaded;
  out->shared_store_bytes = c.ldsBytesStored;
  out->shared_requests = c.ldsRequests;
  out->shared_wavefronts = c.ldsCycles;
  out->shared_ideal_wavefronts = c.ldsIdealCycles;
  out->global_requests = c.globalRequests;
  out->global_sectors = c.globalSegments;
  out->global_ideal_sectors = c.globalMinimumSegments;
  out->barriers = c.barriers;
  out->seconds = totalSeconds;
}

QUILT_EMULATOR_EXPORT void quilt_emulator_reset_counters(void) {
  // A tool that resets the counters reads them: from now on every launch
  // counts what otherwise only QUILT_EMULATOR_PROFILE counts.
  countEverything();
  std::lock_guard<std::mutex> lock(apiMutex());
  totals = Counters();
  totalLaunches = 0;
  totalSeconds = 0;
}
