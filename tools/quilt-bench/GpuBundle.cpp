//===- GpuBundle.cpp - What bench/gpu runs on a GPU machine ---------------===//
//
// Part of the Quilt project. The GPU machine has the driver and PyTorch but
// not LLVM/MLIR, so everything is compiled here and carried: the libraries
// (cubins inside), the runtime they call, and a manifest that bench/gpu/run.py
// reads. The model's picks and predictions are computed here, with the same
// library the compiled selection embeds (the runtime refreshes the device's
// SM count and clock before it selects; the predictions here use the
// database's).
//
//===----------------------------------------------------------------------===//

#include "GpuBundle.h"

#include "Measurement/BenchKernels.h"
#include "Measurement/BenchModel.h"

#include "CostModel/Json.h"

#include "llvm/Support/FileSystem.h"

#include <fstream>
#include <map>

namespace quilt::bench {

namespace {

void writeDims(JsonWriter &json, std::string_view name,
               const std::vector<int64_t> &dims) {
  json.key(name);
  json.beginArray();
  for (int64_t d : dims)
    json.value(d);
  json.endArray();
}

/// The model's view of one workload: its pick and every candidate's price.
void writeModel(JsonWriter &json, const Workload &w, const TargetDesc &target,
                const ExplainOptions &options) {
  ExplainReport report;
  std::string error;
  if (!explainWorkload(w, target, options, report, error)) {
    json.field("model_error", error);
    return;
  }
  const Selection &s = report.selection;
  json.field("chosen", describeChoice(report));
  json.field("chosen_index", int64_t(s.candidate));
  json.field("instruction",
             std::string(stringify(report.candidates[s.candidate].inst)));
  json.field("predicted_us", s.predictedUs);
  json.key("candidates");
  json.beginArray();
  for (size_t i = 0; i < report.candidates.size(); ++i) {
    json.beginObject();
    json.field("config", report.candidates[i].str());
    json.field("predicted_us", report.predictions[i].totalUs);
    json.endObject();
  }
  json.endArray();
}

bool copyRuntime(const std::string &from, const std::string &name,
                 const std::string &directory, std::string &error) {
  std::string source = from + "/" + name, target = directory + "/" + name;
  if (std::error_code ec = llvm::sys::fs::copy_file(source, target)) {
    error = "cannot copy " + source + " to " + directory + ": " + ec.message();
    return false;
  }
  return true;
}

} // namespace

bool writeGpuBundle(const std::vector<Workload> &workloads,
                    const TargetDesc &target, const CompileOptions &base,
                    const ExplainOptions &explainOptions,
                    const std::string &directory, std::string &error) {
  if (std::error_code ec = llvm::sys::fs::create_directories(directory)) {
    error = "cannot create " + directory + ": " + ec.message();
    return false;
  }
  llvm::SmallString<256> absolute(directory);
  llvm::sys::fs::make_absolute(absolute);
  std::string dir = absolute.str().str();

  // The runtime first: the libraries link against the copies (run.py loads
  // them by path before the libraries, so the link path need not exist on
  // the GPU machine).
  std::string gpuRuntime = target.vendor == Vendor::NVIDIA
                               ? "libquilt_cuda_runtime.so"
                               : "libquilt_hip_runtime.so";
  std::string from =
      base.runtimeDir.empty() ? defaultRuntimeDir() : base.runtimeDir;
  if (!copyRuntime(from, "libquilt_runtime.so", dir, error) ||
      !copyRuntime(from, gpuRuntime, dir, error))
    return false;
  CompileOptions options = base;
  options.runtimeDir = dir;

  // One library per kind, compiled on its first workload.
  std::map<std::string, std::string> compileErrors;
  for (const Workload &w : workloads) {
    std::string key = BenchKernel::keyFor(w);
    if (compileErrors.count(key))
      continue;
    std::string compileError;
    compileBenchLibrary(w, /*microKernels=*/true, /*threads=*/1, options,
                        dir + "/" + key + ".so", compileError);
    compileErrors[key] = compileError;
  }

  std::string text;
  JsonWriter json(text);
  json.beginObject();
  json.field("target", target.name);
  json.field("chip", target.chip);
  json.field("vendor", std::string(stringify(target.vendor)));
  json.key("runtime_libraries");
  json.beginArray();
  json.value("libquilt_runtime.so");
  json.value(gpuRuntime);
  json.endArray();
  json.key("workloads");
  json.beginArray();
  for (const Workload &w : workloads) {
    std::string key = BenchKernel::keyFor(w);
    json.beginObject();
    json.field("workload", w.str());
    json.field("op", std::string(stringify(w.op)));
    json.field("dtype", std::string(stringify(w.elem)));
    json.field("b", w.gemm.b);
    json.field("m", w.gemm.m);
    json.field("n", w.gemm.n);
    json.field("k", w.gemm.k);
    if (w.conv) {
      json.field("stride", w.conv->stride);
      json.field("pad", w.conv->pad);
    }
    OperandShapes shapes = operandShapes(w);
    writeDims(json, "lhs", shapes.lhs);
    writeDims(json, "rhs", shapes.rhs);
    writeDims(json, "out", shapes.out);
    const std::string &compileError = compileErrors[key];
    if (compileError.empty()) {
      json.field("library", key + ".so");
    } else {
      json.key("library");
      json.null();
      json.field("error", compileError);
    }
    writeModel(json, w, target, explainOptions);
    json.endObject();
  }
  json.endArray();
  json.endObject();

  std::string manifest = dir + "/manifest.json";
  std::ofstream out(manifest);
  out << text << "\n";
  if (!out) {
    error = "cannot write " + manifest;
    return false;
  }
  return true;
}

} // namespace quilt::bench
