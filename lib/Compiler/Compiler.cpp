//===- Compiler.cpp - Compile a .mlir module to an artifact ---------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Compiler.h"
#include "ParsedSource.h"
#include "Compiler/Registration.h"
#include "CostModel/TargetDatabase.h"
#include "Pipelines/Pipelines.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

namespace quilt {

std::optional<EmitKind> parseEmitKind(std::string_view text) {
  if (text == "mlir")
    return EmitKind::MLIR;
  if (text == "llvm")
    return EmitKind::LLVM;
  if (text == "asm")
    return EmitKind::Asm;
  if (text == "obj")
    return EmitKind::Object;
  if (text == "shared")
    return EmitKind::Shared;
  return std::nullopt;
}

namespace {

/// The LLVM triple, CPU and features code for a CPU target is built for.
struct MachineSpec {
  std::string triple, cpu, features;
};

std::optional<MachineSpec> machineFor(const TargetDesc &target,
                                      std::string &error) {
  if (target.name == "host") {
    std::vector<std::string> features;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features.push_back((feature.second ? "+" : "-") + feature.first().str());
    return MachineSpec{llvm::sys::getProcessTriple(),
                       llvm::sys::getHostCPUName().str(),
                       llvm::join(features, ",")};
  }
  llvm::StringRef chip = target.chip;
  if (chip.starts_with("x86-64"))
    return MachineSpec{"x86_64-unknown-linux-gnu", chip.str(), ""};
  if (chip.starts_with("armv8") || chip.starts_with("armv9"))
    return MachineSpec{"aarch64-unknown-linux-gnu", "generic",
                       "+neon,+" + chip.str()};
  error = "no LLVM machine known for chip '" + chip.str() + "' of target '" +
          target.name + "'";
  return std::nullopt;
}

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const MachineSpec &m,
                                                         std::string &error) {
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(llvm::Triple(m.triple), error);
  if (!llvmTarget)
    return nullptr;
  llvm::TargetOptions targetOptions;
  return std::unique_ptr<llvm::TargetMachine>(llvmTarget->createTargetMachine(
      llvm::Triple(m.triple), m.cpu, m.features, targetOptions,
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

/// Emits assembly or an object file from an optimized LLVM module.
bool emitMachineCode(llvm::Module &module, llvm::TargetMachine &machine,
                     llvm::CodeGenFileType kind, std::string &out,
                     std::string &error) {
  llvm::raw_string_ostream os(out);
  llvm::buffer_ostream buffered(os);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, buffered, nullptr, kind)) {
    error = "LLVM cannot emit this file type for " +
            machine.getTargetTriple().str();
    return false;
  }
  passes.run(module);
  return true;
}

/// Links an object into a shared library against Quilt's runtime with the
/// system C compiler driver.
bool linkShared(const std::string &object, const CompileOptions &options,
                std::string &error) {
  std::string runtimeDir = options.runtimeDir;
  if (runtimeDir.empty()) {
    std::string self = llvm::sys::fs::getMainExecutable(
        nullptr, reinterpret_cast<void *>(&linkShared));
    llvm::SmallString<256> dir(llvm::sys::path::parent_path(
        llvm::sys::path::parent_path(self)));
    llvm::sys::path::append(dir, "lib");
    runtimeDir = dir.str().str();
  }
  llvm::ErrorOr<std::string> driver = llvm::sys::findProgramByName("cc");
  if (!driver)
    driver = llvm::sys::findProgramByName("gcc");
  if (!driver) {
    error = "cannot link a shared library: no 'cc' or 'gcc' on PATH";
    return false;
  }
  llvm::SmallString<128> objectPath;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("quiltc", "o", fd, objectPath)) {
    error = "cannot create a temporary object file: " + ec.message();
    return false;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << object;
  }
  std::vector<std::string> args = {*driver,
                                   "-shared",
                                   "-o",
                                   options.outputPath,
                                   objectPath.str().str(),
                                   "-L" + runtimeDir,
                                   "-lquilt_runtime",
                                   "-Wl,-rpath," + runtimeDir,
                                   "-lm"};
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*driver, argRefs, std::nullopt, {},
                                         0, 0, &message);
  llvm::sys::fs::remove(objectPath);
  if (status != 0) {
    error = "linking " + options.outputPath + " failed (" + *driver +
            (message.empty() ? "" : ": " + message) + ")";
    return false;
  }
  return true;
}

} // namespace

