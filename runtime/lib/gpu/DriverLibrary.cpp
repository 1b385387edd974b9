//===- DriverLibrary.cpp - The GPU driver, opened at run time -------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "DriverLibrary.h"

#include <dlfcn.h>

namespace quilt::gpu {

Error DriverLibrary::open(const char *what, const std::string &override,
                          std::initializer_list<const char *> candidates) {
  what_ = what;
  std::string names, reasons;
  auto tryOne = [&](const char *name) {
    // RTLD_LOCAL: the driver's symbols stay out of the global namespace.
    handle_ = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle_) {
      path_ = name;
      return true;
    }
    const char *why = dlerror();
    names += names.empty() ? name : std::string(" or ") + name;
    reasons += reasons.empty() ? "" : "; ";
    reasons += why ? why : "unknown dlopen error";
    return false;
  };
  if (!override.empty()) {
    if (tryOne(override.c_str()))
      return Error::success();
  } else {
    for (const char *name : candidates)
      if (tryOne(name))
        return Error::success();
  }
  return Error::make(QUILT_GPU_ERROR_NO_DRIVER,
                     what_ + " " + names + " not found: " + reasons);
}

void *DriverLibrary::lookup(const char *symbol) const {
  return handle_ ? dlsym(handle_, symbol) : nullptr;
}

Error DriverLibrary::missingSymbols(const std::string &missing) const {
  return Error::make(QUILT_GPU_ERROR_NO_DRIVER,
                     what_ + " " + path_ + " lacks " + missing +
                         " (a driver older than the headers this runtime "
                         "was built with?)");
}

} // namespace quilt::gpu
