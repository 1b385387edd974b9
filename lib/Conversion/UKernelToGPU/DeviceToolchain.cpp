//===- DeviceToolchain.cpp - Compile, join and assemble device code -------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "DeviceToolchain.h"
#include "Conversion/Utils/KernelCache.h"

#include "Conversion/Utils/AmdgcnLinking.h"
#include "Conversion/Utils/PtxLinking.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVM/ROCDL/Utils.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCAsmBackend.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCObjectWriter.h"
#include "llvm/MC/MCParser/MCAsmParser.h"
#include "llvm/MC/MCParser/MCTargetAsmParser.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using quilt::DeviceToolchain;
using quilt::KernelCache;

namespace {

/// Runs `tool` with `args`, in which "%in" stands for a file holding `input`
/// and "%out" for the file whose contents are returned; nullopt after an
/// error at `loc` (`what` names the program in it).
std::optional<std::string> runTool(Location loc, StringRef what, StringRef tool,
                                   ArrayRef<StringRef> args, StringRef input,
                                   StringRef inputSuffix,
                                   StringRef outputSuffix) {
  SmallString<128> inputFile, outputFile, logFile;
  for (auto [file, suffix] : {std::pair{&inputFile, inputSuffix},
                              {&outputFile, outputSuffix},
                              {&logFile, "log"}})
    if (std::error_code error = llvm::sys::fs::createTemporaryFile(
            "quilt-kernels", suffix, *file)) {
      emitError(loc) << "cannot create a temporary file for " << what << ": "
                     << error.message();
      return std::nullopt;
    }
  llvm::FileRemover removeInput(inputFile), removeOutput(outputFile),
      removeLog(logFile);
  {
    std::error_code error;
    llvm::raw_fd_ostream out(inputFile, error);
    out << input;
    out.close();
    if (error || out.has_error()) {
      out.clear_error();
      emitError(loc) << "cannot write " << inputFile << " for " << what;
      return std::nullopt;
    }
  }
  SmallVector<StringRef> argv = {tool};
  for (StringRef arg : args)
    argv.push_back(arg == "%in"    ? StringRef(inputFile)
                   : arg == "%out" ? StringRef(outputFile)
                                   : arg);
  std::optional<StringRef> redirects[] = {std::nullopt, logFile.str(),
                                          logFile.str()};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(tool, argv, /*Env=*/std::nullopt,
                                         redirects, /*SecondsToWait=*/0,
                                         /*MemoryLimit=*/0, &message);
  auto log = llvm::MemoryBuffer::getFile(logFile);
  if (status != 0) {
    InFlightDiagnostic diag = emitError(loc)
                              << what << " failed on the linked kernels ("
                              << (message.empty()
                                      ? "exit status " + std::to_string(status)
                                      : message)
                              << ")";
    if (log && (*log)->getBufferSize())
      diag << ":\n" << (*log)->getBuffer();
    return std::nullopt;
  }
  auto output = llvm::MemoryBuffer::getFile(outputFile, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!output) {
    emitError(loc) << what << " wrote nothing: " << output.getError().message();
    return std::nullopt;
  }
  return (*output)->getBuffer().str();
}

/// ptxas's options for `target` but its files: what gpu-module-to-binary
/// runs (the chip, the target's optimization level and command-line
/// options). One list for the run and for the binary's cache key, so that
/// a cubin assembled with other options is never taken for this one.
SmallVector<std::string> ptxasOptions(NVVM::NVVMTargetAttr target) {
  SmallVector<std::string> options = {"-arch", target.getChip().str(),
                                      "--opt-level",
                                      std::to_string(target.getO())};
  if (target.hasCmdOptions())
    for (Attribute option : cast<ArrayAttr>(target.getCmdOptions()->getValue()))
      if (auto text = dyn_cast<StringAttr>(option))
        options.push_back(text.getValue().str());
  return options;
}

/// `name` in `toolkit`/`subdirectory`, else on PATH; "" when in neither.
std::string findTool(StringRef toolkit, StringRef subdirectory,
                     StringRef name) {
  if (!toolkit.empty()) {
    SmallString<128> path(toolkit);
    llvm::sys::path::append(path, subdirectory, name);
    if (llvm::sys::fs::can_execute(path))
      return std::string(path);
  }
  llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(name);
  return found ? *found : "";
}

/// Assembles AMDGCN `text` into an ELF object with LLVM's assembler, as
/// `llvm-mc -filetype=obj` does; nullopt after an error at `loc`, which
/// quotes the assembler's messages (a line it cannot parse is an error, not
/// an object missing that line).
std::optional<std::string> assembleAmdgcn(Location loc, StringRef text,
                                          ROCDL::ROCDLTargetAttr target) {
  ROCDL::SerializeGPUModuleBase::init();
  llvm::Triple triple(llvm::Triple::normalize(target.getTriple()));
  std::string error;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget) {
    emitError(loc) << "cannot assemble the linked kernels: " << error;
    return std::nullopt;
  }
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "linked kernels"),
      llvm::SMLoc());
  std::string messages;
  llvm::raw_string_ostream messageStream(messages);
  sources.setDiagHandler(
      [](const llvm::SMDiagnostic &diagnostic, void *stream) {
        diagnostic.print(nullptr, *static_cast<llvm::raw_ostream *>(stream),
                         /*ShowColors=*/false);
      },
      &messageStream);

  llvm::MCTargetOptions options;
  std::unique_ptr<llvm::MCRegisterInfo> registers(
      llvmTarget->createMCRegInfo(triple));
  std::unique_ptr<llvm::MCAsmInfo> asmInfo(
      llvmTarget->createMCAsmInfo(*registers, triple, options));
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      llvmTarget->createMCSubtargetInfo(triple, target.getChip(),
                                        target.getFeatures()));
  llvm::MCContext context(triple, asmInfo.get(), registers.get(),
                          subtarget.get(), &sources, &options);
  std::unique_ptr<llvm::MCObjectFileInfo> fileInfo(
      llvmTarget->createMCObjectFileInfo(context, /*PIC=*/false));
  context.setObjectFileInfo(fileInfo.get());
  std::unique_ptr<llvm::MCInstrInfo> instructions(
      llvmTarget->createMCInstrInfo());

  SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::MCAsmBackend *backend =
      llvmTarget->createMCAsmBackend(*subtarget, *registers, options);
  std::unique_ptr<llvm::MCStreamer> streamer(llvmTarget->createMCObjectStreamer(
      triple, context, std::unique_ptr<llvm::MCAsmBackend>(backend),
      backend->createObjectWriter(os),
      std::unique_ptr<llvm::MCCodeEmitter>(
          llvmTarget->createMCCodeEmitter(*instructions, context)),
      *subtarget));
  std::unique_ptr<llvm::MCAsmParser> parser(
      llvm::createMCAsmParser(sources, context, *streamer, *asmInfo));
  std::unique_ptr<llvm::MCTargetAsmParser> targetParser(
      llvmTarget->createMCAsmParser(*subtarget, *parser, *instructions,
                                    options));
  if (!targetParser) {
    emitError(loc) << "cannot assemble the linked kernels: no AMDGPU "
                      "assembly parser";
    return std::nullopt;
  }
  parser->setTargetParser(*targetParser);
  bool failed = parser->Run(/*NoInitialTextSection=*/false);
  if (failed || context.hadError()) {
    emitError(loc) << "cannot assemble the linked kernels:\n" << messages;
    return std::nullopt;
  }
  return std::string(object.begin(), object.end());
}

} // namespace

