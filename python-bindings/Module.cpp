//===- Module.cpp - The `quilt` Python module -----------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

using namespace quilt::python;

PYBIND11_MODULE(quilt, m) {
  m.doc() = "Quilt: dynamic-shape linalg contractions compiled to "
            "hardware-selected micro-kernels, chosen at run time by an "
            "analytic cost model. See docs/python.md.";
  py::register_exception<Error>(m, "Error", PyExc_RuntimeError);
  bindAnalysis(m);
  bindCompiler(m);
  bindLoader(m);
}
