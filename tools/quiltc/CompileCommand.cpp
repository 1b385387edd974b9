//===- CompileCommand.cpp - quiltc's compile command ----------------------===//
//
// Part of the Quilt project. Argument handling only: the work is
// quilt::compileSource, shared with quilt-bench and the Python module.
//
//===----------------------------------------------------------------------===//

#include "CompileCommand.h"
#include "AnalysisCommands.h"
#include "Compiler/Compiler.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace quilt {

namespace {

constexpr const char *kUsage =
    "usage: quiltc [compile] IN.mlir [--target T] [--target-file F]\n"
    "              [--policy P] [--max-candidates N] [--tuning-db FILE]\n"
    "              [--residual-model FILE]\n"
    "              [--emit=mlir|llvm|asm|obj|shared|ptx|cubin|isa|hsaco]\n"
    "              [--chip C] [--toolkit DIR] [--no-native-wgmma | --no-tma]\n"
    "              [--device-format=isa|bin|auto] [--threads N] [--timing]\n"
    "              [--kernel-cache DIR] [--verify-each] [-o OUT]\n"
    "  Compiles the dynamic-shape contractions of IN.mlir ('-' for stdin)\n"
    "  into micro-kernels for T (default host; a GPU such as h100, a100,\n"
    "  mi300x) with run-time selection.\n"
    "  --emit=shared writes a library linked against libquilt_runtime (and\n"
    "  libquilt_cuda_runtime / libquilt_hip_runtime for GPU targets); each\n"
    "  public function f gets the C entry _mlir_ciface_f "
    "(docs/user-guide.md).\n"
    "  ptx|cubin (NVIDIA), isa (PTX or AMDGCN text), hsaco (AMD): the device\n"
    "  code alone; --chip overrides the target's chip (e.g. sm_90a, gfx942).\n"
    "  sm_90a wgmma candidates are issued as wgmma.mma_async with their\n"
    "  tiles loaded by TMA where the operands allow (docs/gpu-codegen.md);\n"
    "  --no-native-wgmma issues them as mma.sync, --no-tma stages their\n"
    "  tiles with cp.async (--native-wgmma and --tma, the defaults, are\n"
    "  accepted).\n"
    "  --device-format (GPU targets, host-code emits) embeds the device code\n"
    "  as isa (PTX / AMDGCN text: what the PTX emulator runs,\n"
    "  docs/gpu-emulator.md) or bin (cubin / hsaco); auto: bin when the\n"
    "  toolkit is found.\n"
    "  --threads N (CPU targets) runs the kernels on N threads (0: as many\n"
    "  as OpenMP gives); the library then links LLVM's libomp.\n"
    "  --tuning-db FILE adds the measured winners of a tuning database\n"
    "  (quiltc tune, docs/tuning.md) to the candidates; they run for the\n"
    "  shapes they were tuned for, the cost model picks elsewhere.\n"
    "  --residual-model FILE prunes the candidates with the predictions of a\n"
    "  learned residual model (bench/host/train_residual.py, docs/tuning.md);\n"
    "  selection at run time stays the analytic model's.\n"
    "  --timing prints where the compilation's time went to stderr: each\n"
    "  pass of the pipeline (device code generation included), then LLVM\n"
    "  translation, optimization, code generation and linking.\n"
    "  --kernel-cache DIR (compiled kernels and host code; default\n"
    "                     $QUILT_KERNEL_CACHE)\n"
    "  reuses the code compiled into DIR before and keeps the new code.\n"
    "  --verify-each verifies the IR after every pass, as quilt-opt does (by\n"
    "  default only the pipeline's result is verified).\n";

int usage(std::ostream &err, const std::string &message) {
  err << "quiltc: error: " << message << "\n" << kUsage;
  return kExitUsage;
}

/// `--key=value` or `--key value`.
bool takeValue(const std::vector<std::string> &args, size_t &i,
               const std::string &key, std::string &value) {
  const std::string &arg = args[i];
  if (arg.rfind(key + "=", 0) == 0) {
    value = arg.substr(key.size() + 1);
    return true;
  }
  if (arg == key && i + 1 < args.size()) {
    value = args[++i];
    return true;
  }
  return false;
}

} // namespace

