//===- quilt-bench.cpp - Quilt against CPU libraries and upstream MLIR ----===//
//
// Part of the Quilt project. For each (op, type) in a workload file, compiles
// one dynamic-shape function once (never per shape), runs it on every
// workload, checks its output against an independent reference, and times
// it against OpenBLAS, oneDNN, BLIS and upstream MLIR's default lowering of
// the same linalg op, measured in the same run. Optionally measures every
// candidate on a sample of shapes to see how well the model ranks them, writes
// those measurements for `quiltc calibrate`, and fits the model's calibration
// to them (a target file the compiler then reads).
//
//===----------------------------------------------------------------------===//

#include "Baselines.h"
#include "EmulatedGpu.h"
#include "GpuBundle.h"
#include "Measurement/BenchKernels.h"
#include "Measurement/BenchModel.h"
#include "Measurement/Reference.h"
#include "Measurement/ScratchDirectory.h"
#include "Measurement/Timing.h"
#include "QuiltRuntime.h"

#include "CostModel/CalibrationFit.h"
#include "CostModel/Explain.h"
#include "CostModel/Json.h"
#include "CostModel/ResidualModel.h"
#include "CostModel/TargetDatabase.h"
#include "CostModel/TuningDatabase.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace quilt;
using namespace quilt::bench;

namespace {

constexpr const char *kUsage =
    "usage: quilt-bench --target T --workloads FILE [--json] [--threads N]\n"
    "                   [--baselines "
    "openblas,onednn,blis,upstream,untuned|none]\n"
    "                   [--target-file F]\n"
    "                   [--policy P] [--max-candidates N] [--model-sample N]\n"
    "                   [--upstream-max-gflop G] [--min-time S]\n"
    "                   [--measurements OUT.csv] [--calibrate OUT.db]\n"
    "                   [--tuning-db FILE]\n"
    "       quilt-bench --list-baselines\n"
    "       quilt-bench --target GPU --workloads FILE --bundle DIR\n"
    "                   [--no-native-wgmma | --no-tma]\n"
    "       quilt-bench --target GPU --workloads FILE --emulate [--json]\n"
    "                   [--policy P] [--model-sample N]\n"
    "                   [--no-native-wgmma | --no-tma]\n"
    "  With a CPU target (host, host-avx512, host-avx2, host-neon) it runs\n"
    "  here. With a GPU target (h100, a100, mi300x, ...) it prepares DIR for\n"
    "  bench/gpu/run.py on a machine with that GPU: the compiled libraries,\n"
    "  the runtime and a manifest of the workloads with the model's picks.\n"
    "  --emulate runs a GPU target's libraries here on Quilt's emulator of\n"
    "  its vendor (docs/gpu-emulator.md: PTX for h100, a100, ..., AMDGCN\n"
    "  for mi300x, mi250x, rx7900xtx): every output is checked against the\n"
    "  reference and the emulator's counters (instructions by class,\n"
    "  global and shared bytes, bank conflicts, sectors or segments) are\n"
    "  reported next to the model's DRAM traffic; --model-sample N runs\n"
    "  every candidate on N workloads. Times are not measured.\n"
    "  sm_90a wgmma candidates are compiled as wgmma.mma_async with TMA\n"
    "  tile loads (quiltc's defaults); --no-native-wgmma compiles them as\n"
    "  mma.sync, --no-tma stages their tiles with cp.async.\n"
    "  --baselines lists what Quilt is timed against, each output checked\n"
    "  like Quilt's: the libraries openblas, onednn (its matmul and\n"
    "  convolution primitives; the time to create each shape's primitive\n"
    "  is reported too) and blis, and upstream (MLIR's default lowering of\n"
    "  the same linalg op). The default is every library quilt-bench was\n"
    "  built with, and upstream; --list-baselines lists them.\n"
    "  --threads N runs Quilt's multi-threaded kernels (OpenMP) and the\n"
    "  libraries on N threads; the cost model is told N of the target's\n"
    "  cores.\n"
    "  --model-sample N runs every candidate on N workloads (three rounds\n"
    "  over the candidates, each taking its median) and reports the\n"
    "  rank correlation of predicted and measured times and the model's\n"
    "  regret. --measurements writes those times as the CSV `quiltc\n"
    "  calibrate` reads; --calibrate fits the model's coefficients to them\n"
    "  and writes a target file (pass it with --target-file). The upstream\n"
    "  baseline runs single-threaded; --upstream-max-gflop skips it on\n"
    "  larger workloads (default 8). --tuning-db compiles with a tuning\n"
    "  database (quiltc tune): its winners run where they were tuned; the\n"
    "  baseline untuned is Quilt compiled without it, timed in the same\n"
    "  process (ABBA, each side's time the mean of its two).\n";

struct Options {
  std::string target, workloads, targetFile, policy = "cost_model";
  std::string measurementsPath, calibratePath, bundle, tuningDb;
  /// --baselines as given; empty: every library built in, and upstream.
  std::string baselines;
  bool json = false, nativeWgmma = true, tmaLoads = true, emulate = false;
  bool explicitTma = false;
  int threads = 1, maxCandidates = 16, modelSample = 0;
  double upstreamMaxGflop = 8, minTime = 0.2;
};

/// All of `text` as a number: "2x" or "" is an error, not 2 or 0.
template <typename T> bool parseNumber(const std::string &text, T &out) {
  size_t used = 0;
  try {
    static_assert(std::is_same_v<T, int> || std::is_same_v<T, double>);
    if constexpr (std::is_same_v<T, int>)
      out = std::stoi(text, &used);
    else
      out = std::stod(text, &used);
  } catch (const std::exception &) {
    return false;
  }
  return !text.empty() && used == text.size();
}

/// An option that takes a value, and where the value goes.
struct ValueOption {
  const char *name;
  std::function<bool(const std::string &)> set;
};

std::vector<ValueOption> valueOptions(Options &o) {
  auto text = [](std::string &field) {
    return [&field](const std::string &v) {
      field = v;
      return true;
    };
  };
  auto number = [](auto &field) {
    return [&field](const std::string &v) { return parseNumber(v, field); };
  };
  return {{"--target", text(o.target)},
          {"--workloads", text(o.workloads)},
          {"--target-file", text(o.targetFile)},
          {"--policy", text(o.policy)},
          {"--baselines", text(o.baselines)},
          {"--measurements", text(o.measurementsPath)},
          {"--calibrate", text(o.calibratePath)},
          {"--bundle", text(o.bundle)},
          {"--tuning-db", text(o.tuningDb)},
          {"--threads", number(o.threads)},
          {"--max-candidates", number(o.maxCandidates)},
          {"--model-sample", number(o.modelSample)},
          {"--upstream-max-gflop", number(o.upstreamMaxGflop)},
          {"--min-time", number(o.minTime)}};
}

bool parseArgs(int argc, char **argv, Options &o, std::string &error) {
  std::vector<ValueOption> options = valueOptions(o);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--json") {
      o.json = true;
      continue;
    }
    if (arg == "--native-wgmma" || arg == "--no-native-wgmma") {
      o.nativeWgmma = arg == "--native-wgmma";
      continue;
    }
    if (arg == "--tma" || arg == "--no-tma") {
      o.tmaLoads = arg == "--tma";
      o.explicitTma |= arg == "--tma";
      continue;
    }
    if (arg == "--emulate") {
      o.emulate = true;
      continue;
    }
    if (arg == "--list-baselines") {
      for (const std::string &name : libraryBaselineNames())
        std::cout << name << " "
                  << (haveLibraryBaseline(name) ? "built in" : "not built in")
                  << "\n";
      std::cout << "upstream built in\n";
      std::exit(0);
    }
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    // --name=value or --name value.
    size_t eq = arg.find('=');
    std::string name = arg.substr(0, eq);
    auto option =
        std::find_if(options.begin(), options.end(),
                     [&](const ValueOption &opt) { return name == opt.name; });
    if (option == options.end()) {
      error = "unknown option '" + name + "'";
      return false;
    }
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      error = "missing value for " + name;
      return false;
    }
    if (!option->set(value)) {
      error = "bad value '" + value + "' for " + name;
      return false;
    }
  }
  if (o.target.empty() || o.workloads.empty()) {
    error = "--target and --workloads are required";
    return false;
  }
  for (auto [bad, message] :
       {std::pair{o.threads < 1,
                  "--threads must be at least 1 (OpenBLAS runs on as many)"},
        std::pair{o.maxCandidates < 1, "--max-candidates must be at least 1"},
        std::pair{o.modelSample < 0, "--model-sample must be at least 0"},
        std::pair{!(o.minTime > 0), "--min-time must be above 0 seconds"},
        std::pair{!(o.upstreamMaxGflop >= 0),
                  "--upstream-max-gflop must be at least 0"}}) {
    if (bad) {
      error = message;
      return false;
    }
  }
  if (o.explicitTma && !o.nativeWgmma) {
    error = "--tma loads the tiles of native wgmma kernels: it cannot go "
            "with --no-native-wgmma";
    return false;
  }
  if (o.emulate && (!o.bundle.empty() || !o.measurementsPath.empty() ||
                    !o.calibratePath.empty() || o.threads != 1)) {
    error = "--emulate measures no time: it takes neither --bundle, "
            "--measurements, --calibrate nor --threads";
    return false;
  }
  if ((!o.measurementsPath.empty() || !o.calibratePath.empty()) &&
      o.modelSample <= 0) {
    error = "--measurements and --calibrate need --model-sample N: the "
            "times of every candidate on N workloads";
    return false;
  }
  return true;
}

