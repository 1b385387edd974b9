//===- Compiler.cpp - Compile a .mlir module to an artifact ---------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Compiler.h"
#include "Compiler/Registration.h"
#include "Conversion/Utils/KernelCache.h"
#include "CostModel/TargetDatabase.h"
#include "ParsedSource.h"
#include "Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

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
  if (text == "ptx")
    return EmitKind::Ptx;
  if (text == "cubin")
    return EmitKind::Cubin;
  if (text == "isa")
    return EmitKind::Isa;
  if (text == "hsaco")
    return EmitKind::Hsaco;
  return std::nullopt;
}

bool isDeviceCode(EmitKind kind) {
  return kind == EmitKind::Ptx || kind == EmitKind::Cubin ||
         kind == EmitKind::Isa || kind == EmitKind::Hsaco;
}

namespace {

/// The LLVM triple, CPU and features code for a CPU target is built for.
struct MachineSpec {
  std::string triple, cpu, features;
};

std::optional<MachineSpec> machineFor(const TargetDesc &target,
                                      std::string &error) {
  // A GPU program's host code runs on this machine's CPU.
  if (target.name == "host" || target.isGpu()) {
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
  if (chip.starts_with("armv8") || chip.starts_with("armv9")) {
    // The architecture version as LLVM's AArch64 feature: "armv8.2-a" is
    // "+v8.2a".
    std::string version = chip.drop_front(3).str();
    llvm::erase(version, '-');
    return MachineSpec{"aarch64-unknown-linux-gnu", "generic",
                       "+neon,+" + version};
  }
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

/// Whether code for `machine` may use scalable vectors (`vector<[4]xf32>`):
/// AArch64 with SVE, RISC-V with a V extension. Elsewhere LLVM's
/// optimizer and instruction selection abort on them.
bool hasScalableVectors(const llvm::TargetMachine &machine) {
  const llvm::Triple &triple = machine.getTargetTriple();
  const llvm::MCSubtargetInfo *subtarget = machine.getMCSubtargetInfo();
  if (triple.isAArch64())
    return subtarget->checkFeatures("+sve");
  if (triple.isRISCV())
    return subtarget->checkFeatures("+zve32x");
  return false;
}

/// The first operation of `module` whose operands, results or region
/// arguments have a scalable vector type (also as a memref's element), and
/// that type; {nullptr, {}} when none has.
std::pair<Operation *, Type> firstScalableVectorUse(ModuleOp module) {
  auto scalable = [](Type type) {
    bool found = false;
    type.walk([&](VectorType vector) { found |= vector.isScalable(); });
    return found;
  };
  std::pair<Operation *, Type> use{nullptr, Type()};
  module.walk([&](Operation *op) {
    auto check = [&](TypeRange types) {
      for (Type type : types)
        if (scalable(type)) {
          use = {op, type};
          return true;
        }
      return false;
    };
    if (check(op->getOperandTypes()) || check(op->getResultTypes()))
      return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (check(block.getArgumentTypes()))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return use;
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
                const TargetDesc &target, std::string &error) {
  std::string runtimeDir =
      options.runtimeDir.empty() ? defaultRuntimeDir() : options.runtimeDir;
  // GPU programs launch through the mgpu* ABI of Quilt's GPU runtime.
  std::string gpuRuntime;
  if (target.isGpu()) {
    gpuRuntime = target.vendor == Vendor::NVIDIA ? "quilt_cuda_runtime"
                                                 : "quilt_hip_runtime";
    if (!llvm::sys::fs::exists(runtimeDir + "/lib" + gpuRuntime + ".so")) {
      error = "cannot link a " + std::string(stringify(target.vendor)) +
              " GPU library: lib" + gpuRuntime + ".so is not in " + runtimeDir +
              " (it is built when the " +
              (target.vendor == Vendor::NVIDIA ? "CUDA" : "HIP") +
              " headers are found)";
      return false;
    }
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
  if (!gpuRuntime.empty())
    args.insert(args.begin() + 6, "-l" + gpuRuntime);
  // LLVM lowers some conversions to calls into its builtins library
  // (bf16 stores on x86 without AVX-512 BF16 call __truncsfbf2), which
  // Debian 12's libgcc lacks: link this LLVM's compiler-rt builtins where
  // they are installed (libclang-rt-22-dev). A static archive: only what
  // the object calls is taken.
  std::string builtins =
      std::string(QUILT_LLVM_LIBRARY_DIR) + "/clang/" +
      std::to_string(LLVM_VERSION_MAJOR) + "/lib/linux/libclang_rt.builtins-" +
      llvm::Triple(llvm::sys::getProcessTriple()).getArchName().str() + ".a";
  if (llvm::sys::fs::exists(builtins))
    args.push_back(builtins);
  // Multi-threaded kernels call LLVM's OpenMP runtime.
  if (!target.isGpu() && options.threads != 1) {
    std::string ompDir = QUILT_LLVM_LIBRARY_DIR;
    if (!llvm::sys::fs::exists(ompDir + "/libomp.so")) {
      llvm::sys::fs::remove(objectPath);
      error = "--threads " + std::to_string(options.threads) +
              " needs LLVM's OpenMP runtime (libomp.so in " + ompDir +
              ", package libomp-22-dev)";
      return false;
    }
    args.insert(args.end(), {"-L" + ompDir, "-lomp", "-Wl,-rpath," + ompDir});
  }
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*driver, argRefs, std::nullopt, {}, 0,
                                         0, &message);
  llvm::sys::fs::remove(objectPath);
  if (status != 0) {
    error = "linking " + options.outputPath + " failed (" + *driver +
            (message.empty() ? "" : ": " + message) + ")";
    return false;
  }
  return true;
}

GpuVendor gpuVendorOf(const TargetDesc &target) {
  return target.vendor == Vendor::AMD ? GpuVendor::AMD : GpuVendor::NVIDIA;
}

/// Empty when `options.threads` makes sense for `target`, else why not.
std::string checkThreadsForTarget(const CompileOptions &options,
                                  const TargetDesc &target) {
  if (options.threads < 0)
    return "--threads must be 0 (as many as OpenMP gives) or more, got " +
           std::to_string(options.threads);
  if (options.threads != 1 && target.isGpu())
    return "--threads applies to CPU targets; '" + target.name +
           "' is a GPU, whose kernels use its thread blocks";
  if (options.threads != 1 && !options.useMicroKernels)
    return "--threads applies to Quilt's kernels, not to the upstream "
           "baseline lowering";
  return "";
}

/// Empty when the candidate count and chip make sense for `target`, else
/// why not.
std::string checkCandidatesAndChip(const CompileOptions &options,
                                   const TargetDesc &target) {
  if (options.maxCandidates < 1)
    return "--max-candidates must be at least 1, got " +
           std::to_string(options.maxCandidates);
  if (!options.chip.empty() && !target.isGpu())
    return "--chip applies to GPU targets (sm_*, gfx*); '" + target.name +
           "' is a CPU target";
  return "";
}

/// Empty when `options.deviceFormat` makes sense, else why not.
std::string checkDeviceFormat(const CompileOptions &options,
                              const TargetDesc &target) {
  const std::string &format = options.deviceFormat;
  if (format != "auto" && format != "isa" && format != "bin")
    return "--device-format must be isa, bin or auto, not '" + format + "'";
  if (format == "auto")
    return "";
  if (!target.isGpu())
    return "--device-format applies to GPU targets; '" + target.name +
           "' is a CPU";
  if (isDeviceCode(options.emit))
    return "--device-format applies to device code embedded in host code; "
           "--emit=ptx|cubin|isa|hsaco choose the device code's form "
           "themselves";
  if (format == "bin" &&
      findGpuToolkit(gpuVendorOf(target), options.toolkit).empty())
    return std::string("--device-format=bin needs ") +
           (target.vendor == Vendor::NVIDIA
                ? "ptxas (a CUDA toolkit: set CUDA_HOME or --toolkit)"
                : "ld.lld (lld-22, or a ROCm tree: set ROCM_PATH or "
                  "--toolkit)");
  return "";
}

/// Empty when `options.emit` makes sense for `target`, else why not.
std::string checkEmitForTarget(const CompileOptions &options,
                               const TargetDesc &target) {
  if (options.emit == EmitKind::Shared && options.outputPath.empty())
    return "--emit=shared needs an output file (-o)";
  if (!isDeviceCode(options.emit))
    return "";
  std::string kind = options.emit == EmitKind::Ptx     ? "ptx"
                     : options.emit == EmitKind::Cubin ? "cubin"
                     : options.emit == EmitKind::Isa   ? "isa"
                                                       : "hsaco";
  if (!target.isGpu())
    return "--emit=" + kind + " is device code, but target '" + target.name +
           "' is a CPU: use --emit=asm or obj";
  bool nvidia = target.vendor == Vendor::NVIDIA;
  if ((options.emit == EmitKind::Ptx || options.emit == EmitKind::Cubin) &&
      !nvidia)
    return "--emit=" + kind + " is NVIDIA device code, but target '" +
           target.name + "' is an AMD GPU: use --emit=isa or hsaco";
  if (options.emit == EmitKind::Hsaco && nvidia)
    return "--emit=hsaco is AMD device code, but target '" + target.name +
           "' is an NVIDIA GPU: use --emit=ptx or cubin";
  if ((options.emit == EmitKind::Cubin || options.emit == EmitKind::Hsaco) &&
      findGpuToolkit(gpuVendorOf(target), options.toolkit).empty())
    return "--emit=" + kind + " needs " +
           (nvidia ? "ptxas (a CUDA toolkit: set CUDA_HOME or --toolkit)"
                   : "ld.lld (lld-22, or a ROCm tree: set ROCM_PATH or "
                     "--toolkit)") +
           "; --emit=" + (nvidia ? "ptx" : "isa") + " needs neither";
  return "";
}

/// The device code of the program's gpu.binary (quilt-merge-gpu-modules
/// leaves one), text kinds after a comment naming it.
bool extractDeviceCode(ModuleOp module, EmitKind kind, std::string &out,
                       std::string &error) {
  SmallVector<gpu::BinaryOp> binaries(module.getOps<gpu::BinaryOp>());
  if (binaries.empty()) {
    error = "the program has no device code (no linalg op was mapped to the "
            "GPU)";
    return false;
  }
  if (binaries.size() != 1) {
    error = "the program has " + std::to_string(binaries.size()) +
            " device modules where the pipeline merges them into one";
    return false;
  }
  bool text = kind == EmitKind::Ptx || kind == EmitKind::Isa;
  for (gpu::BinaryOp binary : binaries) {
    for (Attribute attr : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(attr);
      if (text) {
        const char *comment =
            isa<NVVM::NVVMTargetAttr>(object.getTarget()) ? "//" : ";";
        out += std::string(comment) + " gpu.binary @" + binary.getName().str() +
               "\n";
      }
      out += object.getObject().getValue().str();
    }
  }
  return true;
}

} // namespace

std::string defaultRuntimeDir() {
  std::string self = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&defaultRuntimeDir));
  llvm::SmallString<256> dir(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(self)));
  llvm::sys::path::append(dir, "lib");
  return dir.str().str();
}

namespace {

/// compileSource with its phases timed under `root` (a no-op scope unless
/// timing is enabled).
CompileResult compileTimed(std::string_view source, std::string_view sourceName,
                           const CompileOptions &options, TimingScope &root) {
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
  for (const std::string &error : {checkEmitForTarget(options, *target),
                                   checkThreadsForTarget(options, *target),
                                   checkCandidatesAndChip(options, *target),
                                   checkDeviceFormat(options, *target)}) {
    if (!error.empty()) {
      result.error = error;
      return result;
    }
  }

  TimingScope parsing = root.nest("parse");
  ParsedSource parsed(source, sourceName);
  parsing.stop();
  auto fail = [&](std::string fallback) {
    result.error = parsed.error(std::move(fallback));
    return result;
  };
  ModuleOp module = parsed.module();
  if (!module)
    return fail("cannot parse the input");

  // The CPU code's machine, needed for any artifact but MLIR and device
  // code; scalable vectors it cannot compile are refused here, before they
  // reach LLVM's optimizer (which aborts on them).
  bool needsMachine = options.emit != EmitKind::MLIR && !isDeviceCode(options.emit);
  std::string machineError;
  std::optional<MachineSpec> machineSpec = machineFor(*target, machineError);
  std::unique_ptr<llvm::TargetMachine> machine;
  if (machineSpec)
    machine = createTargetMachine(*machineSpec, machineError);
  if (!machineSpec && needsMachine)
    return fail(machineError);
  if (!machine && needsMachine)
    return fail("cannot create an LLVM target machine for " +
                machineSpec->triple + ": " + machineError);
  if (needsMachine && !hasScalableVectors(*machine)) {
    if (auto [op, type] = firstScalableVectorUse(module); op) {
      op->emitError() << "scalable vector type " << type
                      << " needs a CPU with scalable vectors (AArch64 SVE, "
                         "RISC-V V), but target '"
                      << target->name << "' compiles "
                      << (target->isGpu() ? "its host code " : "") << "for "
                      << machineSpec->triple << " ("
                      << (machineSpec->cpu.empty() ? "generic"
                                                   : machineSpec->cpu)
                      << ")";
      return fail("scalable vectors on a target without them");
    }
  }

  // Compiled kernels and host objects are kept here (the kernel cache).
  std::string cacheDirectory = options.kernelCache;
  if (cacheDirectory.empty())
    if (std::optional<std::string> directory =
            llvm::sys::Process::GetEnv("QUILT_KERNEL_CACHE"))
      cacheDirectory = *directory;

  // Declared first: the pass manager's timing instrumentation refers to it
  // until the pass manager is destroyed.
  TimingScope pipelineTime = root.nest("pipeline");
  PassManager pm(&parsed.getContext());
  if (target->isGpu()) {
    if (!options.useMicroKernels)
      return fail("the upstream baseline lowering is host-only");
    // A chip of the other vendor would fail deep in the pipeline (the AMDGPU
    // conversion's chipset parser, or NVPTX instruction selection).
    if (!options.chip.empty()) {
      bool amd = gpuVendorOf(*target) == GpuVendor::AMD;
      llvm::StringRef prefix = amd ? "gfx" : "sm_";
      if (!llvm::StringRef(options.chip).starts_with(prefix)) {
        result.error = "--chip '" + options.chip + "' is not " +
                       (amd ? "an AMD chip (gfx*)" : "an NVIDIA chip (sm_*)") +
                       ", but target '" + options.target + "' is " +
                       (amd ? "an AMD" : "an NVIDIA") + " GPU";
        return result;
      }
    }
    GpuPipelineOptions pipeline;
    pipeline.target = options.target;
    pipeline.targetFile = options.targetFile;
    pipeline.policy = options.policy;
    pipeline.maxCandidates = options.maxCandidates;
    pipeline.tuningDb = options.tuningDb;
    pipeline.residualModel = options.residualModel;
    pipeline.chip = options.chip;
    pipeline.toolkit = options.toolkit;
    pipeline.nativeWgmma = options.nativeWgmma;
    pipeline.tmaLoads = options.tmaLoads && options.nativeWgmma;
    pipeline.format = options.deviceFormat;
    pipeline.kernelCache = cacheDirectory;
    if (options.emit == EmitKind::Ptx || options.emit == EmitKind::Isa)
      pipeline.format = "isa";
    else if (options.emit == EmitKind::Cubin || options.emit == EmitKind::Hsaco)
      pipeline.format = "bin";
    buildLowerToGpuPipeline(pm, gpuVendorOf(*target), pipeline);
  } else if (options.useMicroKernels) {
    HostPipelineOptions pipeline;
    pipeline.target = options.target;
    pipeline.targetFile = options.targetFile;
    pipeline.policy = options.policy;
    pipeline.maxCandidates = options.maxCandidates;
    pipeline.tuningDb = options.tuningDb;
    pipeline.residualModel = options.residualModel;
    pipeline.threads = options.threads;
    buildLowerToHostPipeline(pm, pipeline);
  } else {
    buildUpstreamHostPipeline(pm);
  }
  pm.enableTiming(pipelineTime);
  pm.enableVerifier(options.verifyEachPass);
  if (failed(pm.run(module)))
    return fail("the pipeline failed");
  // The input was verified when it was parsed; what the pipeline made of it
  // is verified here unless every pass's output was.
  if (!options.verifyEachPass && failed(verify(module)))
    return fail("the pipeline produced invalid IR (a bug in Quilt; "
                "--verify-each names the pass)");
  pipelineTime.stop();

  if (options.emit == EmitKind::MLIR) {
    TimingScope printing = root.nest("print MLIR");
    llvm::raw_string_ostream os(result.artifact);
    module.print(os);
    return result;
  }
  if (isDeviceCode(options.emit)) {
    std::string error;
    if (!extractDeviceCode(module, options.emit, result.artifact, error))
      return fail(error);
    return result;
  }

  std::string error;
  llvm::LLVMContext llvmContext;
  TimingScope translation = root.nest("translate to LLVM IR");
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, sourceName);
  if (!llvmModule)
    return fail("cannot translate the module to LLVM IR");
  translation.stop();
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());

