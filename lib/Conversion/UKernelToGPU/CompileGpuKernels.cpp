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
#include "Conversion/Utils/PtxLinking.h"
#include "KernelCache.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTCOMPILEGPUKERNELS
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;
using quilt::KernelCache;

namespace {

bool isKernel(Operation *op) {
  return op->hasAttr(gpu::GPUDialect::getKernelFuncAttrName()) ||
         op->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName());
}

/// A variable every kernel that uses it must see the same copy of: device
/// memory written at run time. Compiled apart, each kernel's LLVM would
/// assume it alone touches the variable.
bool isSharedState(Operation *op) {
  auto global = dyn_cast<LLVM::GlobalOp>(op);
  if (!global || global.getConstant())
    return false;
  // Shared memory (3) belongs to a thread block, not to the program.
  return global.getAddrSpace() != 3;
}

/// The module-level ops `root` uses, directly or through others, `root`
/// included, in module order.
SmallVector<Operation *> closureOf(Operation *root, SymbolTable &symbols,
                                   gpu::GPUModuleOp module) {
  llvm::SetVector<Operation *> reached;
  reached.insert(root);
  for (size_t next = 0; next < reached.size(); ++next) {
    Operation *op = reached[next];
    auto uses = SymbolTable::getSymbolUses(op);
    if (!uses)
      continue;
    for (const SymbolTable::SymbolUse &use : *uses)
      if (Operation *symbol =
              symbols.lookup(use.getSymbolRef().getRootReference()))
        reached.insert(symbol);
  }
  SmallVector<Operation *> ordered;
  for (Operation &op : module.getBody()->getOperations())
    if (reached.contains(&op))
      ordered.push_back(&op);
  return ordered;
}

/// Runs ptxas on `ptx`; the cubin, or nullopt after an error at `loc`.
std::optional<std::string> assemble(Location loc, StringRef ptx,
                                    NVVM::NVVMTargetAttr target,
                                    StringRef ptxas) {
  SmallString<128> ptxFile, cubinFile, logFile;
  for (auto [file, suffix] :
       {std::pair{&ptxFile, "ptx"}, {&cubinFile, "cubin"}, {&logFile, "log"}})
    if (std::error_code error = llvm::sys::fs::createTemporaryFile(
            "quilt-kernels", suffix, *file)) {
      emitError(loc) << "cannot create a temporary file for ptxas: "
                     << error.message();
      return std::nullopt;
    }
  llvm::FileRemover removePtx(ptxFile), removeCubin(cubinFile),
      removeLog(logFile);
  {
    std::error_code error;
    llvm::raw_fd_ostream out(ptxFile, error);
    out << ptx;
    out.close();
    if (error || out.has_error()) {
      out.clear_error();
      emitError(loc) << "cannot write " << ptxFile << " for ptxas";
      return std::nullopt;
    }
  }
  // What gpu-module-to-binary runs: the chip, the target's optimization
  // level and command-line options.
  std::string optLevel = std::to_string(target.getO());
  SmallVector<StringRef> args = {ptxas, "-arch",   target.getChip(), ptxFile,
                                 "-o",  cubinFile, "--opt-level",    optLevel};
  if (target.hasCmdOptions())
    for (Attribute option : cast<ArrayAttr>(target.getCmdOptions()->getValue()))
      if (auto text = dyn_cast<StringAttr>(option))
        args.push_back(text.getValue());
  std::optional<StringRef> redirects[] = {std::nullopt, logFile.str(),
                                          logFile.str()};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(ptxas, args, /*Env=*/std::nullopt,
                                         redirects, /*SecondsToWait=*/0,
                                         /*MemoryLimit=*/0, &message);
  auto log = llvm::MemoryBuffer::getFile(logFile);
  if (status != 0) {
    InFlightDiagnostic diag = emitError(loc)
                              << "ptxas failed on the linked kernels ("
                              << (message.empty()
                                      ? "exit status " + std::to_string(status)
                                      : message)
                              << ")";
    if (log && (*log)->getBufferSize())
      diag << ":\n" << (*log)->getBuffer();
    return std::nullopt;
  }
  auto cubin = llvm::MemoryBuffer::getFile(cubinFile, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!cubin) {
    emitError(loc) << "ptxas wrote no cubin: " << cubin.getError().message();
    return std::nullopt;
  }
  return (*cubin)->getBuffer().str();
}

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
    KernelCache cache(kernelCache);
    if (cache.enabled())
      if (std::error_code error = cache.prepare()) {
        getOperation().emitError("cannot create the kernel cache directory '")
            << kernelCache << "': " << error.message();
        return signalPassFailure();
      }
    for (auto module : llvm::make_early_inc_range(
             getOperation().getOps<gpu::GPUModuleOp>())) {
      ArrayAttr targets = module.getTargetsAttr();
      if (!targets || targets.size() != 1)
        continue;
      auto target = dyn_cast<NVVM::NVVMTargetAttr>(targets[0]);
      if (!target)
        continue;
      if (failed(compile(module, target, cache)))
        return signalPassFailure();
    }
  }

private:
  /// Replaces `module` by a gpu.binary of its kernels.
  LogicalResult compile(gpu::GPUModuleOp module, NVVM::NVVMTargetAttr target,
                        const KernelCache &cache);

  /// PTX for each of `parts` (from the cache or compiled), in order;
  /// `keyContext` (keyPrefix()) is what else determines a part's PTX.
  FailureOr<SmallVector<std::string>>
  compileParts(ArrayRef<gpu::GPUModuleOp> parts, NVVM::NVVMTargetAttr target,
               const KernelCache &cache, StringRef keyContext);

  /// What else than the module's text determines its PTX.
  std::string keyPrefix() const {
    // libdevice, which the NVVM target links from the toolkit.
    SmallString<128> libdevice(toolkit.getValue());
    llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
    return "quilt-kernel-cache 1\n" + KernelCache::codeGeneratorIdentity() +
           "\n" + KernelCache::fileIdentity(libdevice);
  }
};

