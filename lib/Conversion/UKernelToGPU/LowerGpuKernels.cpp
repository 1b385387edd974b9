//===- LowerGpuKernels.cpp - The quilt-lower-gpu-kernels pass -------------===//
//
// Part of the Quilt project. Lowering a device module to the LLVM dialect
// (convert-gpu-to-nvvm or -rocdl and the passes around them) is a third of
// a GPU compile, and programs share most of their kernels. This pass runs
// the device pipeline on each kernel on its own (with the functions and
// variables it uses) and keeps the lowered kernel in the kernel cache under
// its unlowered text, so that a kernel lowered before is not lowered again;
// the lowered parts are then put back into their module, which goes on to
// quilt-compile-gpu-kernels as if it had been lowered whole.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"
#include "Conversion/Utils/KernelCache.h"
#include "KernelPartition.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTLOWERGPUKERNELS
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;
using quilt::KernelCache;

namespace {

/// `op` as MLIR bytecode, which parses several times faster than text.
std::string bytecode(Operation *op) {
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  if (failed(writeBytecodeToFile(op, os)))
    return "";
  return bytes;
}

struct QuiltLowerGpuKernelsPass
    : public quilt::impl::QuiltLowerGpuKernelsBase<QuiltLowerGpuKernelsPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    // What the device pipeline's passes produce is loaded before the pass
    // runs, as for a pipeline nested in the pass manager.
    std::string errors;
    llvm::raw_string_ostream os(errors);
    if (FailureOr<OpPassManager> pipeline = parsePipeline(os);
        succeeded(pipeline))
      pipeline->getDependentDialects(registry);
  }

  void runOnOperation() override {
    std::string errors;
    llvm::raw_string_ostream os(errors);
    FailureOr<OpPassManager> pipeline = parsePipeline(os);
    if (failed(pipeline)) {
      getOperation().emitError("quilt-lower-gpu-kernels: cannot use "
                               "device-pipeline '")
          << devicePipeline << "': " << errors;
      return signalPassFailure();
    }
    std::optional<KernelCache> cache =
        quilt::openKernelCache(getOperation(), kernelCache);
    if (!cache)
      return signalPassFailure();
    for (auto module :
         llvm::make_early_inc_range(getOperation().getOps<gpu::GPUModuleOp>()))
      if (failed(lower(module, *pipeline, *cache)))
        return signalPassFailure();
  }

private:
  /// The device pipeline, which must be anchored on gpu.module.
  FailureOr<OpPassManager> parsePipeline(raw_ostream &errors) const {
    FailureOr<OpPassManager> pipeline =
        parsePassPipeline(devicePipeline, errors);
    if (succeeded(pipeline) &&
        pipeline->getOpAnchorName() != gpu::GPUModuleOp::getOperationName()) {
      errors << "it is anchored on '" << pipeline->getOpAnchorName()
             << "', not gpu.module";
      return failure();
    }
    return pipeline;
  }

  /// What else than a part's ops determines its lowered form: the pipeline,
  /// the code that runs it, and the module's target.
  std::string keyContext(OpPassManager &pipeline, gpu::GPUModuleOp module) {
    std::string passes;
    {
      llvm::raw_string_ostream os(passes);
      pipeline.printAsTextualPipeline(os);
    }
    std::string context = "quilt-lowered-kernel 1\n" +
                          KernelCache::codeGeneratorIdentity() + "\n" + passes +
                          "\n";
    llvm::raw_string_ostream os(context);
    // Quilt's own passes change with Quilt; upstream's with libMLIR.
    if (StringRef(passes).contains("quilt") ||
        StringRef(passes).contains("ukernel"))
      os << KernelCache::fileIdentity(KernelCache::fileHolding(
                reinterpret_cast<const void *>(&bytecode)))
         << "\n";
    if (ArrayAttr targets = module.getTargetsAttr())
      os << targets;
    if (Attribute handler = module.getOffloadingHandlerAttr())
      os << " " << handler;
    return context;
  }

  /// Lowers `module`'s device code with `pipeline`: whole without a cache,
  /// else part by part through it, the parts it lacks side by side on the
  /// context's threads.
  LogicalResult lower(gpu::GPUModuleOp module, OpPassManager &pipeline,
                      const KernelCache &cache);
};

