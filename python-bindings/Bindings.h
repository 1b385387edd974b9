//===- Bindings.h - The pieces of the `quilt` Python module -----*- C++ -*-===//
//
// Part of the Quilt project. The module is thin: every function wraps one
// C++ library call (the cost model, compileSource, runPipelineOnSource) or,
// for quilt.load, calls a compiled `_mlir_ciface_` entry point on numpy
// buffers. Each file binds one area.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_PYTHON_BINDINGS_H
#define QUILT_PYTHON_BINDINGS_H

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>

namespace quilt::python {

namespace py = pybind11;

/// Raised to Python as `quilt.Error` (a RuntimeError) with the full message,
/// diagnostics included.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// quilt.targets, quilt.explain.
void bindAnalysis(py::module_ &m);
/// quilt.compile, quilt.run_pipeline.
void bindCompiler(py::module_ &m);
/// quilt.load and the callable it returns.
void bindLoader(py::module_ &m);

} // namespace quilt::python

#endif // QUILT_PYTHON_BINDINGS_H
