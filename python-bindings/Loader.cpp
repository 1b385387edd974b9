//===- Loader.cpp - quilt.load: call compiled functions on numpy arrays ---===//
//
// Part of the Quilt project. dlopens a shared library Quilt compiled, finds
// `_quilt_call_<name>` (the C wrapper `_mlir_ciface_<name>` taking its
// parameters through one array of pointers), and calls it with memref
// descriptors over numpy buffers (the caller's own for memref arguments,
// private copies for tensor arguments) and scalars converted to the
// function's types. A returned memref or tensor comes back as a new numpy
// array: the buffer the compiled code allocated is copied, then released
// with C free (see MemRef.h); scalars come back as numpy scalars, several
// results as a tuple. A call whose operands failed the compiled code's
// checks (quilt_rt_status() != 0 after it) raises quilt.Error with the
// runtime's message.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"
#include "MemRef.h"
#include "Paths.h"
#include "Signature.h"

#include "CostModel/TargetDatabase.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

namespace quilt::python {

namespace {

/// `_quilt_call_<name>` (quilt-emit-packed-interface): every parameter of
/// the function's C wrapper through one array of pointers to the values.
using PackedEntry = void (*)(void **slots);

/// A dlopen handle, closed when the last function from it goes away.
class SharedLibrary {
public:
  explicit SharedLibrary(const std::string &path) : path(path) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *message = dlerror();
      throw Error("cannot load " + path + ": " +
                  (message ? message : "unknown error"));
    }
  }
  ~SharedLibrary() { dlclose(handle); }
  SharedLibrary(const SharedLibrary &) = delete;
  SharedLibrary &operator=(const SharedLibrary &) = delete;

  void *lookup(const std::string &symbol) const {
    return dlsym(handle, symbol.c_str());
  }
  const std::string path;

private:
  void *handle;
};

std::string describe(const py::array &array) {
  std::string shape;
  for (py::ssize_t i = 0; i < array.ndim(); ++i)
    shape += (i ? "x" : "") + std::to_string(array.shape(i));
  return py::str(array.dtype()).cast<std::string>() + " array of shape " +
         (shape.empty() ? "()" : shape);
}

/// The GPU runtime a library compiled for a GPU target calls (its
/// libquilt_cuda_runtime.so / libquilt_hip_runtime.so dependency, found
/// through the library's handle). Its kernels address device memory: numpy
/// buffers are registered with the device around the call (page-locked and
/// mapped on a GPU; on the PTX emulator, accessible), and a result the
/// compiled code allocated is device memory, copied back and freed with the
/// runtime's calls.
struct GpuRuntime {
  void (*registerMemRef)(int64_t, void *, int64_t) = nullptr;
  void (*unregisterMemRef)(int64_t, void *, int64_t) = nullptr;
  void (*memcpy)(void *, void *, size_t, void *) = nullptr;
  void (*memFree)(void *, void *) = nullptr;
  void (*synchronize)(void *) = nullptr;
  int32_t (*status)() = nullptr;
  const char *(*firstError)() = nullptr;
  void (*resetStatus)() = nullptr;

  /// Null for a host library (no mgpuLaunchKernel).
  static std::unique_ptr<GpuRuntime> find(const SharedLibrary &library) {
    if (!library.lookup("mgpuLaunchKernel"))
      return nullptr;
    auto gpu = std::make_unique<GpuRuntime>();
    bool complete =
        get(library, "mgpuMemHostRegisterMemRef", gpu->registerMemRef) &&
        get(library, "mgpuMemHostUnregisterMemRef", gpu->unregisterMemRef) &&
        get(library, "mgpuMemcpy", gpu->memcpy) &&
        get(library, "mgpuMemFree", gpu->memFree) &&
        get(library, "mgpuStreamSynchronize", gpu->synchronize) &&
        get(library, "quilt_gpu_status", gpu->status) &&
        get(library, "quilt_gpu_first_error", gpu->firstError) &&
        get(library, "quilt_gpu_reset_status", gpu->resetStatus);
    if (!complete)
      throw Error(library.path +
                  " launches GPU kernels but its GPU runtime is not Quilt's "
                  "(libquilt_cuda_runtime.so or libquilt_hip_runtime.so)");
    return gpu;
  }

