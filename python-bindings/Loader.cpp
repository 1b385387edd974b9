//===- Loader.cpp - quilt.load: call compiled functions on numpy arrays ---===//
//
// Part of the Quilt project. dlopens a shared library Quilt compiled, finds
// `_mlir_ciface_<name>`, and calls it with memref descriptors over numpy
// buffers: the caller's own for memref arguments, private copies for tensor
// arguments. A returned memref or tensor comes back as a new numpy array:
// the buffer the compiled code allocated is copied, then released with C
// free (see MemRef.h). A call whose operands failed the compiled code's
// checks (quilt_rt_status() != 0 after it) raises quilt.Error with the
// runtime's message.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"
#include "MemRef.h"
#include "Paths.h"
#include "Signature.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <memory>
#include <optional>
#include <utility>

namespace quilt::python {

namespace {

/// Every `_mlir_ciface_` argument is a descriptor pointer, so a function of
/// N arguments is called through a `void (*)(void *, ... N times)` pointer.
constexpr size_t kMaxPointerArgs = 16;

using Caller = void (*)(void *entry, void **args);

template <size_t... I>
void callWithPointers(void *entry, void **args, std::index_sequence<I...>) {
  using Fn = void (*)(decltype((void)I, static_cast<void *>(nullptr))...);
  reinterpret_cast<Fn>(entry)(args[I]...);
}

template <size_t N> void callN(void *entry, void **args) {
  callWithPointers(entry, args, std::make_index_sequence<N>());
}

template <size_t... N>
constexpr std::array<Caller, sizeof...(N)>
makeCallers(std::index_sequence<N...>) {
  return {&callN<N>...};
}

constexpr auto kCallers =
    makeCallers(std::make_index_sequence<kMaxPointerArgs + 1>());

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

/// A result in device memory: copied into a new row-major numpy array with
/// the runtime's memcpy, then freed with its free.
py::array takeDeviceResult(const MemRefDescriptor &result,
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
    if (!rowMajor) {
      gpu.memFree(result.allocated(), nullptr);
      throw Error("the result is a strided view of device memory; quilt.load "
                  "copies row-major results only");
    }
    auto *source =
        static_cast<char *>(result.aligned()) + result.offset() * itemSize;
    gpu.memcpy(out.mutable_data(), source, size_t(count * itemSize), nullptr);
    gpu.synchronize(nullptr);
  }
  if (result.allocated())
    gpu.memFree(result.allocated(), nullptr);
  return out;
}

/// The callable quilt.load returns.
class CompiledFunction {
public:
  CompiledFunction(std::shared_ptr<SharedLibrary> library, std::string name,
                   std::optional<Signature> signature)
      : library(std::move(library)), name(std::move(name)),
        signature(std::move(signature)) {
    entry = this->library->lookup("_mlir_ciface_" + this->name);
    if (!entry)
      throw Error("no function _mlir_ciface_" + this->name + " in " +
                  this->library->path + " (is @" + this->name +
                  " a public func.func of the compiled module?)");
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
    size_t expected = signature ? signature->args.size() : args.size();
    if (args.size() != expected)
      throw Error(name + " takes " + std::to_string(expected) + " arguments (" +
                  signature->text + "), got " + std::to_string(args.size()));
    size_t pointers = args.size() + (signature && signature->result ? 1 : 0);
    if (pointers > kMaxPointerArgs)
      throw Error(name + " has " + std::to_string(pointers) +
                  " descriptor arguments; quilt.load calls at most " +
                  std::to_string(kMaxPointerArgs));

    std::vector<py::array> arrays;
    std::vector<MemRefDescriptor> descriptors;
    std::vector<ArgumentRange> ranges;
    for (size_t i = 0; i < args.size(); ++i) {
      arrays.push_back(checkArgument(i, args[i]));
      const py::array &a = arrays.back();
      descriptors.push_back(MemRefDescriptor::forArray(a));
      auto *begin = static_cast<const char *>(a.data());
      ranges.push_back({begin, begin + a.nbytes()});
    }
    std::optional<MemRefDescriptor> result;
    std::vector<void *> pointerArgs;
    if (signature && signature->result) {
      result.emplace(int64_t(signature->result->shape.size()));
      pointerArgs.push_back(result->data());
    }
    for (MemRefDescriptor &d : descriptors)
      pointerArgs.push_back(d.data());

    std::optional<std::string> failure;
    {
      py::gil_scoped_release release;
      // The status is per thread: a failure left by an earlier call on this
      // thread (from C code, say) is not this call's.
      if (status && clearStatus && status() != 0)
        clearStatus();
      if (gpu)
        forEachNonEmpty(arrays, descriptors, gpu->registerMemRef);
      kCallers[pointerArgs.size()](entry, pointerArgs.data());
      if (gpu)
        forEachNonEmpty(arrays, descriptors, gpu->unregisterMemRef);
      if (status && status() != 0) {
        failure = lastError ? lastError() : "quilt: an operand check failed";
        if (clearStatus)
          clearStatus();
      }
    }
    py::object value = py::none();
    if (result) {
      // Released even when a check failed (the code still allocated it).
      auto *allocated = static_cast<const char *>(result->allocated());
      bool aliasesArgument = false;
      for (const ArgumentRange &range : ranges)
        aliasesArgument |= allocated >= range.begin && allocated < range.end;
      if (gpu && !aliasesArgument)
        value = takeDeviceResult(*result, signature->result->dtype, *gpu);
      else
        value = takeResult(*result, signature->result->dtype, ranges);
    }
    if (gpu && !failure) {
      std::string gpuFailure = gpu->takeFailure();
      if (!gpuFailure.empty())
        failure = gpuFailure;
    }
    if (failure)
      throw Error(*failure);
    return value;
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
  py::array checkArgument(size_t i, py::handle value) const {
    std::string what = name + ": argument " + std::to_string(i);
    if (!py::isinstance<py::array>(value))
      throw Error(what + ": expected a numpy array, got " +
                  py::str(py::type::of(value)).cast<std::string>());
    auto array = py::reinterpret_borrow<py::array>(value);
    const BufferType *type = signature ? &signature->args[i] : nullptr;
    if (type) {
      std::string wanted = "expected " + type->dtype + " for " + type->text +
                           ", got a " + describe(array);
      if (!array.dtype().equal(py::dtype(type->dtype)))
        throw Error(what + ": " + wanted);
      if (array.ndim() != py::ssize_t(type->shape.size()))
        throw Error(what + ": " + wanted);
      for (size_t d = 0; d < type->shape.size(); ++d)
        if (type->shape[d] != BufferType::kDynamic &&
            type->shape[d] != array.shape(d))
          throw Error(what + ": " + wanted);
    }
    if (type && type->isTensor) {
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

  void *entry = nullptr;
};

/// Compiles MLIR source for the host into a temporary shared library (with
/// quilt.compile itself, so options mean the same), loads it and deletes
/// the file: the mapping outlives it.
std::shared_ptr<SharedLibrary> compileAndLoad(const std::string &source,
                                              const std::string &target,
                                              const std::string &policy) {
  py::object compile = py::module_::import("quilt").attr("compile");
  std::string path =
      compile(source, py::arg("target") = target, py::arg("emit") = "shared",
              py::arg("policy") = policy)
          .cast<std::string>();
  try {
    auto library = std::make_shared<SharedLibrary>(path);
    std::remove(path.c_str());
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
        std::string path = runtimeLibraryDir() + "/libquilt_cuda_emulator.so";
        if (!py::module_::import("os")
                 .attr("path")
                 .attr("exists")(path)
                 .cast<bool>())
          throw Error(path + " does not exist: the PTX emulator is built with "
                             "the CUDA runtime, when cuda.h is found");
        setenv("QUILT_GPU_DRIVER", path.c_str(), 1);
        setenv("QUILT_EMULATOR_TARGET", target.c_str(), 1);
        return path;
      },
      py::arg("target") = "h100",
      R"(Runs this process's NVIDIA GPU libraries on the PTX emulator
(docs/gpu-emulator.md), answering as `target` (h100, a100, ...): sets
QUILT_GPU_DRIVER and QUILT_EMULATOR_TARGET. Call it before the first GPU
call; libraries must be built with device_format="isa". Returns the
emulator's path.)");

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