LogicalResult QuiltLowerGpuKernelsPass::lower(gpu::GPUModuleOp module,
                                              OpPassManager &pipeline,
                                              const KernelCache &cache) {
  if (!cache.enabled())
    return runPipeline(pipeline, module);

  std::string context = keyContext(pipeline, module);
  SmallVector<SmallVector<Operation *>> parts = quilt::partitionKernels(module);

  // Each part lowered, as a gpu.module in `lowered`: parsed from the cache
  // (into a module `cachedHolders` owns), or cloned into `missing` and
  // lowered there with the other parts the cache lacks.
  SmallVector<gpu::GPUModuleOp> lowered(parts.size());
  SmallVector<OwningOpRef<ModuleOp>> cachedHolders;
  SmallVector<std::string> keys;
  for (const SmallVector<Operation *> &part : parts) {
    std::string fingerprints;
    for (Operation *op : part)
      fingerprints += KernelCache::fingerprint(op);
    keys.push_back(KernelCache::hash({context, fingerprints}));
    std::optional<std::string> entry = cache.lookup(keys.back(), ".mlirbc");
    if (!entry)
      continue;
    cachedHolders.push_back(ModuleOp::create(module.getLoc()));
    ParserConfig config(&getContext());
    Block *holder = cachedHolders.back()->getBody();
    // A spoiled entry is no error of the program's: it is not reported, and
    // the part is lowered again (and the entry replaced).
    ScopedDiagnosticHandler quiet(&getContext(),
                                  [](Diagnostic &) { return success(); });
    if (succeeded(parseSourceString(*entry, holder, config)) &&
        llvm::hasSingleElement(*holder) &&
        isa<gpu::GPUModuleOp>(holder->front()))
      lowered[keys.size() - 1] = cast<gpu::GPUModuleOp>(holder->front());
    else
      cachedHolders.pop_back();
  }

  // The parts the cache lacks, each a gpu.module in one builtin.module
  // nested in this pass's (a pipeline runs on ops nested in its pass's):
  // the pass manager lowers sibling gpu.modules in parallel.
  OpBuilder builder = OpBuilder::atBlockEnd(getOperation().getBody());
  auto missing = ModuleOp::create(builder, module.getLoc());
  llvm::scope_exit eraseMissing([&] { missing.erase(); });
  OpBuilder intoMissing = OpBuilder::atBlockEnd(missing.getBody());
  SymbolTable missingSymbols(missing);
  for (auto [part, lowering] : llvm::zip_equal(parts, lowered)) {
    if (lowering)
      continue;
    lowering = cast<gpu::GPUModuleOp>(intoMissing.cloneWithoutRegions(*module));
    missingSymbols.insert(lowering); // Renamed apart from the other parts.
    lowering.getBodyRegion().emplaceBlock();
    OpBuilder inside = OpBuilder::atBlockEnd(lowering.getBody());
    for (Operation *op : part)
      inside.clone(*op);
  }
  if (!missing.getBody()->empty()) {
    OpPassManager eachPart(ModuleOp::getOperationName());
    eachPart.nest<gpu::GPUModuleOp>() = pipeline;
    if (failed(runPipeline(eachPart, missing)))
      return failure();
  }
  for (auto [key, lowering] : llvm::zip_equal(keys, lowered)) {
    if (lowering->getParentOp() != missing)
      continue;
    std::string entry = bytecode(lowering);
    if (entry.empty())
      continue;
    if (std::error_code error = cache.store(key, ".mlirbc", entry))
      module.emitWarning("cannot keep the lowered kernel in the kernel cache '")
          << cache.getDirectory() << "': " << error.message();
  }

  // The parts' ops, each symbol once. Parts that lowered one function or
  // variable two ways cannot share a module: then the module is lowered
  // whole, as without a cache. Ops are fingerprinted to compare only when a
  // name comes back.
  SmallVector<Operation *> merged;
  llvm::StringMap<Operation *> seen;
  for (gpu::GPUModuleOp part : lowered)
    for (Operation &op : part.getBody()->getOperations()) {
      auto symbol = dyn_cast<SymbolOpInterface>(op);
      if (!symbol) {
        merged.push_back(&op);
        continue;
      }
      auto [it, inserted] = seen.try_emplace(symbol.getName(), &op);
      if (inserted)
        merged.push_back(&op);
      else if (KernelCache::fingerprint(it->second) !=
               KernelCache::fingerprint(&op))
        return runPipeline(pipeline, module);
    }
  // What the pipeline set on the module (a data layout, say) with the ops.
  for (NamedAttribute attr : lowered.front()->getAttrs())
    if (attr.getName() != SymbolTable::getSymbolAttrName())
      module->setAttr(attr.getName(), attr.getValue());
  module.getBody()->clear();
  for (Operation *op : merged)
    op->moveBefore(module.getBody(), module.getBody()->end());
  return success();
}

} // namespace