  /// Empty when no GPU call failed since the last reset, else the first
  /// failure (which, on the emulator, carries its report).
  std::string takeFailure() {
    if (status() == 0)
      return {};
    const char *first = firstError();
    std::string message =
        std::string("GPU: ") + (first ? first : "a GPU call failed");
    resetStatus();
    return message;
  }

private:
  template <typename T>
  static bool get(const SharedLibrary &library, const char *name, T &out) {
    out = reinterpret_cast<T>(library.lookup(name));
    return out != nullptr;
  }
};

/// A result in device memory, copied into a new row-major numpy array with
/// the runtime's memcpy (the caller frees the allocation).
py::array copyDeviceResult(const MemRefDescriptor &result,
                           const std::string &dtype, GpuRuntime &gpu) {
  py::dtype type(dtype);
  int64_t itemSize = type.itemsize();
  std::vector<py::ssize_t> shape;
  int64_t count = 1, expectedStride = 1;
  bool rowMajor = true;
  for (int64_t i = result.rank() - 1; i >= 0; --i) {
    if (result.size(i) != 1 && result.stride(i) != expectedStride)
      rowMajor = false;
    expectedStride *= result.size(i);
  }
  for (int64_t i = 0; i < result.rank(); ++i) {
    shape.push_back(result.size(i));
    count *= result.size(i);
  }
  py::array out(type, shape);
  if (count > 0 && result.aligned()) {
    if (!rowMajor)
      throw Error("the result is a strided view of device memory; quilt.load "
                  "copies row-major results only");
    auto *source =
        static_cast<char *>(result.aligned()) + result.offset() * itemSize;
    gpu.memcpy(out.mutable_data(), source, size_t(count * itemSize), nullptr);
    gpu.synchronize(nullptr);
  }
  return out;
}

/// Where each result lies in what the C wrapper returns: the fields of an
/// LLVM struct (natural alignment) when it returns several or a memref, or
/// the one scalar it returns.
struct ResultLayout {
  explicit ResultLayout(const std::vector<ValueType> &results) {
    size_t align = 1;
    for (const ValueType &type : results) {
      size_t size =
          type.isScalar()
              ? size_t(py::dtype(type.dtype).itemsize())
              : MemRefDescriptor::byteSize(int64_t(type.shape.size()));
      size_t fieldAlign = type.isScalar() ? size : 8;
      byteSize = (byteSize + fieldAlign - 1) / fieldAlign * fieldAlign;
      offsets.push_back(byteSize);
      byteSize += size;
      align = std::max(align, fieldAlign);
    }
    byteSize = (byteSize + align - 1) / align * align;
  }
  std::vector<size_t> offsets;
  size_t byteSize = 0;
};

/// A numpy scalar of `dtype` from its bytes.
py::object scalarFromBytes(const char *bytes, const std::string &dtype) {
  py::array value(py::dtype(dtype), std::vector<py::ssize_t>{}, bytes);
  return value[py::tuple()];
}

/// The callable quilt.load returns.
class CompiledFunction {
public:
  CompiledFunction(std::shared_ptr<SharedLibrary> library, std::string name,
                   std::optional<Signature> signature)
      : library(std::move(library)), name(std::move(name)),
        signature(std::move(signature)) {
    entry = reinterpret_cast<PackedEntry>(
        this->library->lookup("_quilt_call_" + this->name));
    if (!entry)
      throw Error("no function _quilt_call_" + this->name + " in " +
                  this->library->path + " (is @" + this->name +
                  " a public func.func of a module Quilt compiled with its "
                  "C interface?)");
    // What the library says the function takes (quilt-emit-c-interface):
    // a given signature must agree, since a call built from a wrong one
    // passes descriptors of the wrong rank and corrupts memory.
    if (auto *embedded = static_cast<const char *>(
            this->library->lookup("_quilt_signature_" + this->name))) {
      Signature own = parseSignature(embedded);
      if (this->signature && !sameSignature(*this->signature, own))
        throw Error("the signature given for @" + this->name + ", " +
                    this->signature->text + ", is not the library's: " +
                    own.text + " (" + this->library->path + ")");
      if (!this->signature)
        this->signature = std::move(own);
    }
    // The runtime the library's code reports failed operand checks to
    // (libquilt_runtime.so, a dependency of the library: dlsym searches
    // it through the handle). Absent from libraries not built by Quilt.
    status = reinterpret_cast<int32_t (*)()>(
        this->library->lookup("quilt_rt_status"));
    lastError = reinterpret_cast<const char *(*)()>(
        this->library->lookup("quilt_rt_last_error"));
    clearStatus = reinterpret_cast<void (*)()>(
        this->library->lookup("quilt_rt_clear_status"));
    gpu = GpuRuntime::find(*this->library);
    // The library's constructor loaded its device code when it was opened:
    // a failure there (no driver, a cubin on the emulator) is reported now.
    if (gpu) {
      std::string failure = gpu->takeFailure();
      if (!failure.empty())
        throw Error("cannot use " + this->library->path + ": " + failure);
    }
  }

