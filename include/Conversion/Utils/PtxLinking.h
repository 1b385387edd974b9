//===- PtxLinking.h - Link the PTX of kernels compiled apart ----*- C++ -*-===//
//
// Part of the Quilt project. Quilt compiles the kernels of a device module
// one by one (so that each can come from the kernel cache) and the program
// still loads one PTX module: this joins them.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_UTILS_PTXLINKING_H
#define QUILT_CONVERSION_UTILS_PTXLINKING_H

#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <string>

namespace quilt {

/// Joins PTX modules that NVPTX emitted for parts of one device module (each
/// kernel with the functions and variables it uses) into one module.
///
/// The modules must agree on `.version`, `.target` and `.address_size`. A
/// function or variable several parts define is kept once when the
/// definitions are the same text; an internal one defined differently (the
/// optimizer specialized a helper per kernel) is renamed in the later part.
/// Two different definitions of one visible symbol cannot be joined. Each
/// part's statements keep their order, so everything stays declared before
/// its use. Returns nullopt and sets `error` when the parts cannot be joined.
std::optional<std::string> linkPtxModules(llvm::ArrayRef<std::string> modules,
                                          std::string &error);

} // namespace quilt

#endif // QUILT_CONVERSION_UTILS_PTXLINKING_H
