//===- OpenBlasBaseline.cpp - OpenBLAS's sgemm as a baseline --------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Baselines.h"

#ifdef QUILT_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace quilt::bench {

#ifdef QUILT_HAVE_OPENBLAS

namespace {

class OpenBlasBaseline : public SgemmBaseline {
public:
  const char *name() const override { return "openblas"; }

protected:
  void sgemm(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
             const float *b, int64_t ldb, float *c, int64_t ldc) override {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a,
                lda, b, ldb, 0.0f, c, ldc);
  }
};

} // namespace

std::unique_ptr<LibraryBaseline> makeOpenBlasBaseline(int threads,
                                                      std::string &) {
  openblas_set_num_threads(threads);
  return std::make_unique<OpenBlasBaseline>();
}

#else

std::unique_ptr<LibraryBaseline> makeOpenBlasBaseline(int, std::string &error) {
  error = "quilt-bench was built without OpenBLAS (libopenblas-dev)";
  return nullptr;
}

#endif

} // namespace quilt::bench
