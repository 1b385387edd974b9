//===- EmulatedDevice.cpp - The GPU the emulator answers for --------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "EmulatedDevice.h"

#include "CostModel/TargetDatabase.h"

#include <cuda.h>

#include <cstdlib>

namespace quilt::emu {
namespace {

/// `sm_90a` -> 9, 0; false when it is not an NVIDIA chip name.
bool parseChip(const std::string &chip, int &major, int &minor) {
  if (chip.rfind("sm_", 0) != 0 || chip.size() < 5)
    return false;
  int digits = std::atoi(chip.c_str() + 3);
  if (digits < 10)
    return false;
  major = digits / 10;
  minor = digits % 10;
  return true;
}

} // namespace

EmulatedDevice emulatedDevice(const std::string &name,
                              const std::string &variable) {
  EmulatedDevice d;
  const TargetDesc *t = TargetDatabase::builtin().lookup(name);
  if (!t || t->vendor != Vendor::NVIDIA) {
    d.error = variable + "=" + name +
              " is not an NVIDIA target of Quilt's database (h100, a100, "
              "...; see quiltc targets)";
    return d;
  }
  d.name = t->name;
  d.chip = t->chip;
  if (!parseChip(t->chip, d.computeMajor, d.computeMinor)) {
    d.error = "target " + name + " has no sm_XY chip";
    return d;
  }
  d.valid = true;
  d.smCount = t->computeUnits;
  d.maxThreadsPerBlock = t->maxThreadsPerBlock;
  d.maxThreadsPerSM = t->maxThreadsPerCU;
  d.maxBlocksPerSM = t->maxBlocksPerCU;
  d.registersPerBlock = t->registersPerBlock;
  d.registersPerSM = t->registersPerCU;
  d.sharedMemPerBlockOptin = t->sharedMemPerBlock;
  d.sharedMemPerSM = t->sharedMemPerCU;
  d.l2Bytes = t->l2Bytes;
  d.totalMemoryBytes = int64_t(80) << 30;
  d.clockKHz = int64_t(t->clockGHz * 1e6);
  // Any bus width and clock whose double-data-rate product is the
  // database's bandwidth; HBM parts have a 5120-bit bus.
  d.busBits = 5120;
  d.memoryClockKHz =
      int64_t(t->memBandwidthGBs * 1e9 * 8 / (2.0 * double(d.busBits)) / 1e3);
  return d;
}

bool deviceAttribute(const EmulatedDevice &d, int attribute, int &value) {
  switch (CUdevice_attribute(attribute)) {
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    value = int(d.maxThreadsPerBlock);
    return true;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
    value = 1024;
    return true;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
    value = 64;
    return true;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
    value = 2147483647;
    return true;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
    value = 65535;
    return true;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
    value = 48 * 1024;
    return true;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    value = int(d.sharedMemPerBlockOptin);
    return true;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
    value = int(d.sharedMemPerSM);
    return true;
  case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY:
    value = 65536;
    return true;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
    value = 32;
    return true;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
    value = int(d.registersPerBlock);
    return true;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
    value = int(d.registersPerSM);
    return true;
  case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
    value = int(d.clockKHz);
    return true;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    value = int(d.smCount);
    return true;
  case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
    value = int(d.memoryClockKHz);
    return true;
  case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
    value = int(d.busBits);
    return true;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
    value = int(d.l2Bytes);
    return true;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
    value = int(d.maxThreadsPerSM);
    return true;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
    value = int(d.maxBlocksPerSM);
    return true;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    value = d.computeMajor;
    return true;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    value = d.computeMinor;
    return true;
  case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
  case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
  case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS:
  case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
    value = 1;
    return true;
  case CU_DEVICE_ATTRIBUTE_INTEGRATED:
  case CU_DEVICE_ATTRIBUTE_ECC_ENABLED:
    value = 0;
    return true;
  default:
    return false;
  }
}

bool targetRuns(const EmulatedDevice &d, const std::string &target) {
  int major, minor;
  if (!parseChip(target, major, minor))
    return false;
  bool specific = !target.empty() && target.back() == 'a';
  if (specific)
    return major == d.computeMajor && minor == d.computeMinor;
  return major * 10 + minor <= d.computeMajor * 10 + d.computeMinor;
}

} // namespace quilt::emu