  py::object call(const py::args &args) const {
    if (signature && args.size() != signature->args.size())
      throw Error(name + " takes " + std::to_string(signature->args.size()) +
                  " arguments (" + signature->text + "), got " +
                  std::to_string(args.size()));
    static const std::vector<ValueType> noResults;
    const std::vector<ValueType> &resultTypes =
        signature ? signature->results : noResults;

    // The C wrapper's parameters: the results' struct when it returns one,
    // then the arguments; a scalar result is stored through a last slot.
    // Every slot points at its parameter's value, so `values` (the
    // parameters that are pointers) never reallocates once slots exist.
    bool resultsByPointer =
        resultTypes.size() > 1 ||
        (resultTypes.size() == 1 && !resultTypes[0].isScalar());
    ResultLayout layout(resultTypes);
    std::vector<uint64_t> resultWords(layout.byteSize / 8 + 1, 0);
    std::vector<py::array> arrays;
    std::vector<MemRefDescriptor> descriptors;
    std::vector<ArgumentRange> ranges;
    std::vector<uint64_t> scalars(args.size(), 0);
    std::vector<void *> values;
    values.reserve(args.size() + 1);
    std::vector<void *> slots;
    if (resultsByPointer) {
      values.push_back(resultWords.data());
      slots.push_back(&values.back());
    }
    descriptors.reserve(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      const ValueType *type = signature ? &signature->args[i] : nullptr;
      if (type && type->isScalar()) {
        packScalar(i, args[i], *type, scalars[i]);
        slots.push_back(&scalars[i]);
        continue;
      }
      arrays.push_back(checkArgument(i, args[i], type));
      const py::array &a = arrays.back();
      descriptors.push_back(MemRefDescriptor::forArray(a));
      values.push_back(descriptors.back().data());
      slots.push_back(&values.back());
      auto *begin = static_cast<const char *>(a.data());
      ranges.push_back({begin, begin + a.nbytes()});
    }
    uint64_t scalarResult = 0;
    if (resultTypes.size() == 1 && resultTypes[0].isScalar())
      slots.push_back(&scalarResult);

    std::optional<std::string> failure;
    {
      py::gil_scoped_release release;
      // The status is per thread: a failure left by an earlier call on this
      // thread (from C code, say) is not this call's.
      if (status && clearStatus && status() != 0)
        clearStatus();
      if (gpu)
        forEachNonEmpty(arrays, descriptors, gpu->registerMemRef);
      entry(slots.data());
      if (gpu)
        forEachNonEmpty(arrays, descriptors, gpu->unregisterMemRef);
      if (status && status() != 0) {
        failure = lastError ? lastError() : "quilt: an operand check failed";
        if (clearStatus)
          clearStatus();
      }
    }
    // Results are copied, then the buffers the code allocated for them
    // released once each (two results may share one), even when a check
    // failed: the code still allocated them.
    py::tuple results(resultTypes.size());
    std::vector<void *> allocations;
    std::optional<std::string> copyFailure;
    const char *resultBytes = reinterpret_cast<const char *>(
        resultsByPointer ? resultWords.data() : &scalarResult);
    for (size_t r = 0; r < resultTypes.size(); ++r) {
      const ValueType &type = resultTypes[r];
      const char *at = resultBytes + layout.offsets[r];
      if (type.isScalar()) {
        results[r] = scalarFromBytes(at, type.dtype);
        continue;
      }
      MemRefDescriptor result =
          MemRefDescriptor::fromWords(at, int64_t(type.shape.size()));
      bool owned = ownsAllocation(result, ranges);
      if (owned && std::find(allocations.begin(), allocations.end(),
                             result.allocated()) == allocations.end())
        allocations.push_back(result.allocated());
      try {
        results[r] = gpu && owned ? copyDeviceResult(result, type.dtype, *gpu)
                                  : copyResult(result, type.dtype);
      } catch (const Error &error) {
        copyFailure = error.what();
      }
    }
    for (void *allocation : allocations) {
      if (gpu)
        gpu->memFree(allocation, nullptr);
      else
        std::free(allocation);
    }
    if (copyFailure && !failure)
      failure = copyFailure;
    if (gpu && !failure) {
      std::string gpuFailure = gpu->takeFailure();
      if (!gpuFailure.empty())
        failure = gpuFailure;
    }
    if (failure)
      throw Error(*failure);
    if (resultTypes.empty())
      return py::none();
    if (resultTypes.size() == 1)
      return results[0];
    return std::move(results);
  }

