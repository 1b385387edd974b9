//===- Compile.cpp - quilt.compile and quilt.run_pipeline -----------------===//
//
// Part of the Quilt project. Argument handling only: the work is
// quilt::compileSource (what quiltc runs) and quilt::runPipelineOnSource
// (what quilt-opt --pass-pipeline does).
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"
#include "Paths.h"

#include "Compiler/Compiler.h"
#include "Compiler/RunPipeline.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace quilt::python {

namespace {

py::object compile(const std::string &source, const std::string &target,
                   const std::string &emit, std::string policy,
                   const std::optional<std::string> &output,
                   const std::optional<std::string> &targetFile,
                   int maxCandidates, const std::string &sourceName,
                   int threads, const std::string &deviceFormat,
                   bool nativeWgmma, bool tma,
                   const std::optional<std::string> &tuningDb,
                   const std::optional<std::string> &residualModel,
                   const std::optional<std::string> &kernelCache) {
  std::optional<EmitKind> kind = parseEmitKind(emit);
  if (!kind)
    throw Error("unknown emit kind '" + emit +
                "' (expected mlir, llvm, asm, obj, shared, ptx, cubin, isa or "
                "hsaco)");
  // The cost model spells the default policy cost-model, the dialect
  // cost_model; accept both here.
  if (policy == "cost-model")
    policy = "cost_model";
  CompileOptions options;
  options.target = target;
  options.targetFile = targetFile.value_or("");
  options.policy = policy;
  options.maxCandidates = maxCandidates;
  options.tuningDb = tuningDb.value_or("");
  options.residualModel = residualModel.value_or("");
  options.threads = threads;
  options.deviceFormat = deviceFormat;
  options.nativeWgmma = nativeWgmma;
  options.tmaLoads = tma && nativeWgmma;
  options.kernelCache = kernelCache.value_or("");
  options.emit = *kind;
  if (*kind == EmitKind::Shared) {
    options.outputPath = output ? *output : temporaryLibraryPath();
    // compileSource looks for the runtime next to the running executable,
    // which here is the Python interpreter.
    options.runtimeDir = runtimeLibraryDir();
  }

  CompileResult result;
  {
    py::gil_scoped_release release;
    result = compileSource(source, sourceName, options);
  }
  if (!result.ok())
    throw Error(result.error);

  switch (*kind) {
  case EmitKind::Object:
  case EmitKind::Cubin:
  case EmitKind::Hsaco:
    return py::bytes(result.artifact);
  case EmitKind::Shared:
    return py::str(options.outputPath);
  case EmitKind::MLIR:
  case EmitKind::LLVM:
  case EmitKind::Asm:
  case EmitKind::Ptx:
  case EmitKind::Isa:
    break;
  }
  if (output) {
    std::error_code ec;
    llvm::raw_fd_ostream os(*output, ec);
    if (ec)
      throw Error("cannot write " + *output + ": " + ec.message());
    os << result.artifact;
    os.close();
    if (os.has_error())
      throw Error("cannot write " + *output + ": " + os.error().message());
  }
  return py::str(result.artifact);
}

std::string runPipeline(const std::string &source, const std::string &pipeline,
                        const std::string &sourceName) {
  CompileResult result;
  {
    py::gil_scoped_release release;
    result = runPipelineOnSource(source, sourceName, pipeline);
  }
  if (!result.ok())
    throw Error(result.error);
  return result.artifact;
}

} // namespace

void bindCompiler(py::module_ &m) {
  m.def("compile", &compile, py::arg("mlir_text"), py::arg("target") = "host",
        py::arg("emit") = "mlir", py::arg("policy") = "cost_model",
        py::arg("output") = py::none(), py::arg("target_file") = py::none(),
        py::arg("max_candidates") = 16, py::arg("source_name") = "<python>",
        py::arg("threads") = 1, py::arg("device_format") = "auto",
        py::arg("native_wgmma") = true, py::arg("tma") = true,
        py::arg("tuning_db") = py::none(),
        py::arg("residual_model") = py::none(),
        py::arg("kernel_cache") = py::none(),
        "Compiles linalg (or ukernel) IR for a target, as quiltc does. "
        "emit: 'mlir', 'llvm', 'asm' (str; also written to `output` when "
        "given), 'obj' (bytes), 'shared' (writes a library linked against "
        "libquilt_runtime to `output`, or to a new temporary file, and "
        "returns its path). threads: CPU targets, as quiltc --threads (a "
        "shared library then links libomp). device_format, native_wgmma, "
        "tma: GPU targets, as quiltc --device-format (device_format='isa' "
        "builds what the PTX emulator runs), --[no-]native-wgmma, "
        "--[no-]tma (both on by default). tuning_db: a tuning database "
        "(quiltc tune), as quiltc --tuning-db. residual_model: a learned "
        "residual model that prunes the candidates, as quiltc "
        "--residual-model. kernel_cache: a directory of compiled kernels "
        "and host code to reuse and fill, as quiltc --kernel-cache "
        "(default $QUILT_KERNEL_CACHE). Raises "
        "quilt.Error with every diagnostic.");
  m.def("run_pipeline", &runPipeline, py::arg("mlir_text"), py::arg("pipeline"),
        py::arg("source_name") = "<python>",
        "Runs a quilt-opt pass pipeline, anchored as for --pass-pipeline "
        "('builtin.module(ukernel-attach-target{target=h100}, "
        "convert-linalg-to-ukernel)'), with every upstream and Quilt dialect "
        "and pass, and returns the printed module. Raises quilt.Error with "
        "every diagnostic.");
}

} // namespace quilt::python
