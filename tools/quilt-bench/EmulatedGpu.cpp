//===- EmulatedGpu.cpp - quilt-bench --emulate: GPU builds on the emulator ===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "EmulatedGpu.h"

#include <dlfcn.h>

#include <cstdlib>

namespace quilt::bench {
namespace {

template <typename T>
bool lookup(void *handle, const char *name, T &out, std::string &missing) {
  out = reinterpret_cast<T>(dlsym(handle, name));
  if (!out)
    missing += missing.empty() ? name : std::string(", ") + name;
  return out != nullptr;
}

/// Registers (or unregisters) a tensor's memory with the GPU runtime.
template <int Rank>
void eachDescriptor(HostTensor &tensor, int64_t elementBytes,
                    void (*fn)(int64_t, void *, int64_t)) {
  if (tensor.numElements() == 0)
    return; // nothing for a kernel to touch, and nothing to register
  auto descriptor = tensor.descriptor<Rank>();
  fn(Rank, &descriptor, elementBytes);
}

void forEachOperand(Operands &o, void (*fn)(int64_t, void *, int64_t)) {
  HostTensor *tensors[] = {&o.lhs, &o.rhs, &o.out};
  for (HostTensor *t : tensors) {
    int64_t bytes = t->elementBytes();
    switch (t->shape().size()) {
    case 2:
      eachDescriptor<2>(*t, bytes, fn);
      break;
    case 3:
      eachDescriptor<3>(*t, bytes, fn);
      break;
    default:
      eachDescriptor<4>(*t, bytes, fn);
      break;
    }
  }
}

} // namespace

std::unique_ptr<EmulatedGpu> EmulatedGpu::open(const std::string &runtimeDir,
                                               const TargetDesc &target,
                                               std::string &error) {
  bool amd = target.vendor == Vendor::AMD;
  std::string api = amd ? "hip" : "cuda";
  std::string emulatorPath = runtimeDir + "/libquilt_" + api + "_emulator.so";
  std::string runtimePath = runtimeDir + "/libquilt_" + api + "_runtime.so";
  // Before the runtime opens its driver (on its first call); the vendor's
  // own variables, which come before QUILT_GPU_DRIVER and
  // QUILT_EMULATOR_TARGET.
  std::string prefix = amd ? "QUILT_HIP_" : "QUILT_CUDA_";
  setenv((prefix + "DRIVER").c_str(), emulatorPath.c_str(), 1);
  setenv((prefix + "EMULATOR_TARGET").c_str(), target.name.c_str(), 1);
  void *runtime = dlopen(runtimePath.c_str(), RTLD_NOW | RTLD_GLOBAL);
  void *emulator = dlopen(emulatorPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!runtime || !emulator) {
    error = "--emulate needs " + (runtime ? emulatorPath : runtimePath) +
            (amd ? " (built with the HIP runtime, when hip_runtime_api.h is "
                   "found): "
                 : " (built with the CUDA runtime, when cuda.h is found): ") +
            dlerror();
    return nullptr;
  }
  std::unique_ptr<EmulatedGpu> gpu(new EmulatedGpu());
  std::string missing;
  lookup(runtime, "mgpuMemHostRegisterMemRef", gpu->registerMemRef_, missing);
  lookup(runtime, "mgpuMemHostUnregisterMemRef", gpu->unregisterMemRef_,
         missing);
  lookup(runtime, "quilt_gpu_status", gpu->status_, missing);
  lookup(runtime, "quilt_gpu_first_error", gpu->firstError_, missing);
  lookup(runtime, "quilt_gpu_reset_status", gpu->resetStatus_, missing);
  lookup(emulator, "quilt_emulator_read_counters", gpu->read_, missing);
  lookup(emulator, "quilt_emulator_reset_counters", gpu->reset_, missing);
  if (!missing.empty()) {
    error = "the GPU runtime or emulator lacks " + missing;
    return nullptr;
  }
  return gpu;
}

bool EmulatedGpu::run(const BenchKernel &kernel, Operands &operands,
                      std::string &error) {
  resetStatus_();
  forEachOperand(operands, registerMemRef_);
  kernel.run(operands);
  forEachOperand(operands, unregisterMemRef_);
  if (status_() == 0)
    return true;
  const char *first = firstError_();
  error = first ? first : "a GPU call failed";
  resetStatus_();
  return false;
}

} // namespace quilt::bench
