//===- CompileGpuKernels.cpp - The quilt-compile-gpu-kernels pass ---------===//
//
// Part of the Quilt project. gpu-module-to-binary hands LLVM a program's
// whole device module; most of a GPU compile is LLVM optimizing and NVPTX
// emitting that module, kernel after kernel. This pass compiles each kernel
// on its own instead (with the functions and variables it uses), in
// parallel, through a cache of compiled kernels, and links the PTX back
// into one module, so the program still loads one binary.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"
#include "Conversion/Utils/KernelCache.h"
#include "DeviceToolchain.h"
#include "KernelPartition.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Threading.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTCOMPILEGPUKERNELS
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;
using quilt::DeviceToolchain;
using quilt::KernelCache;

namespace {

struct QuiltCompileGpuKernelsPass
    : public quilt::impl::QuiltCompileGpuKernelsBase<
          QuiltCompileGpuKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (format != "isa" && format != "bin") {
      getOperation().emitError("quilt-compile-gpu-kernels: format must be isa "
                               "or bin, not '")
          << format << "'";
      return signalPassFailure();
    }
    std::optional<KernelCache> cache =
        quilt::openKernelCache(getOperation(), kernelCache);
    if (!cache)
      return signalPassFailure();
    for (auto module : llvm::make_early_inc_range(
             getOperation().getOps<gpu::GPUModuleOp>())) {
      ArrayAttr targets = module.getTargetsAttr();
      if (!targets || targets.size() != 1 ||
          !DeviceToolchain::supports(targets[0]))
        continue;
      DeviceToolchain toolchain(cast<gpu::TargetAttrInterface>(targets[0]),
                                toolkit);
      if (failed(compile(module, toolchain, *cache)))
        return signalPassFailure();
    }
  }

private:
  /// Replaces `module` by a gpu.binary of its kernels.
  LogicalResult compile(gpu::GPUModuleOp module,
                        const DeviceToolchain &toolchain,
                        const KernelCache &cache);

  /// The code of each of `parts` (from the cache or compiled), in order;
  /// `keyContext` is what else than a part's text determines its code.
  FailureOr<SmallVector<std::string>>
  compileParts(ArrayRef<gpu::GPUModuleOp> parts,
               const DeviceToolchain &toolchain, const KernelCache &cache,
               StringRef keyContext);
};

FailureOr<SmallVector<std::string>> QuiltCompileGpuKernelsPass::compileParts(
    ArrayRef<gpu::GPUModuleOp> parts, const DeviceToolchain &toolchain,
    const KernelCache &cache, StringRef keyContext) {
  SmallVector<std::string> code(parts.size());
  gpu::TargetOptions options(toolkit, /*librariesToLink=*/{},
                             /*cmdOptions=*/"", /*elfSection=*/"",
                             gpu::CompilationTarget::Assembly);
  StringRef suffix = toolchain.codeSuffix();
  LogicalResult result = failableParallelForEach(
      &getContext(), llvm::seq<size_t>(0, parts.size()),
      [&](size_t index) -> LogicalResult {
        gpu::GPUModuleOp part = parts[index];
        std::string key =
            KernelCache::hash({keyContext, KernelCache::fingerprint(part)});
        if (std::optional<std::string> cached = cache.lookup(key, suffix)) {
          code[index] = std::move(*cached);
          return success();
        }
        std::optional<SmallVector<char, 0>> object =
            toolchain.getTarget().serializeToObject(part, options);
        if (!object)
          return part.emitError("cannot compile the kernel's module");
        code[index].assign(object->begin(), object->end());
        if (std::error_code error = cache.store(key, suffix, code[index]))
          part.emitWarning("cannot keep the kernel in the kernel cache '")
              << cache.getDirectory() << "': " << error.message();
        return success();
      });
  if (failed(result))
    return failure();
  return code;
}

LogicalResult
QuiltCompileGpuKernelsPass::compile(gpu::GPUModuleOp module,
                                    const DeviceToolchain &toolchain,
                                    const KernelCache &cache) {
  SmallVector<SmallVector<Operation *>> closures =
      quilt::partitionKernels(module);

  // The parts are gpu.modules like `module` in a scratch module.
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(module.getLoc());
  OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
  SmallVector<gpu::GPUModuleOp> parts;
  for (const SmallVector<Operation *> &closure : closures) {
    auto part = cast<gpu::GPUModuleOp>(builder.cloneWithoutRegions(*module));
    part.getBodyRegion().emplaceBlock();
    OpBuilder inside = OpBuilder::atBlockEnd(part.getBody());
    for (Operation *op : closure)
      inside.clone(*op);
    parts.push_back(part);
  }

  // A binary needs its tool: found before the kernels are compiled.
  bool binary = format == "bin";
  std::string tool;
  if (binary) {
    std::string error;
    std::optional<std::string> found = toolchain.findBinaryTool(error);
    if (!found)
      return module.emitError(error);
    tool = std::move(*found);
  }

  std::string keyContext = toolchain.keyContext();
  FailureOr<SmallVector<std::string>> code =
      compileParts(parts, toolchain, cache, keyContext);
  if (failed(code))
    return failure();
  std::string error;
  std::optional<std::string> linked = toolchain.link(*code, error);
  if (!linked)
    return module.emitError("cannot link the kernels' ")
           << toolchain.codeName() << ": " << error;

  std::string object = std::move(*linked);
  if (binary) {
    std::string key = KernelCache::hash(
        {keyContext, toolchain.binaryKeyContext(tool), object});
    StringRef suffix = toolchain.binarySuffix();
    if (std::optional<std::string> cached = cache.lookup(key, suffix)) {
      object = std::move(*cached);
    } else {
      std::optional<std::string> assembled =
          toolchain.assemble(module.getLoc(), object, tool);
      if (!assembled)
        return failure();
      object = std::move(*assembled);
      if (std::error_code error = cache.store(key, suffix, object))
        module.emitWarning("cannot keep the binary in the kernel cache '")
            << cache.getDirectory() << "': " << error.message();
    }
  }

  Builder attrs(&getContext());
  auto objectAttr = gpu::ObjectAttr::get(
      &getContext(), toolchain.getTarget(),
      binary ? gpu::CompilationTarget::Binary
             : gpu::CompilationTarget::Assembly,
      attrs.getStringAttr(object), toolchain.objectProperties(attrs, binary),
      /*kernels=*/nullptr);
  OpBuilder after(module);
  after.setInsertionPointAfter(module);
  gpu::BinaryOp::create(after, module.getLoc(), module.getName(),
                        module.getOffloadingHandlerAttr(),
                        after.getArrayAttr({objectAttr}));
  module.erase();
  return success();
}

} // namespace
