//===- Timing.h - How long a compiled kernel takes --------------*- C++ -*-===//
//
// Part of the Quilt project. One way of timing for quilt-bench and
// `quiltc tune`, so that their figures compare.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_MEASUREMENT_TIMING_H
#define QUILT_MEASUREMENT_TIMING_H

#include <algorithm>
#include <chrono>
#include <vector>

namespace quilt::bench {

/// Median time of `run` in microseconds: one warm-up, then repetitions until
/// `minTime` seconds (at least 3, at most 50; a single repetition when one
/// run alone takes over a second).
template <typename Fn> double medianMicros(Fn run, double minTime) {
  using Clock = std::chrono::steady_clock;
  auto time = [&] {
    auto start = Clock::now();
    run();
    return std::chrono::duration<double, std::micro>(Clock::now() - start)
        .count();
  };
  double first = time();
  std::vector<double> samples;
  if (first > 1e6)
    return first;
  double total = 0;
  while (samples.size() < 3 || (total < minTime * 1e6 && samples.size() < 50)) {
    samples.push_back(time());
    total += samples.back();
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

/// Times `count` alternatives (`run(i)` runs alternative i) for comparison
/// with each other: `rounds` passes over all of them, each starting one
/// further along, each timing every alternative with medianMicros for
/// `minTime / rounds`; an alternative's time is its median over the
/// passes. On a shared machine the speed drifts over seconds (on this
/// project's VM, the same candidate on the same attention product by 6% on
/// average and up to 40%; docs/benchmarks.md, "Host, against oneDNN, BLIS
/// and OpenBLAS"): timed one after another, alternatives far apart in the
/// order would compare different moments, not kernels.
template <typename Fn>
std::vector<double> interleavedMedianMicros(size_t count, Fn run,
                                            double minTime, int rounds = 3) {
  std::vector<std::vector<double>> samples(count);
  for (int round = 0; round < rounds; ++round)
    for (size_t step = 0; step < count; ++step) {
      size_t i = (step + size_t(round)) % count;
      samples[i].push_back(medianMicros([&] { run(i); }, minTime / rounds));
    }
  std::vector<double> medians;
  for (std::vector<double> &s : samples) {
    std::sort(s.begin(), s.end());
    medians.push_back(s.empty() ? 0.0 : s[s.size() / 2]);
  }
  return medians;
}

} // namespace quilt::bench

#endif // QUILT_MEASUREMENT_TIMING_H
