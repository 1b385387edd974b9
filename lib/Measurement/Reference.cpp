//===- Reference.cpp - Checks results against a double reference ----------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Measurement/Reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace quilt::bench {

namespace {

/// Exact value and magnitude of one output element.
struct ExactElement {
  double value = 0, magnitude = 0;
  void add(double a, double b) {
    value += a * b;
    magnitude += std::fabs(a * b);
  }
};

ExactElement exactAt(const Workload &w, const Operands &o, int64_t index) {
  ExactElement e;
  const std::vector<int64_t> &os = o.out.shape();
  switch (w.op) {
  case OpKind::Matmul:
  case OpKind::BatchMatmul: {
    int64_t n = w.gemm.n, m = w.gemm.m, k = w.gemm.k;
    int64_t b = index / (m * n), i = index / n % m, j = index % n;
    const float *a = o.lhs.floats() + b * m * k;
    const float *bb = o.rhs.floats() + b * k * n;
    for (int64_t p = 0; p < k; ++p)
      e.add(a[i * k + p], bb[p * n + j]);
    break;
  }
  case OpKind::Conv2dNhwcHwcf: {
    const ConvParams &c = *w.conv;
    const std::vector<int64_t> &is = o.lhs.shape();
    int64_t f = index % os[3], ow = index / os[3] % os[2],
            oh = index / (os[3] * os[2]) % os[1],
            n = index / (os[3] * os[2] * os[1]);
    for (int64_t r = 0; r < c.r; ++r)
      for (int64_t s = 0; s < c.s; ++s)
        for (int64_t ch = 0; ch < c.c; ++ch) {
          int64_t y = oh * c.stride + r, x = ow * c.stride + s;
          e.add(o.lhs.at(((n * is[1] + y) * is[2] + x) * is[3] + ch),
                o.rhs.at(((r * c.s + s) * c.c + ch) * c.f + f));
        }
    break;
  }
  case OpKind::Conv2dNchwFchw: {
    const ConvParams &c = *w.conv;
    const std::vector<int64_t> &is = o.lhs.shape();
    int64_t ow = index % os[3], oh = index / os[3] % os[2],
            f = index / (os[3] * os[2]) % os[1],
            n = index / (os[3] * os[2] * os[1]);
    for (int64_t ch = 0; ch < c.c; ++ch)
      for (int64_t r = 0; r < c.r; ++r)
        for (int64_t s = 0; s < c.s; ++s) {
          int64_t y = oh * c.stride + r, x = ow * c.stride + s;
          e.add(o.lhs.at(((n * is[1] + ch) * is[2] + y) * is[3] + x),
                o.rhs.at(((f * c.c + ch) * c.r + r) * c.s + s));
        }
    break;
  }
  }
  return e;
}

} // namespace

void poison(HostTensor &out) {
  out.fill(std::numeric_limits<float>::quiet_NaN());
}

double maxRelativeError(const Workload &w, const Operands &o, int samples) {
  int64_t count = o.out.numElements();
  std::vector<int64_t> indices;
  if (count <= samples) {
    for (int64_t i = 0; i < count; ++i)
      indices.push_back(i);
  } else {
    std::mt19937_64 rng(12345);
    std::uniform_int_distribution<int64_t> pick(0, count - 1);
    indices = {0, count - 1}; // corners catch boundary-tile bugs
    while (static_cast<int>(indices.size()) < samples)
      indices.push_back(pick(rng));
  }
  double worst = 0;
  for (int64_t index : indices) {
    ExactElement e = exactAt(w, o, index);
    double error = std::fabs(double(o.out.at(index)) - e.value) /
                   std::max(e.magnitude, 1e-30);
    if (e.magnitude == 0)
      error = std::fabs(o.out.at(index));
    if (!(error <= worst)) // catches NaN too
      worst = std::isnan(error) ? INFINITY : error;
  }
  return worst;
}

#ifdef QUILT_HAVE_OPENMP
extern "C" int omp_get_max_threads(void);
// Referencing the runtime keeps libomp a dependency of quilt-bench, so that
// the kernels' OpenMP calls resolve when their libraries are loaded.
bool haveOpenMP() { return omp_get_max_threads() > 0; }
#else
bool haveOpenMP() { return false; }
#endif

} // namespace quilt::bench
