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

} // namespace quilt::bench

#endif // QUILT_MEASUREMENT_TIMING_H
