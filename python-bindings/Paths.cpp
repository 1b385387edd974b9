//===- Paths.cpp - Files the Python module reads and writes ---------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Paths.h"
#include "Bindings.h"

#include "QuiltRuntime.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <dlfcn.h>

namespace quilt::python {

std::string runtimeLibraryDir() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&quilt_rt_select), &info) ||
      !info.dli_fname)
    throw Error("cannot locate libquilt_runtime.so (dladdr failed)");
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string temporaryLibraryPath() {
  llvm::SmallString<128> path;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("quilt", "so", fd, path))
    throw Error("cannot create a temporary file: " + ec.message());
  llvm::sys::fs::closeFile(fd);
  return path.str().str();
}

} // namespace quilt::python
