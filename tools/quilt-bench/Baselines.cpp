//===- Baselines.cpp - Libraries timed beside Quilt's kernels -------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Baselines.h"

#include <algorithm>

namespace quilt::bench {

const std::vector<std::string> &libraryBaselineNames() {
  static const std::vector<std::string> names = {"openblas", "onednn", "blis"};
  return names;
}

bool haveLibraryBaseline(const std::string &name) {
#ifdef QUILT_HAVE_OPENBLAS
  if (name == "openblas")
    return true;
#endif
#ifdef QUILT_HAVE_ONEDNN
  if (name == "onednn")
    return true;
#endif
#ifdef QUILT_HAVE_BLIS
  if (name == "blis")
    return true;
#endif
  return false;
}

std::unique_ptr<LibraryBaseline>
makeLibraryBaseline(const std::string &name, int threads, std::string &error) {
  if (name == "openblas")
    return makeOpenBlasBaseline(threads, error);
  if (name == "onednn")
    return makeOneDnnBaseline(threads, error);
  if (name == "blis")
    return makeBlisBaseline(threads, error);
  error = "unknown baseline '" + name + "'";
  return nullptr;
}

bool SgemmBaseline::prepare(const Workload &w, Operands &o, std::string &) {
  workload = &w;
  operands = &o;
  return true;
}

void SgemmBaseline::run() {
  const Workload &w = *workload;
  Operands &o = *operands;
  const GemmShape &g = w.gemm;
  float *out = o.out.floats();
  auto ld = [](int64_t columns) { return std::max<int64_t>(columns, 1); };
  switch (w.op) {
  case OpKind::Matmul:
  case OpKind::BatchMatmul:
    for (int64_t b = 0; b < g.b; ++b)
      sgemm(g.m, g.n, g.k, o.lhs.floats() + b * g.m * g.k, ld(g.k),
            o.rhs.floats() + b * g.k * g.n, ld(g.n), out + b * g.m * g.n,
            ld(g.n));
    return;
  case OpKind::Conv2dNhwcHwcf: {
    // im2col: rows (n, oh, ow), columns (r, s, c); the HWCF filter is
    // already the (R*S*C) x F matrix.
    const ConvParams &c = *w.conv;
    const std::vector<int64_t> &is = o.lhs.shape(), &os = o.out.shape();
    int64_t rows = os[0] * os[1] * os[2], cols = c.r * c.s * c.c;
    scratch.resize(size_t(rows * cols));
    const float *in = o.lhs.floats();
    for (int64_t row = 0; row < rows; ++row) {
      int64_t ow = row % os[2], oh = row / os[2] % os[1],
              n = row / (os[2] * os[1]);
      float *dst = scratch.data() + row * cols;
      for (int64_t r = 0; r < c.r; ++r)
        for (int64_t s = 0; s < c.s; ++s) {
          const float *src = in + ((n * is[1] + oh * c.stride + r) * is[2] +
                                   ow * c.stride + s) *
                                      is[3];
          std::copy(src, src + c.c, dst + (r * c.s + s) * c.c);
        }
    }
    sgemm(rows, c.f, cols, scratch.data(), ld(cols), o.rhs.floats(), ld(c.f),
          out, ld(c.f));
    return;
  }
  case OpKind::Conv2dNchwFchw: {
    // Per image: out[F x OH*OW] = filter[F x C*R*S] * im2col[C*R*S x OH*OW].
    const ConvParams &c = *w.conv;
    const std::vector<int64_t> &is = o.lhs.shape(), &os = o.out.shape();
    int64_t pixels = os[2] * os[3], depth = c.c * c.r * c.s;
    scratch.resize(size_t(depth * pixels));
    for (int64_t n = 0; n < os[0]; ++n) {
      const float *in = o.lhs.floats() + n * is[1] * is[2] * is[3];
      for (int64_t ch = 0; ch < c.c; ++ch)
        for (int64_t r = 0; r < c.r; ++r)
          for (int64_t s = 0; s < c.s; ++s) {
            float *dst = scratch.data() + ((ch * c.r + r) * c.s + s) * pixels;
            for (int64_t oh = 0; oh < os[2]; ++oh)
              for (int64_t ow = 0; ow < os[3]; ++ow)
                dst[oh * os[3] + ow] =
                    in[(ch * is[2] + oh * c.stride + r) * is[3] +
                       ow * c.stride + s];
          }
      sgemm(c.f, pixels, depth, o.rhs.floats(), ld(depth), scratch.data(),
            ld(pixels), out + n * c.f * pixels, ld(pixels));
    }
    return;
  }
  }
}

} // namespace quilt::bench