/// What --baselines asks for: the libraries, in the order they are
/// reported, and whether the upstream lowering runs too.
struct BaselineChoice {
  std::vector<std::string> libraries;
  bool upstream = false;
  /// Quilt compiled without --tuning-db: what the database buys.
  bool untuned = false;
};

bool parseBaselines(const std::string &text, BaselineChoice &choice,
                    std::string &error) {
  const std::vector<std::string> &known = libraryBaselineNames();
  if (text.empty()) {
    for (const std::string &name : known)
      if (haveLibraryBaseline(name))
        choice.libraries.push_back(name);
    choice.upstream = true;
    return true;
  }
  if (text == "none")
    return true;
  std::vector<std::string> names;
  for (size_t start = 0; start <= text.size();) {
    size_t comma = std::min(text.find(',', start), text.size());
    names.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  for (const std::string &name : names) {
    if (name == "upstream" || name == "untuned") {
      (name == "upstream" ? choice.upstream : choice.untuned) = true;
      continue;
    }
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      error = "unknown baseline '" + name +
              "' in --baselines (openblas, onednn, blis, upstream, untuned "
              "or none)";
      return false;
    }
  }
  // Reported in a fixed order, each once, whatever order they were given.
  for (const std::string &name : known)
    if (std::find(names.begin(), names.end(), name) != names.end())
      choice.libraries.push_back(name);
  return true;
}

double gflop(const Workload &w) {
  return 2.0 * w.gemm.b * w.gemm.m * w.gemm.n * w.gemm.k * 1e-9;
}

/// Spearman's rank correlation of two equally long lists.
double rankCorrelation(const std::vector<double> &x,
                       const std::vector<double> &y) {
  auto ranks = [](const std::vector<double> &v) {
    std::vector<size_t> order(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return v[a] < v[b]; });
    std::vector<double> r(v.size());
    for (size_t i = 0; i < order.size(); ++i)
      r[order[i]] = double(i);
    return r;
  };
  std::vector<double> rx = ranks(x), ry = ranks(y);
  double n = double(x.size()), d2 = 0;
  for (size_t i = 0; i < x.size(); ++i)
    d2 += (rx[i] - ry[i]) * (rx[i] - ry[i]);
  return n < 2 ? 1.0 : 1.0 - 6.0 * d2 / (n * (n * n - 1));
}

