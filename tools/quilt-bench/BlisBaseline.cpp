//===- BlisBaseline.cpp - BLIS's sgemm as a baseline ----------------------===//
//
// Part of the Quilt project. BLIS is opened at run time, with its symbols
// kept local: its BLAS and CBLAS entry points share their names with
// OpenBLAS's, and linking both would leave one library answering for the
// other.
//
//===----------------------------------------------------------------------===//

#include "Baselines.h"

#include <dlfcn.h>

#ifdef QUILT_BLIS_LIBRARY
#include <blis.h>
#endif

namespace quilt::bench {

#ifdef QUILT_BLIS_LIBRARY

namespace {

// BLIS's typed API, declared by blis.h and looked up in the library.
using BlisSgemm = decltype(&bli_sgemm);
using BlisSetThreads = decltype(&bli_thread_set_num_threads);

class BlisBaseline : public SgemmBaseline {
public:
  explicit BlisBaseline(BlisSgemm gemm) : gemm(gemm) {}

  const char *name() const override { return "blis"; }

protected:
  void sgemm(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
             const float *b, int64_t ldb, float *c, int64_t ldc) override {
    float one = 1.0f, zero = 0.0f;
    // BLIS takes non-const pointers to inputs it only reads.
    gemm(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, &one,
         const_cast<float *>(a), lda, 1, const_cast<float *>(b), ldb, 1, &zero,
         c, ldc, 1);
  }

private:
  BlisSgemm gemm;
};

} // namespace

std::unique_ptr<LibraryBaseline> makeBlisBaseline(int threads,
                                                  std::string &error) {
  // Loaded once, never closed: BLIS keeps thread pools and per-architecture
  // contexts for the life of the process.
  static void *library = dlopen(QUILT_BLIS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    error = std::string("cannot load BLIS (") + QUILT_BLIS_LIBRARY +
            "): " + dlerror();
    return nullptr;
  }
  auto sgemm = reinterpret_cast<BlisSgemm>(dlsym(library, "bli_sgemm"));
  auto setThreads = reinterpret_cast<BlisSetThreads>(
      dlsym(library, "bli_thread_set_num_threads"));
  if (!sgemm || !setThreads) {
    error = std::string(QUILT_BLIS_LIBRARY) +
            " has no bli_sgemm or bli_thread_set_num_threads";
    return nullptr;
  }
  setThreads(threads);
  return std::make_unique<BlisBaseline>(sgemm);
}

#else

std::unique_ptr<LibraryBaseline> makeBlisBaseline(int, std::string &error) {
  error = "quilt-bench was built without BLIS (libblis-dev)";
  return nullptr;
}

#endif

} // namespace quilt::bench
