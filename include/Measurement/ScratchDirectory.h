//===- ScratchDirectory.h - A temporary directory for compiled kernels ----===//
//
// Part of the Quilt project. Where quilt-bench and `quiltc tune` write the
// libraries they compile and load; removed with everything in it when the
// object goes. Declare it before the kernels loaded from it, so that they
// are unloaded first.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_MEASUREMENT_SCRATCHDIRECTORY_H
#define QUILT_MEASUREMENT_SCRATCHDIRECTORY_H

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace quilt::bench {

class ScratchDirectory {
public:
  /// A new directory /tmp/<prefix>-XXXXXX; path() is empty when it could
  /// not be created.
  explicit ScratchDirectory(const std::string &prefix) {
    std::string pattern = "/tmp/" + prefix + "-XXXXXX";
    if (mkdtemp(pattern.data()))
      directory = pattern;
  }
  ~ScratchDirectory() {
    if (directory.empty())
      return;
    std::error_code ignored;
    std::filesystem::remove_all(directory, ignored);
  }
  ScratchDirectory(const ScratchDirectory &) = delete;
  ScratchDirectory &operator=(const ScratchDirectory &) = delete;

  const std::string &path() const { return directory; }

private:
  std::string directory;
};

} // namespace quilt::bench

#endif // QUILT_MEASUREMENT_SCRATCHDIRECTORY_H