struct Result {
  Workload workload;
  /// --emulate: what the emulator counted, and the model's DRAM traffic
  /// and on-chip time for the chosen kernel.
  std::optional<quilt_emulator_counters> emulated;
  double modelDramMB = 0, modelOnChipUs = 0;
  bool ok = false;
  double maxRelError = 0;
  double quiltUs = 0;
  /// Per library in --baselines: its time, or why it has none.
  struct LibraryRun {
    std::optional<double> us, createUs;
    /// Whether the library took the workload (oneDNN refuses empty ones).
    bool ran = false;
    std::string error;
  };
  std::map<std::string, LibraryRun> libraries;
  std::optional<double> upstreamUs, untunedUs;
  std::string chosen;
  double predictedUs = 0;
  std::string error;
};

/// Prepares `library` for `w`, runs it once into an output full of NaNs
/// and checks what it wrote like Quilt's. It is timed (us) only if right.
Result::LibraryRun checkLibrary(LibraryBaseline &library, const Workload &w,
                                Operands &operands) {
  Result::LibraryRun run;
  if (!library.prepare(w, operands, run.error))
    return run;
  run.ran = true;
  run.createUs = library.creationMicros();
  poison(operands.out);
  library.run();
  double error = maxRelativeError(w, operands);
  if (!(error <= kTolerance))
    run.error = "wrong output (largest error " + std::to_string(error) + ")";
  return run;
}

/// The fastest library's time on `r`, if any library ran it correctly.
std::optional<double> bestLibraryUs(const Result &r) {
  std::optional<double> best;
  for (const auto &[name, run] : r.libraries)
    if (run.us && (!best || *run.us < *best))
      best = run.us;
  return best;
}

struct ModelCheck {
  Workload workload;
  std::vector<KernelConfig> configs;
  /// --emulate: per candidate, whether it computed the right result and
  /// what the emulator counted (no times).
  std::vector<bool> ok;
  std::vector<quilt_emulator_counters> emulated;
  std::vector<double> predictedUs, measuredUs;
  /// Per candidate, with every term: the residual model's features.
  std::vector<Prediction> predictions;
  double spearman = 0, regret = 0;
};

/// The model's predictions for `check`'s candidates on `target`, its rank
/// correlation with the measurements, and the regret of its pick (the
/// measured time of the candidate it selects over the fastest one's).
bool scoreModel(ModelCheck &check, const TargetDesc &target,
                const ExplainOptions &options, std::string &error) {
  ExplainReport report;
  if (!explainCandidates(check.workload, target, check.configs, options, report,
                         error))
    return false;
  check.predictedUs.clear();
  check.predictions = report.predictions;
  for (const Prediction &p : report.predictions)
    check.predictedUs.push_back(p.totalUs);
  check.spearman = rankCorrelation(check.predictedUs, check.measuredUs);
  double best =
      *std::min_element(check.measuredUs.begin(), check.measuredUs.end());
  double picked = check.measuredUs[report.selection.candidate];
  check.regret = best > 0 ? picked / best - 1.0 : 0.0;
  return true;
}

/// The model checks' times as the CSV `quiltc calibrate` reads, with the
/// analytic prediction and the residual model's features of every row
/// (bench/host/train_residual.py learns from those).
std::string measurementsCsv(const std::vector<ModelCheck> &checks,
                            const TargetDesc &target, int threads) {
  std::string csv = "# quilt-bench --model-sample on " + target.name + " (" +
                    target.description + "), " + std::to_string(threads) +
                    " thread(s): the cost model sees " +
                    std::to_string(target.computeUnits) +
                    " core(s); quilt-bench --calibrate fits against that\n"
                    "op,dtype,b,m,n,k,config,measured_us,target,predicted_us";
  for (int f = 0; f < kNumResidualFeatures; ++f)
    csv += std::string(",") + residualFeatureName(f);
  csv += "\n";
  auto number = [](double v) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.9g", v);
    return std::string(text);
  };
  for (const ModelCheck &c : checks)
    for (size_t i = 0; i < c.configs.size(); ++i) {
      const GemmShape &g = c.workload.gemm;
      char time[32];
      std::snprintf(time, sizeof(time), "%.3f", c.measuredUs[i]);
      csv += std::string(stringify(c.workload.op)) + "," +
             std::string(stringify(c.workload.elem)) + "," +
             std::to_string(g.b) + "," + std::to_string(g.m) + "," +
             std::to_string(g.n) + "," + std::to_string(g.k) + "," +
             c.configs[i].str() + "," + time + "," + target.name + "," +
             number(c.predictions[i].totalUs);
      for (double f : residualFeatures(g, c.workload.elem, c.configs[i], target,
                                       c.predictions[i]))
        csv += "," + number(f);
      csv += "\n";
    }
  return csv;
}

double geomean(const std::vector<double> &v) {
  if (v.empty())
    return 0;
  double sum = 0;
  for (double x : v)
    sum += std::log(x);
  return std::exp(sum / v.size());
}