  std::string repr() const {
    return "<quilt function " + name +
           (signature ? " : " + signature->text : std::string()) + " from " +
           library->path + ">";
  }

  std::shared_ptr<SharedLibrary> library;
  std::string name;
  std::optional<Signature> signature;

private:
  /// Registers (or unregisters) every argument buffer that has bytes.
  static void forEachNonEmpty(const std::vector<py::array> &arrays,
                              std::vector<MemRefDescriptor> &descriptors,
                              void (*fn)(int64_t, void *, int64_t)) {
    for (size_t i = 0; i < arrays.size(); ++i)
      if (arrays[i].nbytes() > 0)
        fn(descriptors[i].rank(), descriptors[i].data(),
           int64_t(arrays[i].itemsize()));
  }

  std::unique_ptr<GpuRuntime> gpu;
  /// QuiltRuntime.h's status functions, null when the library lacks them.
  int32_t (*status)() = nullptr;
  const char *(*lastError)() = nullptr;
  void (*clearStatus)() = nullptr;

  /// The array to pass for argument `i`, after checking it against the
  /// signature: dtype, rank, static sizes, layout.
  py::array checkArgument(size_t i, py::handle value,
                          const ValueType *type) const {
    std::string what = name + ": argument " + std::to_string(i);
    if (!py::isinstance<py::array>(value))
      throw Error(what + ": expected a numpy array, got " +
                  py::str(py::type::of(value)).cast<std::string>());
    auto array = py::reinterpret_borrow<py::array>(value);
    if (type) {
      std::string wanted = "expected " + type->dtype + " for " + type->text +
                           ", got a " + describe(array);
      if (!array.dtype().equal(py::dtype(type->dtype)))
        throw Error(what + ": " + wanted);
      if (array.ndim() != py::ssize_t(type->shape.size()))
        throw Error(what + ": " + type->text + " has rank " +
                    std::to_string(type->shape.size()) + ", got a " +
                    describe(array) + " (rank " +
                    std::to_string(array.ndim()) + ")");
      for (size_t d = 0; d < type->shape.size(); ++d)
        if (type->shape[d] != ValueType::kDynamic &&
            type->shape[d] != array.shape(d))
          throw Error(what + ": dimension " + std::to_string(d) + " of " +
                      type->text + " is " + std::to_string(type->shape[d]) +
                      ", got a " + describe(array));
    }
    if (type && type->isTensor()) {
      // A tensor is a value, but bufferization may reuse a writable function
      // argument's buffer for a result (`outs(%arg)`): pass a private
      // row-major copy so the caller's array is never changed.
      return py::module_::import("numpy").attr("array")(
          array, py::arg("copy") = true, py::arg("order") = "C");
    }
    char kind = array.dtype().kind();
    if (!type && kind != 'f' && kind != 'i' && kind != 'u')
      throw Error(what + ": a " + describe(array) +
                  " has no memref element type");
    bool contiguous = array.flags() & py::array::c_style;
    // A memref is a buffer the function may write: it must be the caller's
    // own, row-major and writable.
    if (!contiguous)
      throw Error(what + ": a memref argument must be C-contiguous (pass "
                         "numpy.ascontiguousarray(x) and read the result "
                         "from that array)");
    if (!array.writeable())
      throw Error(what + ": a memref argument must be writable");
    return array;
  }

