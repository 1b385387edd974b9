//===- Baselines.h - Libraries timed beside Quilt's kernels -----*- C++ -*-===//
//
// Part of the Quilt project. OpenBLAS, oneDNN and BLIS computing the same
// contraction as the compiled kernel, on the float values of the same
// operands, each output checked against the reference like Quilt's.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_TOOLS_QUILTBENCH_BASELINES_H
#define QUILT_TOOLS_QUILTBENCH_BASELINES_H

#include "Measurement/BenchKernels.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace quilt::bench {

/// One library computing workloads with its own kernels.
class LibraryBaseline {
public:
  virtual ~LibraryBaseline() = default;

  /// Its name in --baselines and in the JSON fields (`<name>_us`).
  virtual const char *name() const = 0;

  /// Gets ready to compute `workload` on `operands`, which must outlive the
  /// calls to run() (oneDNN creates its primitive for the shape here).
  virtual bool prepare(const Workload &workload, Operands &operands,
                       std::string &error) = 0;

  /// operands.out = lhs * rhs, overwritten (not accumulated).
  virtual void run() = 0;

  /// What prepare() spent building code for this shape, for a library that
  /// builds code per shape (oneDNN's primitive creation, its cache off).
  virtual std::optional<double> creationMicros() const { return std::nullopt; }
};

/// The libraries --baselines may name, in the order they are reported.
const std::vector<std::string> &libraryBaselineNames();

/// Whether quilt-bench was built with the library `name`.
bool haveLibraryBaseline(const std::string &name);

/// The library `name` on `threads` threads, or null and `error` saying why.
std::unique_ptr<LibraryBaseline>
makeLibraryBaseline(const std::string &name, int threads, std::string &error);

/// A BLAS-style library, asked for one routine: C = A x B for row-major f32
/// matrices with leading dimensions. Batches are one call per batch
/// element, convolutions im2col then one call (the im2col is part of the
/// timed work, as it is the library user's).
class SgemmBaseline : public LibraryBaseline {
public:
  bool prepare(const Workload &workload, Operands &operands,
               std::string &error) override;
  void run() override;

protected:
  virtual void sgemm(int64_t m, int64_t n, int64_t k, const float *a,
                     int64_t lda, const float *b, int64_t ldb, float *c,
                     int64_t ldc) = 0;

private:
  const Workload *workload = nullptr;
  Operands *operands = nullptr;
  std::vector<float> scratch; ///< im2col matrices
};

// Each library's constructor, in its own file; null and `error` when
// quilt-bench was built without it.
std::unique_ptr<LibraryBaseline> makeOpenBlasBaseline(int threads,
                                                      std::string &error);
std::unique_ptr<LibraryBaseline> makeOneDnnBaseline(int threads,
                                                    std::string &error);
std::unique_ptr<LibraryBaseline> makeBlisBaseline(int threads,
                                                  std::string &error);

} // namespace quilt::bench

#endif // QUILT_TOOLS_QUILTBENCH_BASELINES_H
