//===- MemRef.h - numpy arrays as MLIR memref descriptors -------*- C++ -*-===//
//
// Part of the Quilt project. An `_mlir_ciface_` function takes each memref
// (and, after bufferization, each tensor) as a pointer to
//   { T *allocated; T *aligned; int64_t offset; int64_t sizes[R];
//     int64_t strides[R]; }
// and a returned memref through a pointer to one such descriptor passed
// first (see tools/quilt-bench/HostBuffers.h for the same ABI in C++).
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_PYTHON_MEMREF_H
#define QUILT_PYTHON_MEMREF_H

#include <pybind11/numpy.h>

#include <cstdint>
#include <string>
#include <vector>

namespace quilt::python {

namespace py = pybind11;

/// One descriptor of any rank, laid out as the ABI wants (every field is
/// 64 bits wide on the 64-bit hosts Quilt compiles for).
class MemRefDescriptor {
public:
  explicit MemRefDescriptor(int64_t rank) : words(3 + 2 * rank, 0) {}

  /// Describes a C-contiguous array (the caller checks contiguity).
  static MemRefDescriptor forArray(const py::array &array);
  /// A copy of the descriptor of `rank` at `words` (a result's, in the
  /// struct a function with several results fills).
  static MemRefDescriptor fromWords(const void *words, int64_t rank);
  /// Bytes of a descriptor of `rank`: two pointers, an offset, sizes and
  /// strides, all 8-byte words.
  static size_t byteSize(int64_t rank) { return 8 * (3 + 2 * rank); }

  void *data() { return words.data(); }
  int64_t rank() const { return (int64_t(words.size()) - 3) / 2; }
  void *allocated() const { return reinterpret_cast<void *>(words[0]); }
  void *aligned() const { return reinterpret_cast<void *>(words[1]); }
  int64_t offset() const { return words[2]; }
  int64_t size(int64_t i) const { return words[3 + i]; }
  int64_t stride(int64_t i) const { return words[3 + rank() + i]; }

private:
  std::vector<int64_t> words;
};

/// A memory range a caller's array owns, to tell results that alias an
/// argument from buffers the compiled code allocated.
struct ArgumentRange {
  const char *begin, *end;
};

/// Copies a returned memref into a new numpy array of `dtype`, then frees
/// the returned buffer with C `free` when the compiled code allocated it
/// (memref.alloc lowers to malloc): neither when it aliases an argument nor
/// when it is a constant global (MLIR marks those with 0xdeadbeef).
/// A new row-major numpy array with a copy of a result in host memory.
py::array copyResult(const MemRefDescriptor &result, const std::string &dtype);

/// Whether the caller must release the buffer a result was allocated in:
/// one the compiled code allocated, not an argument's (a memref result may
/// be a view of one) nor a constant global's.
bool ownsAllocation(const MemRefDescriptor &result,
                    const std::vector<ArgumentRange> &arguments);

} // namespace quilt::python

#endif // QUILT_PYTHON_MEMREF_H