  // Machine code comes from the kernel cache when this module (unoptimized)
  // was compiled for this machine before: the optimizer and the backend,
  // most of a host compile, are skipped.
  bool emitsMachineCode = options.emit == EmitKind::Asm ||
                          options.emit == EmitKind::Object ||
                          options.emit == EmitKind::Shared;
  auto codeKind = options.emit == EmitKind::Asm
                      ? llvm::CodeGenFileType::AssemblyFile
                      : llvm::CodeGenFileType::ObjectFile;
  std::optional<KernelCache> cache =
      openKernelCache(module, emitsMachineCode ? cacheDirectory : "");
  if (!cache)
    return fail("cannot use the kernel cache");
  std::string codeKey;
  std::optional<std::string> cachedCode;
  StringRef codeSuffix = options.emit == EmitKind::Asm ? ".s" : ".o";
  if (cache->enabled()) {
    TimingScope lookup = root.nest("look up the kernel cache");
    std::string bitcode;
    {
      llvm::raw_string_ostream os(bitcode);
      llvm::WriteBitcodeToFile(*llvmModule, os);
    }
    codeKey = KernelCache::hash(
        {"quilt-host-code 1", KernelCache::codeGeneratorIdentity(),
         machineSpec->triple, machineSpec->cpu, machineSpec->features, "O3",
         codeSuffix, bitcode});
    cachedCode = cache->lookup(codeKey, codeSuffix);
  }

