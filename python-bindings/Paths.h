//===- Paths.h - Files the Python module reads and writes -------*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_PYTHON_PATHS_H
#define QUILT_PYTHON_PATHS_H

#include <string>

namespace quilt::python {

/// The directory of the libquilt_runtime.so this module is linked against:
/// shared libraries compiled from Python link (and find at run time) the
/// same one, in a build tree or an installed prefix alike.
std::string runtimeLibraryDir();

/// A new, empty temporary file for a shared library nobody named.
std::string temporaryLibraryPath();

} // namespace quilt::python

#endif // QUILT_PYTHON_PATHS_H