bool DeviceToolchain::supports(Attribute target) {
  return isa<NVVM::NVVMTargetAttr, ROCDL::ROCDLTargetAttr>(target);
}

bool DeviceToolchain::isNvidia() const {
  return isa<NVVM::NVVMTargetAttr>(target);
}

StringRef DeviceToolchain::codeName() const {
  return isNvidia() ? "PTX" : "AMDGCN assembly";
}

StringRef DeviceToolchain::codeSuffix() const {
  return isNvidia() ? ".ptx" : ".s";
}

StringRef DeviceToolchain::binarySuffix() const {
  return isNvidia() ? ".cubin" : ".hsaco";
}

std::string DeviceToolchain::keyContext() const {
  std::string context =
      "quilt-kernel-cache 1\n" + KernelCache::codeGeneratorIdentity() + "\n";
  SmallString<128> libraries(toolkit);
  if (isNvidia()) {
    llvm::sys::path::append(libraries, "nvvm", "libdevice", "libdevice.10.bc");
    return context + KernelCache::fileIdentity(libraries);
  }
  // ocml, ockl and the other device libraries, whichever the target links.
  if (toolkit.empty())
    libraries = ROCDL::getROCMPath();
  llvm::sys::path::append(libraries, "amdgcn", "bitcode");
  std::vector<std::string> files;
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(libraries, error), end;
       !error && it != end; it.increment(error))
    files.push_back(KernelCache::fileIdentity(it->path()));
  llvm::sort(files);
  return context + llvm::join(files, "\n");
}

std::optional<std::string> DeviceToolchain::link(ArrayRef<std::string> parts,
                                                 std::string &error) const {
  return isNvidia() ? linkPtxModules(parts, error)
                    : linkAmdgcnAssembly(parts, error);
}

std::optional<std::string>
DeviceToolchain::findBinaryTool(std::string &error) const {
  StringRef subdirectory = isNvidia() ? "bin" : "llvm/bin";
  StringRef name = isNvidia() ? "ptxas" : "ld.lld";
  std::string tool = findTool(toolkit, subdirectory, name);
  if (!tool.empty())
    return tool;
  error = ("format=bin needs " + name + ": none in '" + toolkit + "/" +
           subdirectory + "' or on PATH")
              .str();
  return std::nullopt;
}

std::string DeviceToolchain::binaryKeyContext(StringRef tool) const {
  std::string context = KernelCache::fileIdentity(tool) + "\n";
  if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
    return context + llvm::join(ptxasOptions(nvvm), " ");
  auto rocdl = cast<ROCDL::ROCDLTargetAttr>(target);
  return context + rocdl.getTriple().str() + " " + rocdl.getChip().str() + " " +
         rocdl.getFeatures().str();
}

std::optional<std::string>
DeviceToolchain::assemble(Location loc, StringRef code, StringRef tool) const {
  if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target)) {
    SmallVector<std::string> options = ptxasOptions(nvvm);
    SmallVector<StringRef> args(options.begin(), options.end());
    args.append({"%in", "-o", "%out"});
    return runTool(loc, "ptxas", tool, args, code, "ptx", "cubin");
  }
  // What gpu-module-to-binary does: LLVM's assembler, then ld.lld.
  std::optional<std::string> object =
      assembleAmdgcn(loc, code, cast<ROCDL::ROCDLTargetAttr>(target));
  if (!object)
    return std::nullopt;
  return runTool(loc, "ld.lld", tool, {"-shared", "%in", "-o", "%out"}, *object,
                 "o", "hsaco");
}

DictionaryAttr DeviceToolchain::objectProperties(Builder &builder,
                                                 bool binary) const {
  auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target);
  if (!nvvm || binary)
    return nullptr;
  return builder.getDictionaryAttr(
      builder.getNamedAttr("O", builder.getI32IntegerAttr(nvvm.getO())));
}
