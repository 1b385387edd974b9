//===- MemRef.cpp - numpy arrays as MLIR memref descriptors ---------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "MemRef.h"

#include <cstdlib>

namespace quilt::python {

MemRefDescriptor MemRefDescriptor::forArray(const py::array &array) {
  int64_t rank = array.ndim();
  MemRefDescriptor d(rank);
  auto pointer = reinterpret_cast<int64_t>(array.data());
  d.words[0] = d.words[1] = pointer;
  int64_t stride = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    d.words[3 + i] = array.shape(i);
    d.words[3 + rank + i] = stride;
    stride *= std::max<int64_t>(array.shape(i), 1);
  }
  return d;
}

py::array takeResult(const MemRefDescriptor &result, const std::string &dtype,
                     const std::vector<ArgumentRange> &arguments) {
  py::dtype type(dtype);
  int64_t itemSize = type.itemsize();
  std::vector<py::ssize_t> shape, strides;
  bool empty = false;
  for (int64_t i = 0; i < result.rank(); ++i) {
    shape.push_back(result.size(i));
    strides.push_back(result.stride(i) * itemSize);
    empty |= result.size(i) == 0;
  }
  const char *data = static_cast<const char *>(result.aligned());
  py::array out;
  if (empty || !data) {
    out = py::array(type, shape);
  } else {
    // Without a base object, pybind11 copies the data into a new array.
    out = py::array(type, shape, strides, data + result.offset() * itemSize);
    // A non-contiguous result would come back with its strides; callers
    // expect a plain row-major array.
    out = py::module_::import("numpy").attr("ascontiguousarray")(out);
  }

  auto *allocated = static_cast<const char *>(result.allocated());
  bool isGlobal = allocated == reinterpret_cast<const char *>(0xdeadbeef);
  bool aliasesArgument = false;
  for (const ArgumentRange &range : arguments)
    aliasesArgument |= allocated == range.begin ||
                       (allocated > range.begin && allocated < range.end);
  if (allocated && !isGlobal && !aliasesArgument)
    std::free(const_cast<char *>(allocated));
  return out;
}

} // namespace quilt::python