/// The emulator's counters as a JSON object (docs/gpu-emulator.md).
void writeEmulatorJson(JsonWriter &json, const quilt_emulator_counters &c) {
  static const char *const classes[QUILT_EMU_NUM_CLASSES] = {
      "tensor_core", "fma", "load", "store", "shared", "barrier", "other"};
  json.beginObject();
  auto field = [&](const char *name, uint64_t value) {
    json.key(name);
    json.value(double(value));
  };
  field("launches", c.launches);
  field("warp_instructions", c.warp_instructions);
  field("thread_instructions", c.thread_instructions);
  json.key("by_class");
  json.beginObject();
  for (int i = 0; i < QUILT_EMU_NUM_CLASSES; ++i)
    field(classes[i], c.by_class[i]);
  json.endObject();
  field("global_load_bytes", c.global_load_bytes);
  field("global_store_bytes", c.global_store_bytes);
  field("shared_load_bytes", c.shared_load_bytes);
  field("shared_store_bytes", c.shared_store_bytes);
  field("async_copy_bytes", c.async_copy_bytes);
  field("shared_requests", c.shared_requests);
  field("shared_wavefronts", c.shared_wavefronts);
  field("shared_ideal_wavefronts", c.shared_ideal_wavefronts);
  field("global_requests", c.global_requests);
  field("global_sectors", c.global_sectors);
  field("global_ideal_sectors", c.global_ideal_sectors);
  json.key("emulated_seconds");
  json.value(c.seconds);
  json.endObject();
}