CompileResult compileSource(std::string_view source,
                            std::string_view sourceName,
                            const CompileOptions &options) {
  CompileResult result;
  registerCompilerPassesOnce();

  TargetDatabase database = TargetDatabase::withBuiltins();
  if (!options.targetFile.empty() &&
      !database.addFromFile(options.targetFile, result.error))
    return result;
  const TargetDesc *target = database.lookup(options.target);
  if (!target) {
    result.error = "unknown target '" + options.target +
                   "'; known targets: " + llvm::join(database.names(), ", ");
    return result;
  }
  if (target->isGpu()) {
    result.error = "target '" + target->name + "' is a " +
                   std::string(stringify(target->vendor)) +
                   " GPU; quiltc compiles for CPU targets so far (host, "
                   "host-avx512, host-avx2, host-neon)";
    return result;
  }
  if (options.emit == EmitKind::Shared && options.outputPath.empty()) {
    result.error = "--emit=shared needs an output file (-o)";
    return result;
  }

  ParsedSource parsed(source, sourceName);
  auto fail = [&](std::string fallback) {
    result.error = parsed.error(std::move(fallback));
    return result;
  };
  ModuleOp module = parsed.module();
  if (!module)
    return fail("cannot parse the input");

  PassManager pm(&parsed.getContext());
  if (options.useMicroKernels) {
    HostPipelineOptions pipeline;
    pipeline.target = options.target;
    pipeline.targetFile = options.targetFile;
    pipeline.policy = options.policy;
    pipeline.maxCandidates = options.maxCandidates;
    buildLowerToHostPipeline(pm, pipeline);
  } else {
    buildUpstreamHostPipeline(pm);
  }
  if (failed(pm.run(module)))
    return fail("the pipeline failed");

  if (options.emit == EmitKind::MLIR) {
    llvm::raw_string_ostream os(result.artifact);
    module.print(os);
    return result;
  }

  std::string error;
  std::optional<MachineSpec> machineSpec = machineFor(*target, error);
  if (!machineSpec)
    return fail(error);
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(*machineSpec, error);
  if (!machine)
    return fail("cannot create an LLVM target machine for " +
                machineSpec->triple + ": " + error);

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, sourceName);
  if (!llvmModule)
    return fail("cannot translate the module to LLVM IR");
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());
  auto optimize = makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0,
                                            machine.get());
  if (llvm::Error err = optimize(llvmModule.get()))
    return fail("LLVM optimization failed: " +
                llvm::toString(std::move(err)));

  switch (options.emit) {
  case EmitKind::MLIR:
    break;
  case EmitKind::LLVM: {
    llvm::raw_string_ostream os(result.artifact);
    llvmModule->print(os, nullptr);
    break;
  }
  case EmitKind::Asm:
  case EmitKind::Object:
  case EmitKind::Shared: {
    auto kind = options.emit == EmitKind::Asm
                    ? llvm::CodeGenFileType::AssemblyFile
                    : llvm::CodeGenFileType::ObjectFile;
    if (!emitMachineCode(*llvmModule, *machine, kind, result.artifact, error))
      return fail(error);
    if (options.emit == EmitKind::Shared) {
      if (!linkShared(result.artifact, options, error))
        return fail(error);
      result.artifact.clear();
    }
    break;
  }
  }
  return result;
}

} // namespace quilt
