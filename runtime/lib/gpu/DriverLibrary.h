//===- DriverLibrary.h - The GPU driver, opened at run time -----*- C++ -*-===//
//
// Part of the Quilt project. The runtime is built from the driver's headers
// alone and opens the driver with dlopen on first use: a program linked
// against it starts on a machine without a GPU, and its first GPU call
// says which library is missing instead of the loader refusing to start.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_RUNTIME_GPU_DRIVERLIBRARY_H
#define QUILT_RUNTIME_GPU_DRIVERLIBRARY_H

#include "Backend.h"

#include <initializer_list>
#include <string>

namespace quilt::gpu {

/// Spells a (possibly macro-renamed, e.g. cuMemAlloc -> cuMemAlloc_v2)
/// driver function's symbol.
#define QUILT_GPU_SYMBOL_NAME_(x) #x
#define QUILT_GPU_SYMBOL_NAME(x) QUILT_GPU_SYMBOL_NAME_(x)

class DriverLibrary {
public:
  /// Opens `override` when not empty, else the first of `candidates` that
  /// loads. On failure: QUILT_GPU_ERROR_NO_DRIVER, "<what> <names> not
  /// found: <dlerror of each>".
  Error open(const char *what, const std::string &override,
             std::initializer_list<const char *> candidates);

  /// The address of `symbol`, or null.
  void *lookup(const char *symbol) const;

  /// Resolves `symbol` into `fn`; on failure appends it to `missing`.
  template <typename Fn>
  void resolve(const char *symbol, Fn &fn, std::string &missing) const {
    fn = reinterpret_cast<Fn>(lookup(symbol));
    if (!fn)
      missing += missing.empty() ? symbol : std::string(", ") + symbol;
  }

  /// "<what> <path> lacks <missing> (a driver older than the headers this
  /// runtime was built with?)".
  Error missingSymbols(const std::string &missing) const;

  const std::string &path() const { return path_; }

private:
  void *handle_ = nullptr;
  std::string what_;
  std::string path_;
};

} // namespace quilt::gpu

#endif // QUILT_RUNTIME_GPU_DRIVERLIBRARY_H
