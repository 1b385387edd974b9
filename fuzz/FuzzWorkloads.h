//===- FuzzWorkloads.h - What the reader fuzzers exercise a file with ----===//
//
// Part of the Quilt project. A file that parses is only half the question:
// the targets, tuning entries and residual trees it describes must also
// survive the code that reads them (candidate enumeration, pruning,
// selection, explain). These workloads cover every op kind and element
// type, the edge sizes (0, 1, primes) and sizes that are no multiple of any
// tile, as the execution tests do.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_FUZZ_FUZZWORKLOADS_H
#define QUILT_FUZZ_FUZZWORKLOADS_H

#include "CostModel/Explain.h"
#include "CostModel/Workload.h"

#include <cstdlib>
#include <cstdio>
#include <string>
#include <vector>

namespace quilt::fuzz {

inline const std::vector<Workload> &fuzzWorkloads() {
  static const std::vector<Workload> workloads = [] {
    const char *lines[] = {
        "matmul f16 M=1 N=7 K=13",
        "matmul f32 M=130 N=70 K=0",
        "matmul bf16 M=4099 N=3 K=257",
        "matmul f64 M=65 N=129 K=33",
        "batch_matmul f16 B=3 M=257 N=64 K=257",
        "conv2d_nhwc f16 N=1 H=9 W=9 C=8 F=16 R=3 S=3 stride=2 pad=0",
        "conv2d_nchw f32 N=2 H=7 W=11 C=3 F=5 R=1 S=1 stride=1 pad=0",
    };
    std::vector<Workload> out;
    for (const char *line : lines) {
      Workload workload;
      std::string error;
      if (!parseWorkload(line, workload, error)) {
        std::fprintf(stderr, "fuzz workload '%s': %s\n", line, error.c_str());
        std::abort();
      }
      out.push_back(workload);
    }
    return out;
  }();
  return workloads;
}

/// A rejection must say why: an empty error is a bug the fuzzer reports.
inline void requireReason(bool ok, const std::string &error,
                          const char *what) {
  if (!ok && error.empty()) {
    std::fprintf(stderr, "%s failed without an error message\n", what);
    std::abort();
  }
}

/// Explains every workload of fuzzWorkloads() on `target` with `options`
/// (what compiling for it does first: candidates, pruning, selection) and
/// renders each report; a refusal must say why.
inline void explainEveryWorkload(const TargetDesc &target,
                                 const ExplainOptions &options) {
  for (const Workload &workload : fuzzWorkloads()) {
    ExplainReport report;
    std::string error;
    bool explained = explainWorkload(workload, target, options, report, error);
    requireReason(explained, error, "explainWorkload");
    if (explained)
      (void)renderExplainText(report);
  }
}

} // namespace quilt::fuzz

#endif // QUILT_FUZZ_FUZZWORKLOADS_H
