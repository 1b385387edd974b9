//===- ProbeKernels.cpp - Any configuration, compiled and timed -----------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Measurement/ProbeKernels.h"
#include "CostModel/Candidates.h"
#include "CostModel/TuningDatabase.h"
#include "Measurement/Reference.h"
#include "Measurement/Timing.h"
#include "QuiltRuntime.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace quilt::bench {

namespace {
/// The fewest default candidates a probe library can have: the dispatch
/// needs one; the probes are what is measured.
constexpr int kProbeDefaults = 1;

/// Probes and failures are kept per kind of workload (one library serves
/// every shape of a kind) and configuration.
std::string probeKey(const Workload &workload, const KernelConfig &cfg) {
  return BenchKernel::keyFor(workload) + " " + cfg.str();
}
} // namespace

ProbeKernels::ProbeKernels(const CompileOptions &base, const TargetDesc &target,
                           int threads, std::string directory)
    : base(base), target(target), threads(threads),
      directory(std::move(directory)) {
  this->base.maxCandidates = kProbeDefaults;
  this->base.policy = "cost_model";
}

ProbeKernels::~ProbeKernels() { quilt_rt_force_kernel(-1); }

ProbeKernels::Library
ProbeKernels::compile(const Workload &workload,
                      const std::vector<KernelConfig> &configs,
                      const std::string &dir) const {
  Library library;
  std::filesystem::create_directories(dir);
  // The configurations as a tuning database for this target: compiling
  // with it appends them to the dispatch's candidates.
  TuningDatabase db;
  db.path = dir + "/probes.db";
  db.target = target.name;
  db.targetDescription = target.description;
  db.threads = threads;
  for (const KernelConfig &cfg : configs) {
    TuningEntry entry;
    entry.op = workload.op;
    entry.elem = workload.elem;
    entry.region = ShapeRegion::exactly(workload.gemm);
    entry.config = cfg;
    db.entries.push_back(entry);
  }
  {
    std::ofstream out(db.path);
    out << db.render();
    if (!out) {
      library.error = "cannot write " + db.path;
      return library;
    }
  }
  // Their indices, as the compiler will number them (the same functions).
  std::vector<KernelConfig> candidates = generateCandidates(
      workload.op, workload.elem, target, CandidateOptions{kProbeDefaults});
  std::vector<TunedRegion> regions;
  if (!addTunedCandidates(db, workload.op, workload.elem, "none", candidates,
                          regions, library.error))
    return library;
  for (const KernelConfig &cfg : configs)
    library.indices.push_back(
        int32_t(std::find(candidates.begin(), candidates.end(), cfg) -
                candidates.begin()));

  CompileOptions options = base;
  options.tuningDb = db.path;
  library.kernel = BenchKernel::compile(workload, /*microKernels=*/true,
                                        threads, options, dir, library.error);
  return library;
}

void ProbeKernels::prepare(const Workload &workload,
                           const std::vector<KernelConfig> &configs, int jobs) {
  std::vector<KernelConfig> missing;
  for (const KernelConfig &cfg : configs)
    if (!probes.count(probeKey(workload, cfg)) &&
        !failures.count(probeKey(workload, cfg)) &&
        std::find(missing.begin(), missing.end(), cfg) == missing.end())
      missing.push_back(cfg);
  if (missing.empty())
    return;
  jobs = std::max(1, std::min<int>(jobs, int(missing.size())));
  std::vector<std::vector<KernelConfig>> parts(jobs);
  for (size_t i = 0; i < missing.size(); ++i)
    parts[i % jobs].push_back(missing[i]);
  std::vector<Library> built(jobs);
  auto start = std::chrono::steady_clock::now();
  {
    std::vector<std::thread> workers;
    for (int j = 0; j < jobs; ++j) {
      std::string dir =
          directory + "/probe-" + std::to_string(libraries.size() + j);
      workers.emplace_back(
          [&, j, dir] { built[j] = compile(workload, parts[j], dir); });
    }
    for (std::thread &worker : workers)
      worker.join();
  }
  compileTime +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  for (int j = 0; j < jobs; ++j) {
    for (size_t i = 0; i < parts[j].size(); ++i) {
      std::string name = probeKey(workload, parts[j][i]);
      if (built[j].kernel)
        probes[name] = Probe{built[j].kernel.get(), built[j].indices[i]};
      else
        failures[name] = "does not compile: " + built[j].error;
    }
    if (built[j].kernel)
      libraries.push_back(std::move(built[j].kernel));
  }
}

std::vector<std::optional<double>>
ProbeKernels::measure(const Workload &workload, Operands &operands,
                      const std::vector<KernelConfig> &configs, double minTime,
                      std::vector<std::string> &problems) {
  prepare(workload, configs, /*jobs=*/1);
  std::vector<std::optional<double>> times;
  for (const KernelConfig &cfg : configs) {
    std::string key = probeKey(workload, cfg);
    auto failed = failures.find(key);
    if (failed != failures.end()) {
      problems.push_back(cfg.str() + ": " + failed->second);
      times.push_back(std::nullopt);
      continue;
    }
    const Probe &probe = probes.at(key);
    quilt_rt_force_kernel(probe.index);
    // Checked on the first run for a shape only: a check between timings
    // would leave the caches cold for the next.
    if (verified.insert(cfg.str() + " on " + workload.str()).second) {
      poison(operands.out);
      probe.kernel->run(operands);
      double error = maxRelativeError(workload, operands);
      if (!(error <= kTolerance)) {
        failures[key] = "wrong result on " + workload.str() +
                        " (relative error " + std::to_string(error) + ")";
        problems.push_back(cfg.str() + ": " + failures[key]);
        times.push_back(std::nullopt);
        continue;
      }
    }
    times.push_back(
        medianMicros([&] { probe.kernel->run(operands); }, minTime));
  }
  quilt_rt_force_kernel(-1);
  return times;
}

} // namespace quilt::bench
