//===- HostDetection.cpp - Describing the machine we run on ---------------===//
//
// Part of the Quilt project. The `host` target: the vector ISA comes from
// CPUID (x86) or /proc/cpuinfo (Arm), core count and cache sizes from
// sysconf, the clock from /proc/cpuinfo. What cannot be read portably (DRAM
// bandwidth, FMA units, L2-to-L1 bandwidth) is taken from the closest
// host-* entry of the database.
//
//===----------------------------------------------------------------------===//

#include "CostModel/TargetDatabase.h"
#include "TextUtil.h"

#include <fstream>
#include <string>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace quilt {

namespace {

struct CpuInfo {
  std::string modelName;
  double mhz = 0;
  bool hasAsimd = false;
};

CpuInfo readProcCpuinfo() {
  CpuInfo info;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos)
      continue;
    std::string_view key = trim(std::string_view(line).substr(0, colon));
    std::string_view value = trim(std::string_view(line).substr(colon + 1));
    if (key == "model name" && info.modelName.empty())
      info.modelName = std::string(value);
    else if (key == "cpu MHz" && info.mhz == 0)
      parseDouble(value, info.mhz);
    else if (key == "Features" && value.find("asimd") != std::string::npos)
      info.hasAsimd = true;
  }
  return info;
}

#if defined(__x86_64__) || defined(__i386__)
std::string x86BrandString() {
  unsigned regs[12] = {};
  for (unsigned i = 0; i < 3; ++i)
    if (!__get_cpuid(0x80000002u + i, &regs[4 * i], &regs[4 * i + 1],
                     &regs[4 * i + 2], &regs[4 * i + 3]))
      return "";
  std::string brand(reinterpret_cast<const char *>(regs), sizeof(regs));
  return std::string(trim(brand.c_str()));
}
#endif

/// The database entry whose ISA matches this machine.
const char *closestTemplate() {
#if defined(__x86_64__) || defined(__i386__)
  // __builtin_cpu_supports reads CPUID and also checks that the OS saves the
  // wide registers (XGETBV), which a raw CPUID bit does not.
  if (__builtin_cpu_supports("avx512f"))
    return "host-avx512";
  return "host-avx2";
#elif defined(__aarch64__)
  return "host-neon";
#else
  return "host-avx2";
#endif
}

int64_t sysconfBytes(int name) {
  long v = sysconf(name);
  return v > 0 ? int64_t(v) : 0;
}

} // namespace

TargetDesc detectHostTarget(const TargetDatabase &db) {
  const TargetDesc *base = db.lookup(closestTemplate());
  if (!base)
    return {};
  TargetDesc host = *base;
  host.name = "host";

#if defined(__x86_64__) || defined(__i386__)
  if (!__builtin_cpu_supports("avx512f") &&
      !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
    // Plain SSE2: 128-bit vectors, 16 registers, no FMA (mul + add issue
    // like one FMA per unit for peak purposes).
    host.vectorBits = 128;
    host.maxRegistersPerThread = 16;
    host.chip = "x86-64";
  }
#endif

  CpuInfo info = readProcCpuinfo();
  std::string model = info.modelName;
#if defined(__x86_64__) || defined(__i386__)
  if (model.empty())
    model = x86BrandString();
#endif
  if (long cores = sysconf(_SC_NPROCESSORS_ONLN); cores > 0)
    host.computeUnits = cores;
#ifdef _SC_LEVEL1_DCACHE_SIZE
  if (int64_t l1 = sysconfBytes(_SC_LEVEL1_DCACHE_SIZE))
    host.l1Bytes = l1;
  if (int64_t l2 = sysconfBytes(_SC_LEVEL2_CACHE_SIZE))
    host.l2Bytes = l2;
  if (int64_t l3 = sysconfBytes(_SC_LEVEL3_CACHE_SIZE))
    host.l3Bytes = l3;
#endif
  if (info.mhz > 100)
    host.clockGHz = info.mhz / 1000.0;

  double lanes = double(host.cpuLanes());
  host.peakTflops = {};
  host.peakTflops[static_cast<int>(InstKind::CpuFma)] =
      double(host.computeUnits) * double(host.fmaUnitsPerCore) * lanes * 2.0 *
      host.clockGHz / 1000.0;
  host.description = (model.empty() ? std::string("unknown CPU") : model) +
                     " (detected; bandwidth and FMA units from " + base->name +
                     ")";
  return host;
}

TargetDesc restrictToCores(TargetDesc target, int64_t cores) {
  if (target.isGpu() || cores < 1 || cores >= target.computeUnits)
    return target;
  double scale = double(cores) / double(target.computeUnits);
  for (double &peak : target.peakTflops)
    peak *= scale;
  target.computeUnits = cores;
  return target;
}

} // namespace quilt
