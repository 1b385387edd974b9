//===- MemRef.cpp - numpy arrays as MLIR memref descriptors ---------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "MemRef.h"

#include <cstdlib>
#include <cstring>

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

MemRefDescriptor MemRefDescriptor::fromWords(const void *words, int64_t rank) {
  MemRefDescriptor d(rank);
  std::memcpy(d.words.data(), words, byteSize(rank));
  return d;
}

py::array copyResult(const MemRefDescriptor &result, const std::string &dtype) {
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
  if (empty || !data)
    return py::array(type, shape);
  // Without a base object, pybind11 copies the data into a new array.
  py::array out(type, shape, strides, data + result.offset() * itemSize);
  // A non-contiguous result would come back with its strides; callers
  // expect a plain row-major array.
  return py::module_::import("numpy").attr("ascontiguousarray")(out);
}

bool ownsAllocation(const MemRefDescriptor &result,
                    const std::vector<ArgumentRange> &arguments) {
  auto *allocated = static_cast<const char *>(result.allocated());
  // memref.get_global's descriptors carry this marker, not an allocation.
  bool isGlobal = allocated == reinterpret_cast<const char *>(0xdeadbeef);
  if (!allocated || isGlobal)
    return false;
  for (const ArgumentRange &range : arguments)
    if (allocated >= range.begin && allocated < range.end)
      return false;
  return true;
}

} // namespace quilt::python