  /// Converts a Python number to scalar argument `i`'s type, into the
  /// low bytes of `storage`; refuses what the type cannot hold.
  void packScalar(size_t i, py::handle value, const ValueType &type,
                  uint64_t &storage) const {
    std::string what =
        name + ": argument " + std::to_string(i) + " (" + type.text + ")";
    py::module_ numpy = py::module_::import("numpy");
    py::dtype wanted(type.dtype);
    bool floatType = wanted.kind() == 'f';
    py::array given = numpy.attr("asarray")(value);
    char kind = given.dtype().kind();
    if (given.ndim() != 0 ||
        std::string("biuf").find(kind) == std::string::npos ||
        (kind == 'f' && !floatType))
      throw Error(what + ": expected " +
                  (floatType ? "a number" : "an integer") + ", got " +
                  py::repr(value).cast<std::string>());
    if (!floatType) {
      // Integers must fit: numpy would wrap them silently.
      py::object info = type.dtype == "bool" ? py::object(py::none())
                                             : numpy.attr("iinfo")(wanted);
      py::int_ number(py::reinterpret_borrow<py::object>(value));
      bool fits =
          info.is_none()
              ? (number.equal(py::int_(0)) || number.equal(py::int_(1)))
              : (number >= info.attr("min") && number <= info.attr("max"));
      if (!fits)
        throw Error(what + ": " + py::repr(value).cast<std::string>() +
                    " does not fit");
    }
    py::array converted = numpy.attr("asarray")(value, wanted);
    std::memcpy(&storage, converted.data(), size_t(wanted.itemsize()));
  }

  PackedEntry entry = nullptr;
};

/// Compiles MLIR source for the host into a temporary shared library (with
/// quilt.compile itself, so options mean the same), loads it and deletes
/// the file: the mapping outlives it. Loading several functions of one
/// source compiles it once: the library is shared while any of them lives.
std::shared_ptr<SharedLibrary> compileAndLoad(const std::string &source,
                                              const std::string &target,
                                              const std::string &policy) {
  // Guarded by the GIL, which every caller holds.
  static std::map<std::tuple<std::string, std::string, std::string>,
                  std::weak_ptr<SharedLibrary>>
      compiled;
  auto key = std::make_tuple(source, target, policy);
  if (auto it = compiled.find(key); it != compiled.end()) {
    if (auto library = it->second.lock())
      return library;
    compiled.erase(it);
  }
  py::object compile = py::module_::import("quilt").attr("compile");
  std::string path =
      compile(source, py::arg("target") = target, py::arg("emit") = "shared",
              py::arg("policy") = policy)
          .cast<std::string>();
  try {
    auto library = std::make_shared<SharedLibrary>(path);
    std::remove(path.c_str());
    compiled[key] = library;
    return library;
  } catch (...) {
    std::remove(path.c_str());
    throw;
  }
}

std::unique_ptr<CompiledFunction>
load(py::object library, const std::string &name,
     const std::optional<std::string> &signature,
     const std::optional<std::string> &source, const std::string &target,
     const std::string &policy) {
  py::module_ os = py::module_::import("os");
  std::optional<std::string> path, mlirText;
  if (py::isinstance(library, os.attr("PathLike"))) {
    path = os.attr("fspath")(library).cast<std::string>();
  } else if (py::isinstance<py::str>(library)) {
    std::string text = library.cast<std::string>();
    if (os.attr("path").attr("exists")(text).cast<bool>())
      path = text;
    else if (text.find('{') != std::string::npos)
      mlirText = text;
    else
      throw Error("no such file: " + text);
  } else {
    throw Error("quilt.load expects a shared library path or MLIR source "
                "text, got " +
                py::str(py::type::of(library)).cast<std::string>());
  }

  std::optional<Signature> sig;
  if (signature)
    sig = parseSignature(*signature);
  else if (source || mlirText)
    sig = signatureFromSource(source ? *source : *mlirText, name);

  // dlopen searches the library path for a name without a slash.
  if (path)
    path = os.attr("path").attr("abspath")(*path).cast<std::string>();
  std::shared_ptr<SharedLibrary> handle =
      path ? std::make_shared<SharedLibrary>(*path)
           : compileAndLoad(*mlirText, target, policy);
  return std::make_unique<CompiledFunction>(std::move(handle), name,
                                            std::move(sig));
}

} // namespace

