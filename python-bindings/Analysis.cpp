//===- Analysis.cpp - quilt.targets and quilt.explain ---------------------===//
//
// Part of the Quilt project. The same library calls as `quiltc targets` and
// `quiltc explain --json`; explain's dict is that JSON, parsed by Python's
// json module, so the two cannot drift apart.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "CostModel/Explain.h"
#include "CostModel/Json.h"
#include "CostModel/TargetDatabase.h"
#include "CostModel/TuningDatabase.h"
#include "CostModel/Workload.h"

#include <optional>
#include <string>

namespace quilt::python {

namespace {

TargetDatabase loadDatabase(const std::optional<std::string> &targetFile) {
  TargetDatabase db = TargetDatabase::withBuiltins();
  std::string error;
  if (targetFile && !db.addFromFile(*targetFile, error))
    throw Error(error);
  return db;
}

py::dict targetDict(const TargetDesc &t) {
  py::dict peaks;
  for (int i = 0; i < kNumInstKinds; ++i) {
    auto kind = static_cast<InstKind>(i);
    if (t.hasInst(kind))
      peaks[py::str(std::string(stringify(kind)))] = t.peak(kind);
  }
  py::dict calibration;
  calibration["compute_efficiency"] = t.calibration.computeEfficiency;
  calibration["memory_efficiency"] = t.calibration.memoryEfficiency;
  calibration["launch_overhead_us"] = t.calibration.launchOverheadUs;
  calibration["tile_overhead_us"] = t.calibration.tileOverheadUs;

  py::dict d;
  d["name"] = t.name;
  d["vendor"] = std::string(stringify(t.vendor));
  d["chip"] = t.chip;
  d["description"] = t.description;
  d["is_gpu"] = t.isGpu();
  d["compute_units"] = t.computeUnits;
  d["warp_size"] = t.warpSize;
  d["sub_partitions"] = t.subPartitions;
  d["max_threads_per_block"] = t.maxThreadsPerBlock;
  d["max_threads_per_cu"] = t.maxThreadsPerCU;
  d["max_blocks_per_cu"] = t.maxBlocksPerCU;
  d["registers_per_block"] = t.registersPerBlock;
  d["registers_per_cu"] = t.registersPerCU;
  d["max_registers_per_thread"] = t.maxRegistersPerThread;
  d["shared_mem_per_block"] = t.sharedMemPerBlock;
  d["shared_mem_per_cu"] = t.sharedMemPerCU;
  d["l1_bytes"] = t.l1Bytes;
  d["l2_bytes"] = t.l2Bytes;
  d["l3_bytes"] = t.l3Bytes;
  d["mem_bandwidth_gbs"] = t.memBandwidthGBs;
  d["clock_ghz"] = t.clockGHz;
  d["peak_tflops"] = peaks;
  d["on_chip_bytes_per_clock"] = t.onChipBytesPerClock;
  d["l2_bytes_per_clock"] = t.l2BytesPerClock;
  d["vector_bits"] = t.vectorBits;
  d["fma_units_per_core"] = t.fmaUnitsPerCore;
  d["calibration"] = calibration;
  return d;
}

py::list targets(const std::optional<std::string> &targetFile) {
  TargetDatabase db = loadDatabase(targetFile);
  py::list out;
  for (const TargetDesc &t : db.targets())
    out.append(targetDict(t));
  return out;
}

py::object explain(const std::string &workloadText, const std::string &target,
                   int top, std::string policy,
                   const std::optional<std::string> &targetFile,
                   int maxCandidates, bool tf32,
                   const std::optional<std::string> &tuningDb,
                   const std::optional<std::string> &residualModel,
                   int threads) {
  if (top < 0)
    throw Error("top must be >= 0, got " + std::to_string(top));
  if (threads < 1)
    throw Error("threads must be >= 1, got " + std::to_string(threads));
  if (maxCandidates < 1 || maxCandidates > kMaxPreparedCandidates)
    throw Error("max_candidates must be in [1, " +
                std::to_string(kMaxPreparedCandidates) + "], got " +
                std::to_string(maxCandidates));
  // The dialect spells the default policy cost_model, the cost model
  // cost-model; accept both here.
  if (policy == "cost_model")
    policy = "cost-model";
  ExplainOptions options;
  options.top = top;
  options.threads = threads;
  options.candidates.maxCandidates = maxCandidates;
  options.candidates.allowTf32 = tf32;
  if (!parseSelectionPolicy(policy, options.policy, options.fixedIndex))
    throw Error("unknown policy '" + policy +
                "' (expected cost-model, pad, patch or fixed=<i>)");

  TargetDatabase db = loadDatabase(targetFile);
  const TargetDesc *desc = db.lookup(target);
  if (!desc) {
    std::string message = "unknown target '" + target + "'; known targets:";
    for (const std::string &name : db.names())
      message += " " + name;
    throw Error(message);
  }
  Workload workload;
  std::string error;
  TuningDatabase tuning;
  if (tuningDb) {
    if (!TuningDatabase::load(*tuningDb, db, tuning, error))
      throw Error(error);
    options.tuning = &tuning;
  }
  ResidualModel residual;
  if (residualModel) {
    if (!residual.load(*residualModel, error))
      throw Error(error);
    options.residual = &residual;
    options.candidates.residual = &residual;
  }
  if (!parseWorkload(workloadText, workload, error))
    throw Error("workload '" + workloadText + "': " + error);
  ExplainReport report;
  if (!explainWorkload(workload, *desc, options, report, error))
    throw Error(workload.str() + ": " + error);

  std::string text;
  JsonWriter json(text, /*pretty=*/false);
  writeExplainJson(json, report, top);
  return py::module_::import("json").attr("loads")(text);
}

} // namespace

void bindAnalysis(py::module_ &m) {
  m.def("targets", &targets, py::arg("target_file") = py::none(),
        "The target database (built-ins, the detected `host`, then the "
        "targets of `target_file`) as a list of dicts: name, vendor, chip, "
        "compute_units, peak_tflops per instruction, mem_bandwidth_gbs, "
        "calibration, ... (what `quiltc targets` tabulates).");
  m.def("explain", &explain, py::arg("workload"), py::arg("target"),
        py::arg("top") = 0, py::arg("policy") = "cost-model",
        py::arg("target_file") = py::none(), py::arg("max_candidates") = 16,
        py::arg("tf32") = false, py::arg("tuning_db") = py::none(),
        py::arg("residual_model") = py::none(), py::arg("threads") = 1,
        "Why the cost model picks a micro-kernel for `workload` (a workload "
        "line such as 'matmul f16 M=1000 N=768 K=3072') on `target`: the "
        "dict `quiltc explain --json` prints, with workload, target, policy, "
        "chosen, why and candidates (config, predicted_us, terms). `top` "
        "keeps the N best candidates (0: all). `tuning_db` adds a tuning "
        "database's winners, as compiling with it does (chosen.tuned says "
        "when one was chosen). `residual_model` adds a learned residual's "
        "corrected prediction of every candidate (learned_us) and its pick "
        "(learned), as quiltc explain --residual-model. `threads`: a CPU "
        "product is priced on that many cores, as code compiled with "
        "`quilt.compile(..., threads=N)` dispatches (default 1).");
}

} // namespace quilt::python
