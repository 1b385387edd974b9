//===- BenchKernels.cpp - Compiled kernels quilt-bench runs ---------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Measurement/BenchKernels.h"

#include <dlfcn.h>

#include <sstream>

namespace quilt::bench {

namespace {

std::string memrefType(int rank, ElemType elem) {
  std::string type = "memref<";
  for (int i = 0; i < rank; ++i)
    type += "?x";
  return type + std::string(stringify(elem)) + ">";
}

int rankOf(OpKind op) {
  switch (op) {
  case OpKind::Matmul:
    return 2;
  case OpKind::BatchMatmul:
    return 3;
  default:
    return 4;
  }
}

std::string tensorType(int rank, ElemType elem) {
  std::string type = "tensor<";
  for (int i = 0; i < rank; ++i)
    type += "?x";
  return type + std::string(stringify(elem)) + ">";
}

/// One public function with dynamic shapes around the linalg op, writing
/// `c` = a x b as a program would: the accumulator filled with zero, then
/// the contraction, on tensors over the caller's buffers. One call is the
/// whole product; Quilt folds the fill into its kernel (which then never
/// reads `c`), the upstream lowering runs it as written.
std::string linalgSource(const Workload &w) {
  int rank = rankOf(w.op);
  std::string in = memrefType(rank, w.elem),
              out = memrefType(rank, ElemType::F32);
  std::string inT = tensorType(rank, w.elem),
              outT = tensorType(rank, ElemType::F32);
  std::ostringstream os;
  os << "func.func @quilt_bench(%a: " << in << ", %b: " << in << ", %c: " << out
     << ") attributes {llvm.emit_c_interface} {\n"
     << "  %ta = bufferization.to_tensor %a restrict : " << in << " to " << inT
     << "\n"
     << "  %tb = bufferization.to_tensor %b restrict : " << in << " to " << inT
     << "\n"
     << "  %tc = bufferization.to_tensor %c restrict writable : " << out
     << " to " << outT << "\n"
     << "  %zero = arith.constant 0.0 : f32\n"
     << "  %init = linalg.fill ins(%zero : f32) outs(%tc : " << outT << ") -> "
     << outT << "\n  %r = ";
  switch (w.op) {
  case OpKind::Matmul:
    os << "linalg.matmul";
    break;
  case OpKind::BatchMatmul:
    os << "linalg.batch_matmul";
    break;
  case OpKind::Conv2dNhwcHwcf:
  case OpKind::Conv2dNchwFchw: {
    int64_t stride = w.conv ? w.conv->stride : 1;
    os << (w.op == OpKind::Conv2dNhwcHwcf ? "linalg.conv_2d_nhwc_hwcf"
                                          : "linalg.conv_2d_nchw_fchw")
       << " {dilations = dense<1> : tensor<2xi64>, strides = dense<" << stride
       << "> : tensor<2xi64>}";
    break;
  }
  }
  os << " ins(%ta, %tb : " << inT << ", " << inT << ") outs(%init : " << outT
     << ") -> " << outT << "\n"
     << "  bufferization.materialize_in_destination %r in restrict writable %c"
     << " : (" << outT << ", " << out << ") -> ()\n  return\n}\n";
  return os.str();
}

} // namespace

std::string unmeasurableReason(const Workload &workload) {
  if (workload.elem != ElemType::F64)
    return "";
  return "'" + workload.str() +
         "': f64 workloads are not measured (the benchmark's buffers, "
         "reference and baselines hold f32, f16 and bf16); quiltc explain "
         "and compile take f64";
}

OperandShapes operandShapes(const Workload &w) {
  const GemmShape &g = w.gemm;
  switch (w.op) {
  case OpKind::Matmul:
    return {{g.m, g.k}, {g.k, g.n}, {g.m, g.n}};
  case OpKind::BatchMatmul:
    return {{g.b, g.m, g.k}, {g.b, g.k, g.n}, {g.b, g.m, g.n}};
  case OpKind::Conv2dNhwcHwcf:
  case OpKind::Conv2dNchwFchw: {
    const ConvParams &c = *w.conv;
    // linalg convolutions do not pad: the input is given padded.
    int64_t h = c.h + 2 * c.pad, wd = c.w + 2 * c.pad;
    int64_t oh = (h - c.r) / c.stride + 1, ow = (wd - c.s) / c.stride + 1;
    if (w.op == OpKind::Conv2dNhwcHwcf)
      return {{c.n, h, wd, c.c}, {c.r, c.s, c.c, c.f}, {c.n, oh, ow, c.f}};
    return {{c.n, c.c, h, wd}, {c.f, c.c, c.r, c.s}, {c.n, c.f, oh, ow}};
  }
  }
  return {{0}, {0}, {0}};
}

Operands makeOperands(const Workload &w) {
  OperandShapes shapes = operandShapes(w);
  return {HostTensor(w.elem, shapes.lhs), HostTensor(w.elem, shapes.rhs),
          HostTensor(ElemType::F32, shapes.out)};
}

std::string BenchKernel::keyFor(const Workload &w) {
  std::string key =
      std::string(stringify(w.op)) + "-" + std::string(stringify(w.elem));
  if (w.conv)
    key += "-s" + std::to_string(w.conv->stride);
  return key;
}

bool compileBenchLibrary(const Workload &workload, bool microKernels,
                         int threads, const CompileOptions &base,
                         const std::string &outputPath, std::string &error) {
  CompileOptions options = base;
  options.emit = EmitKind::Shared;
  options.useMicroKernels = microKernels;
  options.outputPath = outputPath;
  std::string name = BenchKernel::keyFor(workload) + ".mlir";
  std::string source = linalgSource(workload);
  if (microKernels)
    options.threads = threads;
  CompileResult result = compileSource(source, name, options);
  if (!result.ok()) {
    error = result.error;
    return false;
  }
  return true;
}

std::unique_ptr<BenchKernel>
BenchKernel::compile(const Workload &workload, bool microKernels, int threads,
                     const CompileOptions &base, const std::string &directory,
                     std::string &error) {
  std::unique_ptr<BenchKernel> kernel(new BenchKernel());
  kernel->text = linalgSource(workload);
  kernel->rank = rankOf(workload.op);
  std::string path = directory + "/" + keyFor(workload) +
                     (microKernels ? "-quilt.so" : "-upstream.so");
  if (!compileBenchLibrary(workload, microKernels, threads, base, path, error))
    return nullptr;
  kernel->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!kernel->handle) {
    error = std::string("cannot load ") + path + ": " + dlerror();
    return nullptr;
  }
  kernel->entry = reinterpret_cast<void (*)(void *, void *, void *)>(
      dlsym(kernel->handle, "_mlir_ciface_quilt_bench"));
  if (!kernel->entry) {
    error = path + " has no _mlir_ciface_quilt_bench";
    return nullptr;
  }
  return kernel;
}

BenchKernel::~BenchKernel() {
  if (handle)
    dlclose(handle);
}

void BenchKernel::run(Operands &o) const {
  switch (rank) {
  case 2: {
    auto a = o.lhs.descriptor<2>(), b = o.rhs.descriptor<2>();
    auto c = o.out.descriptor<2>();
    entry(&a, &b, &c);
    break;
  }
  case 3: {
    auto a = o.lhs.descriptor<3>(), b = o.rhs.descriptor<3>();
    auto c = o.out.descriptor<3>();
    entry(&a, &b, &c);
    break;
  }
  default: {
    auto a = o.lhs.descriptor<4>(), b = o.rhs.descriptor<4>();
    auto c = o.out.descriptor<4>();
    entry(&a, &b, &c);
    break;
  }
  }
}

} // namespace quilt::bench