  if (!cachedCode) {
    auto optimize = makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0,
                                              machine.get());
    TimingScope optimization = root.nest("optimize LLVM IR (O3)");
    if (llvm::Error err = optimize(llvmModule.get()))
      return fail("LLVM optimization failed: " +
                  llvm::toString(std::move(err)));
  }

  switch (options.emit) {
  case EmitKind::MLIR:
  case EmitKind::Ptx:
  case EmitKind::Cubin:
  case EmitKind::Isa:
  case EmitKind::Hsaco:
    break;
  case EmitKind::LLVM: {
    llvm::raw_string_ostream os(result.artifact);
    llvmModule->print(os, nullptr);
    break;
  }
  case EmitKind::Asm:
  case EmitKind::Object:
  case EmitKind::Shared: {
    if (cachedCode) {
      result.artifact = std::move(*cachedCode);
    } else {
      TimingScope codegen = root.nest("emit machine code");
      if (!emitMachineCode(*llvmModule, *machine, codeKind, result.artifact,
                           error))
        return fail(error);
      codegen.stop();
      if (std::error_code error =
              cache->store(codeKey, codeSuffix, result.artifact))
        emitWarning(module.getLoc())
            << "cannot keep the host code in the kernel cache '"
            << cacheDirectory << "': " << error.message();
    }
    if (options.emit == EmitKind::Shared) {
      TimingScope linking = root.nest("link shared library");
      if (!linkShared(result.artifact, options, *target, error))
        return fail(error);
      result.artifact.clear();
    }
    break;
  }
  }
  return result;
}

} // namespace

CompileResult compileSource(std::string_view source,
                            std::string_view sourceName,
                            const CompileOptions &options) {
  std::string report;
  llvm::raw_string_ostream reportStream(report);
  CompileResult result;
  {
    // Prints its report (when enabled) as it is destroyed.
    DefaultTimingManager timing;
    timing.setEnabled(options.timing);
    timing.setOutput(createOutputStrategy(
        DefaultTimingManager::OutputFormat::Text, reportStream));
    TimingScope root = timing.getRootScope();
    result = compileTimed(source, sourceName, options, root);
  }
  result.timingReport = std::move(report);
  return result;
}

} // namespace quilt