int runCompileCommand(const std::vector<std::string> &args, std::ostream &out,
                      std::ostream &err) {
  CompileOptions options;
  std::string input, output, emit = "obj", maxCandidates, threads;
  bool explicitTma = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    std::string value;
    if (arg == "--help" || arg == "-h") {
      out << kUsage;
      return kExitOk;
    }
    if (arg == "--native-wgmma" || arg == "--no-native-wgmma") {
      options.nativeWgmma = arg == "--native-wgmma";
      continue;
    }
    if (arg == "--timing") {
      options.timing = true;
      continue;
    }
    if (arg == "--verify-each") {
      options.verifyEachPass = true;
      continue;
    }
    if (arg == "--tma" || arg == "--no-tma") {
      options.tmaLoads = arg == "--tma";
      explicitTma |= arg == "--tma";
      continue;
    }
    if ((arg == "--chip=" || (arg == "--chip" && i + 1 < args.size() &&
                              args[i + 1].empty())))
      return usage(err, "--chip needs a chip name (sm_90a, gfx942, ...), "
                        "got ''");
    if (takeValue(args, i, "--target", options.target) ||
        takeValue(args, i, "--target-file", options.targetFile) ||
        takeValue(args, i, "--policy", options.policy) ||
        takeValue(args, i, "--emit", emit) ||
        takeValue(args, i, "--chip", options.chip) ||
        takeValue(args, i, "--toolkit", options.toolkit) ||
        takeValue(args, i, "--device-format", options.deviceFormat) ||
        takeValue(args, i, "--max-candidates", maxCandidates) ||
        takeValue(args, i, "--tuning-db", options.tuningDb) ||
        takeValue(args, i, "--residual-model", options.residualModel) ||
        takeValue(args, i, "--threads", threads) ||
        takeValue(args, i, "--kernel-cache", options.kernelCache) ||
        takeValue(args, i, "-o", output))
      continue;
    if (!arg.empty() && arg[0] == '-' && arg != "-")
      return usage(err, "unknown option '" + arg + "'");
    if (!input.empty())
      return usage(err,
                   "more than one input file ('" + input + "', '" + arg + "')");
    input = arg;
  }
  if (input.empty())
    return usage(err, "no input file");
  if (explicitTma && !options.nativeWgmma)
    return usage(err, "--tma loads the tiles of native wgmma kernels: it "
                      "cannot go with --no-native-wgmma");
  std::optional<EmitKind> kind = parseEmitKind(emit);
  if (!kind)
    return usage(err, "unknown --emit kind '" + emit +
                          "' (expected mlir, llvm, asm, obj or shared)");
  options.emit = *kind;
  if (!maxCandidates.empty()) {
    try {
      size_t used = 0;
      options.maxCandidates = std::stoi(maxCandidates, &used);
      if (used != maxCandidates.size())
        throw std::invalid_argument(maxCandidates);
    } catch (...) {
      return usage(err, "--max-candidates needs a number, got '" +
                            maxCandidates + "'");
    }
  }
  if (!threads.empty()) {
    try {
      size_t used = 0;
      options.threads = std::stoi(threads, &used);
      if (used != threads.size())
        throw std::invalid_argument(threads);
    } catch (...) {
      return usage(err, "--threads needs a number, got '" + threads + "'");
    }
  }
  if ((*kind == EmitKind::Object || *kind == EmitKind::Shared ||
       *kind == EmitKind::Cubin || *kind == EmitKind::Hsaco) &&
      output.empty())
    return usage(err, "--emit=" + emit + " writes a binary: give -o OUT");
  options.outputPath = output;

  std::string source;
  if (input == "-") {
    source.assign(std::istreambuf_iterator<char>(std::cin), {});
  } else {
    std::ifstream file(input, std::ios::binary);
    if (!file) {
      err << "quiltc: error: " << input << ": cannot open for reading\n";
      return kExitError;
    }
    source.assign(std::istreambuf_iterator<char>(file), {});
  }

  CompileResult result =
      compileSource(source, input == "-" ? "<stdin>" : input, options);
  if (!result.ok()) {
    err << result.error;
    if (result.error.back() != '\n')
      err << "\n";
    err << result.timingReport;
    return kExitError;
  }
  err << result.timingReport;
  if (*kind == EmitKind::Shared)
    return kExitOk;
  if (output.empty() || output == "-") {
    out << result.artifact;
    return kExitOk;
  }
  std::ofstream file(output, std::ios::binary);
  if (!(file << result.artifact)) {
    err << "quiltc: error: " << output << ": cannot write\n";
    return kExitError;
  }
  return kExitOk;
}

} // namespace quilt
