//===- SelectBench.cpp - Cost of run-time kernel selection ----------------===//
//
// Part of the Quilt project. Measures what the generated host code pays per
// call: quilt_select_kernel over all default candidates (12-16, pruned) for
// one shape, on GPU targets (with the patch search) and on the detected
// host; and the worst shape of a deterministic sweep. The figures go into
// docs/cost-model.md.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Candidates.h"
#include "CostModel/CostModel.h"
#include "CostModel/Dispatch.h"
#include "CostModel/TargetDatabase.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace quilt;

namespace {

const GemmShape kShapes[] = {
    {1, 1000, 768, 3072},    // BERT-like, ragged M
    {1, 35, 8457, 4096},     // MikPoly: skinny
    {192, 43, 64, 43},       // attention batch
    {1, 8191, 1000, 513},    // odd everything
    {1, 1040, 8192, 8192},   // large: patched on h100 f16
    {178, 292, 1920, 35637}, // batched, long K: searches five tile groups
    {1, 209, 13840, 7422},   // skinny, wide N: many main kernels to try
};

/// Prepared once per (target, element type), as the compiler would.
const PreparedTable &tableFor(const char *target, ElemType elem) {
  static std::map<std::pair<std::string, int>, PreparedTable> tables;
  auto key = std::make_pair(std::string(target), int(elem));
  auto it = tables.find(key);
  if (it == tables.end()) {
    const TargetDesc *desc = TargetDatabase::builtin().lookup(target);
    PreparedTable table;
    std::string error;
    if (!desc || !prepareTable(generateCandidates(OpKind::Matmul, elem, *desc),
                               elem, *desc, desc->calibration, table, error)) {
      std::fprintf(stderr, "cannot prepare %s: %s\n", target, error.c_str());
      std::exit(1);
    }
    it = tables.emplace(key, table).first;
  }
  return it->second;
}

void selectOneShape(benchmark::State &state, const char *target,
                    ElemType elem) {
  const PreparedTable &table = tableFor(target, elem);
  const GemmShape &s = kShapes[state.range(0)];
  quilt_selection out;
  for (auto _ : state) {
    int status = quilt_select_kernel(quilt_table_handle(&table), s.b, s.m, s.n,
                                     s.k, &out);
    benchmark::DoNotOptimize(status);
    benchmark::DoNotOptimize(out);
  }
  state.counters["candidates"] = table.count;
  state.counters["patched"] = out.patch_dim != QUILT_PATCH_NONE;
}

void BM_SelectH100F16(benchmark::State &state) {
  selectOneShape(state, "h100", ElemType::F16);
}
void BM_SelectH100F32(benchmark::State &state) {
  selectOneShape(state, "h100", ElemType::F32);
}
void BM_SelectMi300xF32(benchmark::State &state) {
  selectOneShape(state, "mi300x", ElemType::F32);
}
void BM_SelectHostF32(benchmark::State &state) {
  selectOneShape(state, "host", ElemType::F32);
}

/// The argmin alone through the one-candidate API (what `explain` uses):
/// one scalar model evaluation per candidate, no patch search.
void BM_EvaluateAllH100F16(benchmark::State &state) {
  const PreparedTable &table = tableFor("h100", ElemType::F16);
  const GemmShape &s = kShapes[state.range(0)];
  for (auto _ : state) {
    double best = 1e300;
    for (int i = 0; i < table.count; ++i)
      best = std::min(best, evaluateCandidate(table, i, s));
    benchmark::DoNotOptimize(best);
  }
  state.counters["candidates"] = table.count;
}

/// Every shape of a deterministic sweep (log-uniform dims up to 2^16, a
/// quarter of them batched) timed on its own, the fastest of a few runs of
/// many calls each: the counters give the median and the worst shape. The
/// benchmark's own time is that of the whole sweep.
void sweep(benchmark::State &state, const char *target, ElemType elem) {
  const PreparedTable &table = tableFor(target, elem);
  std::vector<GemmShape> shapes;
  uint64_t x = 0x2545f4914f6cdd1dull;
  auto next = [&] {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return x;
  };
  auto dim = [&](int maxLog) {
    int64_t base = int64_t(1) << (next() % uint64_t(maxLog + 1));
    return base + int64_t(next() % uint64_t(base));
  };
  for (int i = 0; i < 500; ++i) {
    int64_t b = next() % 4 == 0 ? dim(8) : 1;
    shapes.push_back({b, dim(16), dim(16), dim(16)});
  }
  constexpr int kCalls = 100, kRuns = 5;
  std::vector<double> ns(shapes.size());
  Selection sel;
  for (auto _ : state)
    for (size_t i = 0; i < shapes.size(); ++i) {
      double fastest = 1e300;
      for (int run = 0; run < kRuns; ++run) {
        auto start = std::chrono::steady_clock::now();
        for (int call = 0; call < kCalls; ++call) {
          benchmark::DoNotOptimize(selectKernel(table, shapes[i], sel));
          benchmark::ClobberMemory();
        }
        std::chrono::duration<double, std::nano> took =
            std::chrono::steady_clock::now() - start;
        fastest = std::min(fastest, took.count() / kCalls);
      }
      ns[i] = fastest;
    }
  std::vector<double> sorted = ns;
  std::sort(sorted.begin(), sorted.end());
  size_t worst = size_t(std::max_element(ns.begin(), ns.end()) - ns.begin());
  state.counters["median_ns"] = sorted[sorted.size() / 2];
  state.counters["p99_ns"] = sorted[sorted.size() * 99 / 100];
  state.counters["max_ns"] = sorted.back();
  state.SetLabel("worst b=" + std::to_string(shapes[worst].b) +
                 " m=" + std::to_string(shapes[worst].m) +
                 " n=" + std::to_string(shapes[worst].n) +
                 " k=" + std::to_string(shapes[worst].k));
}

} // namespace

constexpr int kLastShape = int(std::size(kShapes)) - 1;
BENCHMARK(BM_SelectH100F16)->DenseRange(0, kLastShape);
BENCHMARK(BM_SelectH100F32)->DenseRange(0, kLastShape);
BENCHMARK(BM_SelectMi300xF32)->DenseRange(0, kLastShape);
BENCHMARK(BM_SelectHostF32)->DenseRange(0, kLastShape);
BENCHMARK(BM_EvaluateAllH100F16)->DenseRange(0, kLastShape);
BENCHMARK_CAPTURE(sweep, h100_f16, "h100", ElemType::F16)->Iterations(1);
BENCHMARK_CAPTURE(sweep, h100_f32, "h100", ElemType::F32)->Iterations(1);
BENCHMARK_CAPTURE(sweep, a100_f16, "a100", ElemType::F16)->Iterations(1);
BENCHMARK_CAPTURE(sweep, mi300x_f32, "mi300x", ElemType::F32)->Iterations(1);
BENCHMARK_CAPTURE(sweep, host_f32, "host", ElemType::F32)->Iterations(1);

BENCHMARK_MAIN();
