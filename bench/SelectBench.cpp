//===- SelectBench.cpp - Cost of run-time kernel selection ----------------===//
//
// Part of the Quilt project. Measures what the generated host code pays per
// call: quilt_select_kernel over all default candidates (16, pruned) for one
// shape, on a GPU target (h100, with the patch search) and on the detected
// host. The figure goes into docs/cost-model.md.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Candidates.h"
#include "CostModel/CostModel.h"
#include "CostModel/Dispatch.h"
#include "CostModel/TargetDatabase.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

using namespace quilt;

namespace {

const GemmShape kShapes[] = {
    {1, 1000, 768, 3072}, // BERT-like, ragged M
    {1, 35, 8457, 4096},  // MikPoly: skinny
    {192, 43, 64, 43},    // attention batch
    {1, 8191, 1000, 513}, // odd everything
    {1, 1040, 8192, 8192} // large: the patch search runs to the end
};

/// Prepared once per (target, element type), as the compiler would.
const PreparedTable &tableFor(const char *target, ElemType elem) {
  static PreparedTable tables[2][3];
  static bool ready[2][3];
  int t = target[0] == 'h' && target[1] == '1' ? 0 : 1;
  int e = int(elem);
  if (!ready[t][e]) {
    const TargetDesc *desc = TargetDatabase::builtin().lookup(target);
    std::string error;
    if (!desc ||
        !prepareTable(generateCandidates(OpKind::Matmul, elem, *desc), elem,
                      *desc, desc->calibration, tables[t][e], error)) {
      std::fprintf(stderr, "cannot prepare %s: %s\n", target, error.c_str());
      std::exit(1);
    }
    ready[t][e] = true;
  }
  return tables[t][e];
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
void BM_SelectHostF32(benchmark::State &state) {
  selectOneShape(state, "host", ElemType::F32);
}

/// The argmin alone: one model evaluation per candidate, no patch search.
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

} // namespace

BENCHMARK(BM_SelectH100F16)->DenseRange(0, 4);
BENCHMARK(BM_SelectH100F32)->DenseRange(0, 4);
BENCHMARK(BM_SelectHostF32)->DenseRange(0, 4);
BENCHMARK(BM_EvaluateAllH100F16)->DenseRange(0, 4);

BENCHMARK_MAIN();
