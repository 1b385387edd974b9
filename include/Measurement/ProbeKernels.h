//===- ProbeKernels.h - Any configuration, compiled and timed ---*- C++ -*-===//
//
// Part of the Quilt project. `quiltc tune` measures configurations that are
// not among a dispatch's default candidates. They are compiled the way a
// user's program gets them: listed in a tuning database, which adds them
// to the dispatch's candidates (ukernel-apply-tuning-db); each one then
// runs by forcing its candidate index (quilt_rt_force_kernel). A library is
// compiled per batch of new configurations, and kept: a configuration is
// compiled once per kind of workload, whatever shape it is measured on.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_MEASUREMENT_PROBEKERNELS_H
#define QUILT_MEASUREMENT_PROBEKERNELS_H

#include "CostModel/KernelConfig.h"
#include "CostModel/Target.h"
#include "Measurement/BenchKernels.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace quilt::bench {

class ProbeKernels {
public:
  /// `base` names the target (and target file); the kernels run on
  /// `threads` threads. Libraries are written under `directory`.
  ProbeKernels(const CompileOptions &base, const TargetDesc &target,
               int threads, std::string directory);
  ~ProbeKernels();

  /// Compiles the configurations of `workload`'s kind not compiled yet, in
  /// `jobs` libraries built at once (each on its own thread).
  void prepare(const Workload &workload,
               const std::vector<KernelConfig> &configs, int jobs = 2);

  /// Times each configuration on `workload` (median over at least
  /// `minTime` seconds, microseconds), after checking its output against
  /// the reference. A configuration that does not compile or computes a
  /// wrong result has no time, and `problems` says why (and a wrong one
  /// is never run again).
  std::vector<std::optional<double>>
  measure(const Workload &workload, Operands &operands,
          const std::vector<KernelConfig> &configs, double minTime,
          std::vector<std::string> &problems);

  int librariesCompiled() const { return int(libraries.size()); }
  double compileSeconds() const { return compileTime; }

private:
  struct Probe {
    const BenchKernel *kernel = nullptr;
    int32_t index = 0;
  };
  /// One library holding some configurations, and their indices in it.
  struct Library {
    std::unique_ptr<BenchKernel> kernel;
    std::vector<int32_t> indices;
    std::string error;
  };
  /// Compiles one library holding `configs` for `workload`'s kind under
  /// `dir`; touches no member, so that several run at once.
  Library compile(const Workload &workload,
                  const std::vector<KernelConfig> &configs,
                  const std::string &dir) const;

  CompileOptions base;
  TargetDesc target;
  int threads;
  std::string directory;
  /// Keyed by the workload's kind and the configuration (probeKey).
  std::map<std::string, Probe> probes;
  std::map<std::string, std::string> failures;
  /// "<config> on <workload>" whose output was checked.
  std::set<std::string> verified;
  std::vector<std::unique_ptr<BenchKernel>> libraries;
  double compileTime = 0;
};

} // namespace quilt::bench

#endif // QUILT_MEASUREMENT_PROBEKERNELS_H