/// --emulate without --json: per workload, the check and the traffic the
/// emulator counted beside the model's.
void printEmulatedTable(const std::vector<Result> &results,
                        const std::vector<ModelCheck> &checks) {
  std::printf("%-44s %3s %9s %10s %9s %9s %9s %7s %7s  %s\n", "workload", "ok",
              "max_err", "warp_inst", "global_MB", "model_MB", "shared_MB",
              "banks", "sectors", "chosen");
  for (const Result &r : results) {
    if (!r.emulated) {
      std::printf("%-44s %3s  %s\n", r.workload.str().c_str(), "NO",
                  r.error.c_str());
      continue;
    }
    const quilt_emulator_counters &c = *r.emulated;
    double ratioBanks =
        c.shared_ideal_wavefronts
            ? double(c.shared_wavefronts) / double(c.shared_ideal_wavefronts)
            : 1.0;
    double ratioSectors =
        c.global_ideal_sectors
            ? double(c.global_sectors) / double(c.global_ideal_sectors)
            : 1.0;
    std::printf("%-44s %3s %9.1e %10llu %9.2f %9.2f %9.2f %6.2fx %6.2fx  %s\n",
                r.workload.str().c_str(), r.ok ? "yes" : "NO", r.maxRelError,
                (unsigned long long)c.warp_instructions,
                double(c.global_load_bytes + c.global_store_bytes) * 1e-6,
                r.modelDramMB,
                double(c.shared_load_bytes + c.shared_store_bytes +
                       c.async_copy_bytes) *
                    1e-6,
                ratioBanks, ratioSectors, r.chosen.c_str());
  }
  for (const ModelCheck &c : checks) {
    size_t ok = size_t(std::count(c.ok.begin(), c.ok.end(), true));
    std::printf("every candidate of %-40s %zu of %zu correct\n",
                c.workload.str().c_str(), ok, c.ok.size());
  }
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  std::string error;
  if (!parseArgs(argc, argv, o, error)) {
    std::cerr << "quilt-bench: error: " << error << "\n" << kUsage;
    return 2;
  }
  BaselineChoice baselineChoice;
  if (!parseBaselines(o.baselines, baselineChoice, error)) {
    std::cerr << "quilt-bench: error: " << error << "\n";
    return 2;
  }
  // Emulated GPU runs and bundles measure no time here: no baselines.
  bool timesHere = !o.emulate && o.bundle.empty();
  bool wantUpstream = timesHere && baselineChoice.upstream;
  bool wantUntuned = timesHere && baselineChoice.untuned;
  if (baselineChoice.untuned && o.tuningDb.empty()) {
    std::cerr << "quilt-bench: error: the untuned baseline is Quilt without "
                 "--tuning-db: give one\n";
    return 2;
  }
  std::vector<std::unique_ptr<LibraryBaseline>> libraries;
  for (const std::string &name : baselineChoice.libraries) {
    if (!timesHere)
      break;
    libraries.push_back(makeLibraryBaseline(name, o.threads, error));
    if (!libraries.back()) {
      std::cerr << "quilt-bench: error: " << error
                << "; leave it out of --baselines\n";
      return 1;
    }
  }
  if (o.threads != 1 && !haveOpenMP()) {
    std::cerr << "quilt-bench: error: --threads " << o.threads
              << " needs LLVM's OpenMP runtime (libomp-22-dev), which this "
                 "quilt-bench was built without\n";
    return 1;
  }

  TargetDatabase db = TargetDatabase::withBuiltins();
  if (!o.targetFile.empty() && !db.addFromFile(o.targetFile, error)) {
    std::cerr << "quilt-bench: error: " << error << "\n";
    return 1;
  }
  const TargetDesc *found = db.lookup(o.target);
  if (!found) {
    std::cerr << "quilt-bench: error: unknown target '" << o.target
              << "' (quiltc targets lists them)\n";
    return 1;
  }
  bool runsHere = o.bundle.empty();
  if (found->isGpu() && runsHere && !o.emulate) {
    std::cerr << "quilt-bench: error: '" << o.target
              << "' is a GPU target: prepare its benchmark with --bundle DIR "
                 "and run bench/gpu/run.py DIR on a machine with the GPU, or "
                 "check its kernels here with --emulate\n";
    return 1;
  }
  if (!found->isGpu() && o.emulate) {
    std::cerr << "quilt-bench: error: --emulate runs a GPU target's kernels "
                 "on Quilt's GPU emulators; '"
              << o.target << "' runs here without it\n";
    return 1;
  }
  if (!found->isGpu() && !runsHere) {
    std::cerr << "quilt-bench: error: --bundle needs a GPU target\n";
    return 1;
  }
  // What the compiled selection models: the cores the kernels run on.
  const TargetDesc benchTarget = restrictToCores(*found, o.threads);
  const TargetDesc *target = &benchTarget;
  std::vector<Workload> workloads;
  if (!parseWorkloadFile(o.workloads, workloads, error)) {
    std::cerr << "quilt-bench: error: " << error << "\n";
    return 1;
  }
  for (const Workload &w : workloads)
    if (std::string why = unmeasurableReason(w); !why.empty()) {
      std::cerr << "quilt-bench: error: " << o.workloads << ": " << why << "\n";
      return 1;
    }

  // The compiled libraries go with the directory at exit (declared before
  // the kernels, so that they are unloaded first).
  ScratchDirectory scratch("quilt-bench");
  if (scratch.path().empty()) {
    std::cerr << "quilt-bench: error: cannot create a temporary directory\n";
    return 1;
  }
  const std::string &directory = scratch.path();
  CompileOptions base;
  base.target = o.target;
  base.targetFile = o.targetFile;
  base.policy = o.policy;
  base.maxCandidates = o.maxCandidates;
  base.tuningDb = o.tuningDb;
  base.nativeWgmma = o.nativeWgmma;
  base.tmaLoads = o.tmaLoads;
  std::unique_ptr<EmulatedGpu> gpu;
  if (o.emulate) {
    // What the emulators run: PTX text (the CUDA driver's JIT path) and
    // hsaco code objects.
    base.deviceFormat = found->vendor == Vendor::AMD ? "bin" : "isa";
    gpu = EmulatedGpu::open(defaultRuntimeDir(), *found, error);
    if (!gpu) {
      std::cerr << "quilt-bench: error: " << error << "\n";
      return 1;
    }
  }

  ExplainOptions explainOptions;
  explainOptions.candidates.maxCandidates = o.maxCandidates;
  explainOptions.threads = o.threads;
  TuningDatabase tuning;
  if (!o.tuningDb.empty()) {
    if (!TuningDatabase::load(o.tuningDb, db, tuning, error) ||
        !tuning.checkApplies(*found, o.threads, error)) {
      std::cerr << "quilt-bench: error: " << error << "\n";
      return 1;
    }
    explainOptions.tuning = &tuning;
  }
  std::string policyText = o.policy;
  std::replace(policyText.begin(), policyText.end(), '_', '-');
  if (!parseSelectionPolicy(policyText, explainOptions.policy,
                            explainOptions.fixedIndex)) {
    std::cerr << "quilt-bench: error: unknown policy '" << o.policy << "'\n";
    return 2;
  }
  if (o.modelSample > 0 && explainOptions.policy == SelectionPolicy::Fixed) {
    std::cerr << "quilt-bench: error: --model-sample runs every candidate, "
                 "but a library compiled with policy "
              << o.policy << " has only that candidate's kernel\n";
    return 2;
  }

  if (!o.bundle.empty()) {
    if (!writeGpuBundle(workloads, *found, base, explainOptions, o.bundle,
                        error)) {
      std::cerr << "quilt-bench: error: " << error << "\n";
      return 1;
    }
    std::cout << "quilt-bench: wrote " << o.bundle << " for " << o.target
              << " (" << workloads.size()
              << " workloads); run on a machine with the GPU: python3 "
                 "bench/gpu/run.py "
              << o.bundle << "\n";
    return 0;
  }

  using Kernels = std::map<std::string, std::unique_ptr<BenchKernel>>;
  Kernels quiltKernels, upstreamKernels, untunedKernels;
  // The library for a kind of workload (`key`), compiled on its first
  // workload; null, and the error said once, when it does not compile.
  auto kernelFor = [](Kernels &kernels, const std::string &key,
                      const std::string &what, auto compile) {
    auto it = kernels.find(key);
    if (it == kernels.end()) {
      std::string compileError;
      it = kernels.emplace(key, compile(compileError)).first;
      if (!it->second)
        std::cerr << "quilt-bench: cannot compile " << what << key << ":\n"
                  << compileError << "\n";
    }
    return it->second.get();
  };
  std::vector<Result> results;
  std::vector<ModelCheck> modelChecks;
  std::mt19937 rng(42);
  int modelEvery = o.modelSample > 0
                       ? std::max<int>(1, int(workloads.size()) / o.modelSample)
                       : 0;

  for (size_t index = 0; index < workloads.size(); ++index) {
    const Workload &w = workloads[index];
    Result r;
    r.workload = w;
    std::string key = BenchKernel::keyFor(w);
    BenchKernel *quilt =
        kernelFor(quiltKernels, key, "", [&](std::string &compileError) {
          return BenchKernel::compile(w, true, o.threads, base, directory,
                                      compileError);
        });
    if (!quilt) {
      r.error = "compilation failed";
      results.push_back(r);
      continue;
    }

    ExplainReport report;
    // The candidates the compiler generated (for the target as attached),
    // priced as the compiled selection prices them (on the bench's cores).
    if (explainWorkload(w, *found, explainOptions, report, error)) {
      r.predictedUs = report.selection.predictedUs;
      r.chosen = describeChoice(report);
    }

    Operands operands = makeOperands(w);
    operands.lhs.fillRandom(rng);
    operands.rhs.fillRandom(rng);
    if (gpu) {
      // One emulated call: the result checked, the counters kept.
      poison(operands.out);
      gpu->resetCounters();
      std::string runError;
      if (!gpu->run(*quilt, operands, runError)) {
        r.error = runError;
      } else {
        r.emulated = gpu->counters();
        r.maxRelError = maxRelativeError(w, operands);
        r.ok = r.maxRelError <= kTolerance;
      }
      if (!report.predictions.empty() && report.selection.candidate >= 0) {
        const Prediction &p = report.predictions[report.selection.candidate];
        r.modelDramMB = p[Term::DramMB];
        r.modelOnChipUs = p[Term::OnChipUs];
      }
      if (modelEvery && index % modelEvery == 0 &&
          int(modelChecks.size()) < o.modelSample &&
          !report.candidates.empty()) {
        ModelCheck check;
        check.workload = w;
        check.configs = report.candidates;
        for (size_t c = 0; c < report.candidates.size(); ++c) {
          quilt_rt_force_kernel(int32_t(c));
          poison(operands.out);
          gpu->resetCounters();
          std::string candidateError;
          bool ran = gpu->run(*quilt, operands, candidateError);
          check.ok.push_back(ran &&
                             maxRelativeError(w, operands) <= kTolerance);
          check.emulated.push_back(gpu->counters());
          check.predictedUs.push_back(report.predictions[c].totalUs);
          if (!ran)
            std::cerr << "quilt-bench: " << w.str() << " candidate " << c
                      << ": " << candidateError << "\n";
        }
        quilt_rt_force_kernel(-1);
        modelChecks.push_back(check);
      }
      results.push_back(r);
      if (!o.json)
        std::fprintf(stderr, "[%zu/%zu] %s\n", index + 1, workloads.size(),
                     w.str().c_str());
      continue;
    }
    // Correctness first: every element of the output written. Then the
    // time of one call, which is the whole product (the function fills its
    // accumulator itself).
    poison(operands.out);
    quilt->run(operands);
    r.maxRelError = maxRelativeError(w, operands);
    r.ok = r.maxRelError <= kTolerance;
    // Quilt and each library that computed it right, timed in interleaved
    // rounds: on a shared machine the speed drifts between their turns.
    std::vector<std::function<void()>> contenders = {
        [&] { quilt->run(operands); }};
    std::vector<Result::LibraryRun *> timedLibraries;
    for (const std::unique_ptr<LibraryBaseline> &library : libraries) {
      Result::LibraryRun &run = r.libraries[library->name()] =
          checkLibrary(*library, w, operands);
      if (run.ran && run.error.empty()) {
        LibraryBaseline *timed = library.get();
        contenders.push_back([timed] { timed->run(); });
        timedLibraries.push_back(&run);
      }
    }
    std::vector<double> times = interleavedMedianMicros(
        contenders.size(), [&](size_t i) { contenders[i](); }, o.minTime);
    r.quiltUs = times[0];
    for (size_t i = 0; i < timedLibraries.size(); ++i)
      timedLibraries[i]->us = times[i + 1];
    // A baseline is timed only when it computes the right result.
    auto correct = [&](const BenchKernel &kernel) {
      poison(operands.out);
      kernel.run(operands);
      return maxRelativeError(w, operands) <= kTolerance;
    };
    if (wantUntuned) {
      BenchKernel *untuned = kernelFor(
          untunedKernels, key, "the untuned baseline ",
          [&](std::string &compileError) {
            CompileOptions untunedOptions = base;
            untunedOptions.tuningDb.clear();
            // Beside Quilt's library of the same name.
            std::string untunedDirectory = directory + "/untuned";
            std::filesystem::create_directories(untunedDirectory);
            return BenchKernel::compile(w, true, o.threads, untunedOptions,
                                        untunedDirectory, compileError);
          });
      if (untuned) {
        if (correct(*untuned)) {
          // ABBA with the time above: neither side gains from its place.
          double untunedFirst =
              medianMicros([&] { untuned->run(operands); }, o.minTime);
          double untunedSecond =
              medianMicros([&] { untuned->run(operands); }, o.minTime);
          double quiltSecond =
              medianMicros([&] { quilt->run(operands); }, o.minTime);
          r.untunedUs = (untunedFirst + untunedSecond) / 2;
          r.quiltUs = (r.quiltUs + quiltSecond) / 2;
        } else {
          std::cerr << "quilt-bench: the untuned library's output on "
                    << w.str() << " is wrong; it is not timed\n";
        }
      }
    }
    if (wantUpstream && gflop(w) <= o.upstreamMaxGflop) {
      BenchKernel *upstream =
          kernelFor(upstreamKernels, key, "the upstream baseline ",
                    [&](std::string &compileError) {
                      return BenchKernel::compile(w, false, 1, base, directory,
                                                  compileError);
                    });
      if (upstream) {
        if (correct(*upstream))
          r.upstreamUs = medianMicros([&] { upstream->run(operands); }, 0.0);
        else
          std::cerr << "quilt-bench: the upstream lowering's output on "
                    << w.str() << " is wrong; it is not timed\n";
      }
    }

    if (modelEvery && index % modelEvery == 0 &&
        int(modelChecks.size()) < o.modelSample && !report.candidates.empty()) {
      ModelCheck check;
      check.workload = w;
      check.configs = report.candidates;
      // Interleaved, so that the candidates compare at the same moments.
      check.measuredUs = interleavedMedianMicros(
          report.candidates.size(),
          [&](size_t c) {
            quilt_rt_force_kernel(int32_t(c));
            quilt->run(operands);
          },
          o.minTime * 3 / 4);
      quilt_rt_force_kernel(-1);
      if (scoreModel(check, *target, explainOptions, error))
        modelChecks.push_back(check);
      else
        std::cerr << "quilt-bench: model check of " << w.str() << ": " << error
                  << "\n";
    }
    results.push_back(r);
    if (!o.json)
      std::fprintf(stderr, "[%zu/%zu] %s\n", index + 1, workloads.size(),
                   w.str().c_str());
  }

  // Summaries over the workloads that ran and did real work: Quilt over
  // each library, over the fastest library on each workload, and over the
  // upstream lowering.
  std::map<std::string, std::vector<double>> vsLibrary;
  std::vector<double> vsBest, vsUpstream, vsUntuned, regrets;
  int failures = 0;
  for (const Result &r : results) {
    failures += !r.ok;
    if (!r.ok || r.quiltUs <= 0 || gflop(r.workload) == 0)
      continue;
    for (const auto &[name, run] : r.libraries)
      if (run.us)
        vsLibrary[name].push_back(*run.us / r.quiltUs);
    if (std::optional<double> best = bestLibraryUs(r))
      vsBest.push_back(*best / r.quiltUs);
    if (r.upstreamUs)
      vsUpstream.push_back(*r.upstreamUs / r.quiltUs);
    if (r.untunedUs)
      vsUntuned.push_back(*r.untunedUs / r.quiltUs);
  }
  // Emulated checks have no times to score, only results.
  for (const ModelCheck &c : modelChecks) {
    if (o.emulate)
      failures += int(std::count(c.ok.begin(), c.ok.end(), false));
    else
      regrets.push_back(1.0 + c.regret);
  }
  // With a target file that recalibrates the target, the same times scored
  // with the built-in coefficients: a paired comparison, free of the noise
  // between two runs.
  std::vector<double> regretsBuiltin;
  const TargetDesc *builtin = TargetDatabase::builtin().lookup(o.target);
  bool recalibrated =
      !o.emulate && builtin && !(builtin->calibration == found->calibration);
  if (recalibrated) {
    TargetDesc reference = *target;
    reference.calibration = builtin->calibration;
    for (ModelCheck c : modelChecks)
      if (scoreModel(c, reference, explainOptions, error))
        regretsBuiltin.push_back(1.0 + c.regret);
  }

  // The model checks' times, for quiltc calibrate and for the fit.
  if (!o.measurementsPath.empty()) {
    std::ofstream out(o.measurementsPath);
    out << measurementsCsv(modelChecks, *target, o.threads);
    if (!out) {
      std::cerr << "quilt-bench: error: cannot write " << o.measurementsPath
                << "\n";
      return 1;
    }
  }
  std::optional<FitResult> fit;
  std::vector<double> regretsAfter;
  if (!o.calibratePath.empty()) {
    std::vector<Measurement> measurements;
    for (const ModelCheck &c : modelChecks)
      for (size_t i = 0; i < c.configs.size(); ++i)
        measurements.push_back(Measurement{c.workload.op, c.workload.elem,
                                           c.workload.gemm, c.configs[i],
                                           c.measuredUs[i]});
    fit.emplace();
    if (!fitCalibration(*target, measurements, *fit, error)) {
      std::cerr << "quilt-bench: error: calibration: " << error << "\n";
      return 1;
    }
    // The same sample scored with the fitted coefficients (in-sample: a
    // held-out file measures how far it carries).
    TargetDesc calibrated = *target;
    calibrated.calibration = fit->after;
    for (ModelCheck c : modelChecks)
      if (scoreModel(c, calibrated, explainOptions, error))
        regretsAfter.push_back(1.0 + c.regret);
    std::ofstream out(o.calibratePath);
    out << "# The cost model's coefficients for this machine, fitted by\n"
           "# quilt-bench --calibrate to the times of every candidate on "
        << modelChecks.size() << " workloads\n# of " << o.workloads << " ("
        << o.threads << " thread(s), " << target->description
        << ").\n# Pass it to quiltc, quilt-bench, quilt-opt's pipelines "
           "(target-file=) with --target-file.\n"
        << renderCalibrationSection(fit->after, *found);
    if (!out) {
      std::cerr << "quilt-bench: error: cannot write " << o.calibratePath
                << "\n";
      return 1;
    }
  }

  if (o.json) {
    std::string text;
    JsonWriter json(text);
    json.beginObject();
    json.key("target");
    json.value(target->name);
    json.key("threads");
    json.value(double(o.threads));
    json.key("results");
    json.beginArray();
    for (const Result &r : results) {
      json.beginObject();
      json.key("workload");
      json.value(r.workload.str());
      json.key("ok");
      json.value(r.ok);
      json.key("max_rel_error");
      json.value(r.maxRelError);
      json.key("quilt_us");
      o.emulate ? json.null() : json.value(r.quiltUs);
      // `<library>_us` for every library --baselines named (null when it
      // has no time: `<library>_error` says why), oneDNN's primitive
      // creation in `onednn_create_us`.
      for (const auto &[name, run] : r.libraries) {
        json.key(name + "_us");
        run.us ? json.value(*run.us) : json.null();
        if (run.createUs) {
          json.key(name + "_create_us");
          json.value(*run.createUs);
        }
        if (!run.error.empty()) {
          json.key(name + "_error");
          json.value(run.error);
        }
      }
      json.key("upstream_us");
      r.upstreamUs ? json.value(*r.upstreamUs) : json.null();
      if (wantUntuned) {
        json.key("untuned_us");
        r.untunedUs ? json.value(*r.untunedUs) : json.null();
      }
      json.key("chosen");
      json.value(r.chosen);
      json.key("predicted_us");
      json.value(r.predictedUs);
      if (r.emulated) {
        json.key("emulator");
        writeEmulatorJson(json, *r.emulated);
        json.key("model_dram_mb");
        json.value(r.modelDramMB);
        json.key("model_onchip_us");
        json.value(r.modelOnChipUs);
      }
      if (!r.error.empty()) {
        json.key("error");
        json.value(r.error);
      }
      json.endObject();
    }
    json.endArray();
    for (const std::unique_ptr<LibraryBaseline> &library : libraries) {
      const std::vector<double> &ratios = vsLibrary[library->name()];
      json.key(std::string("geomean_speedup_vs_") + library->name());
      ratios.empty() ? json.null() : json.value(geomean(ratios));
    }
    json.key("geomean_speedup_vs_best_library");
    vsBest.empty() ? json.null() : json.value(geomean(vsBest));
    json.key("geomean_speedup_vs_upstream");
    vsUpstream.empty() ? json.null() : json.value(geomean(vsUpstream));
    if (wantUntuned) {
      json.key("geomean_speedup_vs_untuned");
      vsUntuned.empty() ? json.null() : json.value(geomean(vsUntuned));
    }
    json.key("model_check");
    json.beginArray();
    for (const ModelCheck &c : modelChecks) {
      json.beginObject();
      json.key("workload");
      json.value(c.workload.str());
      json.key("spearman");
      o.emulate ? json.null() : json.value(c.spearman);
      json.key("regret");
      o.emulate ? json.null() : json.value(c.regret);
      json.key("candidates");
      json.beginArray();
      for (size_t i = 0; i < c.configs.size(); ++i) {
        json.beginObject();
        json.key("config");
        json.value(c.configs[i].str());
        json.key("predicted_us");
        json.value(c.predictedUs[i]);
        if (o.emulate) {
          json.key("ok");
          json.value(bool(c.ok[i]));
          json.key("emulator");
          writeEmulatorJson(json, c.emulated[i]);
        } else {
          json.key("measured_us");
          json.value(c.measuredUs[i]);
        }
        json.endObject();
      }
      json.endArray();
      json.endObject();
    }
    json.endArray();
    if (!regretsBuiltin.empty()) {
      json.key("model_check_regret_builtin_calibration");
      json.value(geomean(regretsBuiltin) - 1.0);
    }
    if (fit) {
      json.key("calibration");
      writeFitJson(json, *fit, *found);
      json.key("model_check_regret_after");
      json.value(geomean(regretsAfter) - 1.0);
    }
    json.endObject();
    std::cout << text << "\n";
  } else if (o.emulate) {
    printEmulatedTable(results, modelChecks);
  } else {
    auto num = [](std::optional<double> v, const char *fmt) {
      char buf[32];
      if (!v)
        return std::string("-");
      std::snprintf(buf, sizeof(buf), fmt, *v);
      return std::string(buf);
    };
    auto ratio = [](std::optional<double> base, double quilt) {
      return base && quilt > 0 ? std::optional<double>(*base / quilt)
                               : std::nullopt;
    };
    std::printf("%-48s %3s %9s %11s", "workload", "ok", "max_err", "quilt_us");
    for (const std::unique_ptr<LibraryBaseline> &library : libraries)
      std::printf(" %11s", (std::string(library->name()) + "_us").c_str());
    if (!libraries.empty())
      std::printf(" %8s", "vs_best");
    if (wantUpstream)
      std::printf(" %11s %8s", "upstream_us", "vs_up");
    if (wantUntuned)
      std::printf(" %11s %10s", "untuned_us", "vs_untuned");
    std::printf(" %10s  %s\n", "pred_us", "chosen");
    for (const Result &r : results) {
      std::printf("%-48s %3s %9.1e %11.1f", r.workload.str().c_str(),
                  r.ok ? "yes" : "NO", r.maxRelError, r.quiltUs);
      for (const std::unique_ptr<LibraryBaseline> &library : libraries) {
        auto run = r.libraries.find(library->name());
        std::string time = "-";
        if (run != r.libraries.end() && run->second.ran)
          time = run->second.us ? num(run->second.us, "%.1f") : "WRONG";
        std::printf(" %11s", time.c_str());
      }
      if (!libraries.empty())
        std::printf(" %8s",
                    num(ratio(bestLibraryUs(r), r.quiltUs), "%.2fx").c_str());
      if (wantUpstream)
        std::printf(" %11s %8s", num(r.upstreamUs, "%.1f").c_str(),
                    num(ratio(r.upstreamUs, r.quiltUs), "%.1fx").c_str());
      if (wantUntuned)
        std::printf(" %11s %10s", num(r.untunedUs, "%.1f").c_str(),
                    num(ratio(r.untunedUs, r.quiltUs), "%.2fx").c_str());
      std::printf(" %10.1f  %s\n", r.predictedUs, r.chosen.c_str());
    }
    for (const Result &r : results)
      for (const auto &[name, run] : r.libraries)
        if (!run.error.empty())
          std::printf("%s on %s: %s\n", name.c_str(), r.workload.str().c_str(),
                      run.error.c_str());
    std::printf("\n");
    auto summary = [&](const std::string &label,
                       const std::vector<double> &ratios) {
      std::printf("geomean speed-up over %s: %s over %zu workloads\n",
                  label.c_str(),
                  num(ratios.empty() ? std::nullopt
                                     : std::optional<double>(geomean(ratios)),
                      "%.2fx")
                      .c_str(),
                  ratios.size());
    };
    for (const std::unique_ptr<LibraryBaseline> &library : libraries)
      summary(library->name(), vsLibrary[library->name()]);
    if (!libraries.empty())
      summary("the best library per workload", vsBest);
    if (wantUpstream)
      summary("upstream MLIR", vsUpstream);
    if (wantUntuned)
      summary("Quilt without the tuning database", vsUntuned);
    for (const ModelCheck &c : modelChecks)
      std::printf("model check %-40s spearman %.2f  regret %.1f%%\n",
                  c.workload.str().c_str(), c.spearman, 100 * c.regret);
    if (!modelChecks.empty())
      std::printf("model check geomean regret: %.1f%% over %zu workloads\n",
                  100 * (geomean(regrets) - 1.0), modelChecks.size());
    if (!regretsBuiltin.empty())
      std::printf("model check geomean regret with the built-in "
                  "calibration of %s, same times: %.1f%%\n",
                  o.target.c_str(), 100 * (geomean(regretsBuiltin) - 1.0));
  }
  if (fit && !o.json) {
    std::printf("\n%s", renderFitText(*fit, *found).c_str());
    std::printf("model check geomean regret with the fitted coefficients: "
                "%.1f%% over %zu workloads (in-sample); written to %s\n",
                100 * (geomean(regretsAfter) - 1.0), regretsAfter.size(),
                o.calibratePath.c_str());
  }
  return failures ? 1 : 0;
}