FailureOr<SmallVector<std::string>> QuiltCompileGpuKernelsPass::compileParts(
    ArrayRef<gpu::GPUModuleOp> parts, NVVM::NVVMTargetAttr target,
    const KernelCache &cache, StringRef keyContext) {
  SmallVector<std::string> ptx(parts.size());
  gpu::TargetOptions options(toolkit, /*librariesToLink=*/{},
                             /*cmdOptions=*/"", /*elfSection=*/"",
                             gpu::CompilationTarget::Assembly);
  auto gpuTarget = cast<gpu::TargetAttrInterface>(target);
  LogicalResult result = failableParallelForEach(
      &getContext(), llvm::seq<size_t>(0, parts.size()),
      [&](size_t index) -> LogicalResult {
        gpu::GPUModuleOp part = parts[index];
        std::string text;
        {
          llvm::raw_string_ostream os(text);
          part->print(os,
                      OpPrintingFlags().printGenericOpForm().useLocalScope());
        }
        std::string key = KernelCache::hash({keyContext, text});
        if (std::optional<std::string> cached = cache.lookup(key, ".ptx")) {
          ptx[index] = std::move(*cached);
          return success();
        }
        std::optional<SmallVector<char, 0>> object =
            gpuTarget.serializeToObject(part, options);
        if (!object)
          return part.emitError("cannot compile the kernel's module");
        ptx[index].assign(object->begin(), object->end());
        if (std::error_code error = cache.store(key, ".ptx", ptx[index]))
          part.emitWarning("cannot keep the kernel in the kernel cache '")
              << cache.getDirectory() << "': " << error.message();
        return success();
      });
  if (failed(result))
    return failure();
  return ptx;
}

LogicalResult QuiltCompileGpuKernelsPass::compile(gpu::GPUModuleOp module,
                                                  NVVM::NVVMTargetAttr target,
                                                  const KernelCache &cache) {
  SymbolTable symbols(module);
  SmallVector<Operation *> kernels;
  bool onlySymbols = true;
  for (Operation &op : module.getBody()->getOperations()) {
    onlySymbols &= isa<SymbolOpInterface>(op);
    if (isKernel(&op))
      kernels.push_back(&op);
  }

  // One part per kernel, unless kernels share state or the module holds
  // what is not a symbol (which no part would carry): then one part.
  SmallVector<SmallVector<Operation *>> closures;
  for (Operation *kernel : kernels)
    closures.push_back(closureOf(kernel, symbols, module));
  llvm::DenseMap<Operation *, unsigned> users;
  for (const SmallVector<Operation *> &closure : closures)
    for (Operation *op : closure)
      ++users[op];
  bool sharedState = llvm::any_of(users, [](auto entry) {
    return entry.second > 1 && isSharedState(entry.first);
  });
  if (kernels.empty() || sharedState || !onlySymbols)
    closures = {llvm::to_vector(
        llvm::make_pointer_range(module.getBody()->getOperations()))};

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

  // A cubin needs ptxas: found before the kernels are compiled.
  std::string ptxas;
  if (format == "bin") {
    ptxas = (llvm::Twine(toolkit) + "/bin/ptxas").str();
    if (toolkit.empty() || !llvm::sys::fs::can_execute(ptxas)) {
      llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("ptxas");
      if (!found)
        return module.emitError("format=bin needs ptxas: none in '")
               << toolkit << "/bin' or on PATH";
      ptxas = *found;
    }
  }

  std::string prefix = keyPrefix();
  FailureOr<SmallVector<std::string>> ptx =
      compileParts(parts, target, cache, prefix);
  if (failed(ptx))
    return failure();
  std::string error;
  std::optional<std::string> linked = quilt::linkPtxModules(*ptx, error);
  if (!linked)
    return module.emitError("cannot link the kernels' PTX: ") << error;

  std::string object = std::move(*linked);
  if (format == "bin") {
    std::string key =
        KernelCache::hash({prefix, KernelCache::fileIdentity(ptxas), object,
                           target.getChip(), std::to_string(target.getO())});
    if (std::optional<std::string> cubin = cache.lookup(key, ".cubin")) {
      object = std::move(*cubin);
    } else {
      std::optional<std::string> assembled =
          assemble(module.getLoc(), object, target, ptxas);
      if (!assembled)
        return failure();
      object = std::move(*assembled);
      if (std::error_code error = cache.store(key, ".cubin", object))
        module.emitWarning("cannot keep the cubin in the kernel cache '")
            << cache.getDirectory() << "': " << error.message();
    }
  }

  Builder attrs(&getContext());
  DictionaryAttr properties;
  if (format == "isa")
    properties = attrs.getDictionaryAttr(
        attrs.getNamedAttr("O", attrs.getI32IntegerAttr(target.getO())));
  auto objectAttr = gpu::ObjectAttr::get(
      &getContext(), target,
      format == "isa" ? gpu::CompilationTarget::Assembly
                      : gpu::CompilationTarget::Binary,
      attrs.getStringAttr(object), properties, /*kernels=*/nullptr);
  OpBuilder after(module);
  after.setInsertionPointAfter(module);
  gpu::BinaryOp::create(after, module.getLoc(), module.getName(),
                        module.getOffloadingHandlerAttr(),
                        after.getArrayAttr({objectAttr}));
  module.erase();
  return success();
}

} // namespace