void bindLoader(py::module_ &m) {
  py::class_<CompiledFunction>(m, "Function",
                               "A compiled function, callable on numpy "
                               "arrays (see quilt.load).")
      .def("__call__", &CompiledFunction::call)
      .def("__repr__", &CompiledFunction::repr)
      .def_readonly("name", &CompiledFunction::name)
      .def_property_readonly("signature",
                             [](const CompiledFunction &f) -> py::object {
                               if (!f.signature)
                                 return py::none();
                               return py::str(f.signature->text);
                             })
      .def_property_readonly(
          "library", [](const CompiledFunction &f) { return f.library->path; });

  m.def(
      "use_emulator",
      [](const std::string &target) {
        // The target's vendor picks the emulator: the PTX one behind the
        // CUDA driver API, the AMDGCN one behind HIP.
        const TargetDesc *desc = TargetDatabase::builtin().lookup(target);
        if (!desc || desc->vendor == Vendor::CPU)
          throw Error("use_emulator: " + target +
                      " is not a GPU target of Quilt's database (h100, "
                      "a100, mi300x, mi250x, rx7900xtx, ...)");
        bool amd = desc->vendor == Vendor::AMD;
        std::string path = runtimeLibraryDir() +
                           (amd ? "/libquilt_hip_emulator.so"
                                : "/libquilt_cuda_emulator.so");
        if (!py::module_::import("os")
                 .attr("path")
                 .attr("exists")(path)
                 .cast<bool>())
          throw Error(path + " does not exist: the " +
                      (amd ? std::string("AMDGCN emulator is built with the "
                                         "HIP runtime, when "
                                         "hip/hip_runtime_api.h is found")
                           : std::string("PTX emulator is built with the "
                                         "CUDA runtime, when cuda.h is found")));
        // The vendor's own variables: the other vendor's runtime keeps its
        // driver, so a process can run both vendors' libraries.
        std::string prefix = amd ? "QUILT_HIP_" : "QUILT_CUDA_";
        setenv((prefix + "DRIVER").c_str(), path.c_str(), 1);
        setenv((prefix + "EMULATOR_TARGET").c_str(), target.c_str(), 1);
        return path;
      },
      py::arg("target") = "h100",
      R"(Runs this process's GPU libraries for `target`'s vendor on Quilt's
emulator (docs/gpu-emulator.md), answering as `target`: the PTX emulator
for NVIDIA targets (h100, a100, ...; libraries built with
device_format="isa"), the AMDGCN emulator for AMD ones (mi300x, mi250x,
rx7900xtx; libraries built with device_format="bin"). Sets the vendor's
QUILT_CUDA_DRIVER and QUILT_CUDA_EMULATOR_TARGET, or QUILT_HIP_DRIVER and
QUILT_HIP_EMULATOR_TARGET: call it before the vendor's first GPU call (the
runtime opens its driver then). One process may emulate both vendors, each
as one target. Returns the emulator's path.)");

  m.def("load", &load, py::arg("library"), py::arg("function_name"),
        py::arg("signature") = py::none(), py::arg("source") = py::none(),
        py::arg("target") = "host", py::arg("policy") = "cost_model",
        R"(Loads public function `function_name` of a compiled module.

`library` is the path of a shared library from quilt.compile(...,
emit="shared") or quiltc --emit=shared, or MLIR source text, which is then
compiled for `target` (a CPU target) with `policy` first.

The function's type comes from `signature` (an MLIR function type such as
"(tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>"), else from
`source` (the MLIR the library was compiled from) or the source text given
as `library`. Arguments are numpy arrays: float32, float64, float16, uint16
for bf16, int8-int64. Memref arguments are passed in place (C-contiguous,
writable; the function's writes land in them); tensor arguments are copied
first, so the caller's arrays never change. Sizes that disagree (a matmul's
K) or a null buffer make the call raise quilt.Error with the runtime's
message; the compiled code then computed nothing.
A returned memref/tensor comes back as a new numpy array the caller owns
(the buffer the compiled code allocated is copied and freed). Without any
type information every argument is passed as a memref of the array's
dtype and rank and the function must return nothing.)");
}

} // namespace quilt::python
