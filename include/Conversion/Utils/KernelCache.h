//===- KernelCache.h - Compiled code, kept between compiles ----*- C++ -*-===//
//
// Part of the Quilt project. A directory of compiled code (GPU kernels,
// host objects) named by a hash of everything that determines it, so that
// recompiling a program (or another with the same kernels) reuses it.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_UTILS_KERNELCACHE_H
#define QUILT_CONVERSION_UTILS_KERNELCACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <system_error>

namespace mlir {
class Operation;
} // namespace mlir

namespace quilt {

class KernelCache {
public:
  /// A cache in `directory`; an empty directory is a cache that never hits
  /// and keeps nothing.
  explicit KernelCache(std::string directory)
      : directory(std::move(directory)) {}

  bool enabled() const { return !directory.empty(); }
  llvm::StringRef getDirectory() const { return directory; }

  /// Creates the directory; an error says why it cannot be.
  std::error_code prepare() const;

  /// The entry `key` + `suffix` (".ptx", ".cubin"), if kept.
  std::optional<std::string> lookup(llvm::StringRef key,
                                    llvm::StringRef suffix) const;

  /// Keeps `contents` as entry `key` + `suffix`. Written to a private file
  /// and renamed into place, so that concurrent compiles never read half an
  /// entry.
  std::error_code store(llvm::StringRef key, llvm::StringRef suffix,
                        llvm::StringRef contents) const;

  /// The BLAKE3 hash (hex) of `parts`, each length-prefixed. BLAKE3, not
  /// SHA-256: a GPU compile whose kernels are all cached hashes about 100 MB
  /// of IR, at 150 MB/s with LLVM's SHA-256 and 2 GB/s with its BLAKE3.
  static std::string hash(llvm::ArrayRef<llvm::StringRef> parts);

  /// What identifies the code generator: the LLVM version and the LLVM and
  /// MLIR libraries this process runs (path, size, modification time), so a
  /// rebuilt or upgraded LLVM never reuses another one's output.
  static const std::string &codeGeneratorIdentity();

  /// Path, size and modification time of `path` ("" when it does not exist).
  static std::string fileIdentity(llvm::StringRef path);

  /// The shared library or executable holding the code at `address`.
  static std::string fileHolding(const void *address);

  /// The BLAKE3 hash (32 raw bytes) of `op`'s text in MLIR's generic form,
  /// without locations and with SSA names local to it, so the same op has
  /// the same fingerprint wherever it is. The text goes from the printer
  /// into the hash and is never held whole.
  static std::string fingerprint(mlir::Operation *op);

private:
  std::string directory;
};

/// The cache in `directory` (none when empty), its directory created; nullopt
/// after reporting at `op` why it cannot be.
std::optional<KernelCache> openKernelCache(mlir::Operation *op,
                                           llvm::StringRef directory);

} // namespace quilt

#endif // QUILT_CONVERSION_UTILS_KERNELCACHE_H
