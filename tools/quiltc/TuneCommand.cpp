//===- TuneCommand.cpp - quiltc tune: measured refinement of the model ----===//
//
// Part of the Quilt project. For each workload: the cost model's best few
// candidates are measured, coordinate descent (CostModel/TuningSearch.h)
// moves from the fastest while a move measures faster, and the winner, if
// it beats the model's pick, is written to a tuning database for the
// workload's shape region. Compiling with the database then runs it there.
//
//===----------------------------------------------------------------------===//

#include "TuneCommand.h"
#include "AnalysisCommands.h"
#include "CostModel/Explain.h"
#include "CostModel/TargetDatabase.h"
#include "CostModel/TuningDatabase.h"
#include "CostModel/TuningSearch.h"
#include "Measurement/ProbeKernels.h"
#include "Measurement/Reference.h"
#include "Measurement/ScratchDirectory.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

namespace quilt {

namespace {

constexpr const char *kUsage =
    "usage: quiltc tune --workloads FILE [--target T] [--target-file F]\n"
    "                   [--op OP] [--types T] [--budget SECONDS]\n"
    "                   [--db FILE] [--threads N] [--starts N]\n"
    "                   [--max-measurements N] [--region-scale F]\n"
    "                   [--min-time S] [--residual-model FILE]\n"
    "  Measures kernel configurations around the cost model's picks for\n"
    "  each workload (of op OP and element type T when given) on this\n"
    "  machine: the model's best --starts candidates (default 3), then one\n"
    "  knob at a time (register block, tile K, cache blocks) while a move\n"
    "  is 2% faster, until no move helps, the workload's share of --budget\n"
    "  (default 120 s) is spent or --max-measurements (default 48) are\n"
    "  taken. A winner faster than the model's pick is written to the\n"
    "  tuning database --db (default quilt-tuning.db; entries are added to\n"
    "  an existing one, same shape regions replaced) for shapes whose b, m,\n"
    "  n and k are within a factor --region-scale (default 1.5) of the\n"
    "  workload's. Compile with --tuning-db FILE to run the winners there;\n"
    "  see docs/tuning.md. Targets: CPU targets that run here (default\n"
    "  host); the kernels run on --threads N threads (default 1).\n"
    "  --residual-model FILE ranks the starting points after the model's\n"
    "  pick by a learned residual's corrected predictions (and prunes the\n"
    "  candidates with it, as compiling with it does).\n";

/// Probe libraries compiled at once.
constexpr int kCompileJobs = 2;
/// Times the model's pick and the winner are measured again, each.
constexpr int kConfirmRounds = 4;

struct TuneOptions {
  std::string target = "host", targetFile, workloads, db = "quilt-tuning.db";
  std::string op, types, residualModel;
  double budget = 120, regionScale = 1.5, minTime = 0.05;
  int threads = 1, starts = 3, maxMeasurements = 48;
};

int usage(std::ostream &err, const std::string &message) {
  err << "quiltc: error: " << message << "\n" << kUsage;
  return kExitUsage;
}

template <typename T>
bool parseNumber(const std::string &text, T &out, T low, T high) {
  char *end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= double(low)) ||
      !(v <= double(high)))
    return false;
  if constexpr (std::is_integral_v<T>)
    if (v != std::floor(v))
      return false;
  out = T(v);
  return true;
}

/// Parses the arguments; an empty string on success, else the problem.
std::string parseTuneOptions(const std::vector<std::string> &args,
                             TuneOptions &o, bool &help) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i], value;
    if (arg == "--help" || arg == "-h") {
      help = true;
      continue;
    }
    if (size_t eq = arg.find('=');
        arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (arg.rfind("--", 0) == 0) {
      if (i + 1 >= args.size())
        return "option '" + arg + "' needs a value";
      value = args[++i];
    } else {
      return "unexpected argument '" + arg + "'";
    }
    auto number = [&](auto &field, auto low, auto high) {
      return parseNumber(value, field, decltype(field)(low),
                         decltype(field)(high))
                 ? std::string()
                 : arg + " expects a number in [" + std::to_string(low) + ", " +
                       std::to_string(high) + "], got '" + value + "'";
    };
    std::string problem;
    if (arg == "--target")
      o.target = value;
    else if (arg == "--target-file")
      o.targetFile = value;
    else if (arg == "--workloads")
      o.workloads = value;
    else if (arg == "--db")
      o.db = value;
    else if (arg == "--op")
      o.op = value;
    else if (arg == "--residual-model")
      o.residualModel = value;
    else if (arg == "--types")
      o.types = value;
    else if (arg == "--budget")
      problem = number(o.budget, 1.0, 1e6);
    else if (arg == "--region-scale")
      problem = number(o.regionScale, 1.0, 1e3);
    else if (arg == "--min-time")
      problem = number(o.minTime, 0.001, 10.0);
    else if (arg == "--threads")
      problem = number(o.threads, 1, 1024);
    else if (arg == "--starts")
      problem = number(o.starts, 1, 16);
    else if (arg == "--max-measurements")
      problem = number(o.maxMeasurements, 1, 10000);
    else
      problem = "unknown option '" + arg + "'";
    if (!problem.empty())
      return problem;
  }
  if (o.workloads.empty() && !help)
    return "no workloads (--workloads FILE)";
  if (!o.op.empty() && !parseOpKind(o.op))
    return "unknown --op '" + o.op +
           "' (expected matmul, batch_matmul, conv2d_nhwc or conv2d_nchw)";
  if (!o.types.empty() && !parseElemType(o.types))
    return "unknown --types '" + o.types + "' (expected f32, f16, bf16 or f64)";
  return "";
}

/// The shapes an entry tuned at `shape` covers: each dimension within a
/// factor `scale` (an empty dimension stays exactly empty).
ShapeRegion regionAround(const GemmShape &shape, double scale) {
  ShapeRegion region;
  const int64_t dims[4] = {shape.b, shape.m, shape.n, shape.k};
  for (int d = 0; d < 4; ++d) {
    if (dims[d] == 0) {
      region.lower[d] = region.upper[d] = 0;
      continue;
    }
    region.lower[d] =
        std::max<int64_t>(1, int64_t(std::ceil(double(dims[d]) / scale)));
    region.upper[d] = int64_t(std::floor(double(dims[d]) * scale));
  }
  return region;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

std::string pad(std::string s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

struct Outcome {
  Workload workload;
  KernelConfig model, tuned;
  double modelUs = 0, tunedUs = 0;
  int measured = 0;
  std::string stop; ///< "optimum", "budget", or why nothing was tuned
  bool entry = false;
};

} // namespace

int runTuneCommand(const std::vector<std::string> &args, std::ostream &out,
                   std::ostream &err) {
  TuneOptions o;
  bool help = false;
  if (std::string problem = parseTuneOptions(args, o, help); !problem.empty())
    return usage(err, problem);
  if (help) {
    out << kUsage;
    return kExitOk;
  }
  auto fail = [&](const std::string &message) {
    err << "quiltc: error: " << message << "\n";
    return kExitError;
  };

  std::string error;
  TargetDatabase targets = TargetDatabase::withBuiltins();
  if (!o.targetFile.empty() && !targets.addFromFile(o.targetFile, error))
    return fail(error);
  const TargetDesc *target = targets.lookup(o.target);
  if (!target)
    return fail("unknown target '" + o.target + "' (see quiltc targets)");
  if (target->isGpu())
    return fail("'" + o.target +
                "' is a GPU target: quiltc tune measures on this machine and "
                "tunes CPU targets only (docs/tuning.md)");
  if (o.threads != 1 && !bench::haveOpenMP())
    return fail("--threads " + std::to_string(o.threads) +
                " needs LLVM's OpenMP runtime, which this quiltc was built "
                "without");

  std::vector<Workload> all, workloads;
  if (!parseWorkloadFile(o.workloads, all, error))
    return fail(error);
  for (const Workload &w : all)
    if ((o.op.empty() || stringify(w.op) == o.op) &&
        (o.types.empty() || stringify(w.elem) == o.types))
      workloads.push_back(w);
  if (workloads.empty())
    return fail(
        o.workloads + " has no " + (o.op.empty() ? std::string() : o.op + " ") +
        (o.types.empty() ? std::string() : o.types + " ") + "workload to tune");
  for (const Workload &w : workloads)
    if (std::string why = bench::unmeasurableReason(w); !why.empty())
      return fail(o.workloads + ": " + why);

  // Where the result goes is checked before minutes of measuring.
  std::filesystem::path parent = std::filesystem::path(o.db).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent))
    return fail("cannot write " + o.db + ": no directory " + parent.string());
  // The database to add to: an existing one must be for this target.
  TuningDatabase db;
  if (std::filesystem::exists(o.db)) {
    if (!TuningDatabase::load(o.db, targets, db, error) ||
        !db.checkApplies(*target, o.threads, error))
      return fail(error + " (tune into another --db file)");
  } else {
    db.path = o.db;
    db.target = target->name;
    db.targetDescription = target->description;
    db.threads = o.threads;
  }

  bench::ScratchDirectory scratch("quilt-tune");
  if (scratch.path().empty())
    return fail("cannot create a temporary directory");
  CompileOptions base;
  base.target = o.target;
  base.targetFile = o.targetFile;
  bench::ProbeKernels probes(base, *target, o.threads, scratch.path());
  // The model prices the cores the kernels run on, as compiled code does.
  ExplainOptions explainOptions;
  explainOptions.threads = o.threads;
  ResidualModel residual;
  if (!o.residualModel.empty()) {
    if (!residual.load(o.residualModel, error))
      return fail(error);
    explainOptions.residual = &residual;
    explainOptions.candidates.residual = &residual;
  }

  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now(),
                    end = start + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(o.budget));
  std::mt19937 rng(42);
  std::vector<Outcome> outcomes;
  for (size_t i = 0; i < workloads.size(); ++i) {
    const Workload &w = workloads[i];
    Outcome outcome;
    outcome.workload = w;
    err << "[" << i + 1 << "/" << workloads.size() << "] " << w.str() << "\n";
    const GemmShape &g = w.gemm;
    if (g.b == 0 || g.m == 0 || g.n == 0 || g.k == 0) {
      outcome.stop = "empty: nothing to tune";
      outcomes.push_back(outcome);
      continue;
    }
    ExplainReport report;
    if (!explainWorkload(w, *target, explainOptions, report, error))
      return fail(w.str() + ": " + error);
    outcome.model = report.candidates[report.selection.candidate];
    // The model's pick first (what the tuned winner must beat), then the
    // next best by the learned residual when there is one, else by the
    // analytic model.
    std::vector<int> order = report.ranking;
    if (!report.learnedUs.empty())
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return report.learnedUs[a] < report.learnedUs[b];
      });
    std::vector<KernelConfig> starts = {outcome.model};
    for (int index : order)
      if (int(starts.size()) < o.starts &&
          !(report.candidates[index] == outcome.model))
        starts.push_back(report.candidates[index]);

    bench::Operands operands = bench::makeOperands(w);
    operands.lhs.fillRandom(rng);
    operands.rhs.fillRandom(rng);
    auto measure = [&](const std::vector<KernelConfig> &configs) {
      std::vector<std::string> problems;
      std::vector<std::optional<double>> times =
          probes.measure(w, operands, configs, o.minTime, problems);
      for (const std::string &problem : problems)
        err << "  warning: " << problem << "\n";
      return times;
    };
    // This workload's share of what is left of the budget.
    Clock::time_point deadline =
        Clock::now() + (end - Clock::now()) / long(workloads.size() - i);
    TuningSearchOptions searchOptions;
    searchOptions.maxMeasurements = o.maxMeasurements;
    searchOptions.outOfTime = [&] { return Clock::now() >= deadline; };
    // A round of moves is compiled at once, in two libraries built side by
    // side.
    searchOptions.prepare = [&](const std::vector<KernelConfig> &configs) {
      probes.prepare(w, configs, kCompileJobs);
    };
    TuningSearchResult result = coordinateDescent(
        starts, tuningKnobs(*target, w.elem), measure, searchOptions,
        [&](const TuningStep &step) {
          err << "  " << pad(step.knob, 17) << pad(step.config.str(), 46)
              << (step.us ? fixed(*step.us, 1) + " us" : "failed")
              << (step.taken ? "  <- best" : "") << "\n";
        });
    outcome.measured = int(result.steps.size());
    if (!result.found) {
      outcome.stop = "no configuration could be measured";
      outcomes.push_back(outcome);
      continue;
    }
    outcome.stop = result.localOptimum ? "optimum" : "budget";
    outcome.tuned = result.best;
    // The search's best time is the minimum of noisy samples; the model's
    // pick and the winner are timed again, interleaved in alternating order
    // (ABBA: neither gains from running second), for the figures that
    // decide and that are reported.
    std::vector<double> modelTimes, tunedTimes;
    for (int round = 0; round < kConfirmRounds; ++round) {
      bool modelFirst = round % 2 == 0;
      std::vector<std::optional<double>> pair =
          modelFirst ? measure({outcome.model, outcome.tuned})
                     : measure({outcome.tuned, outcome.model});
      if (!modelFirst)
        std::swap(pair[0], pair[1]);
      if (pair[0] && pair[1]) {
        modelTimes.push_back(*pair[0]);
        tunedTimes.push_back(*pair[1]);
      }
    }
    if (modelTimes.empty()) {
      outcome.stop = "the model's pick could not be measured";
      outcomes.push_back(outcome);
      continue;
    }
    outcome.modelUs = median(modelTimes);
    outcome.tunedUs = median(tunedTimes);
    outcome.entry =
        !(outcome.tuned == outcome.model) &&
        outcome.tunedUs < outcome.modelUs * (1.0 - searchOptions.minGain);
    if (!outcome.entry) {
      outcome.tuned = outcome.model;
      outcome.tunedUs = outcome.modelUs;
    } else {
      TuningEntry entry;
      entry.op = w.op;
      entry.elem = w.elem;
      entry.epilogue = std::string(kAnyEpilogue);
      entry.region = regionAround(g, o.regionScale);
      entry.config = outcome.tuned;
      entry.measuredUs = outcome.tunedUs;
      entry.modelConfig = outcome.model;
      entry.modelMeasuredUs = outcome.modelUs;
      db.put(entry);
    }
    outcomes.push_back(outcome);
  }

  std::string text = "# Tuned by quiltc tune on " + target->description +
                     "\n# (" + std::to_string(o.threads) +
                     " thread(s)); compile with --tuning-db " + o.db +
                     " (docs/tuning.md).\n" + db.render();
  std::ofstream file(o.db);
  file << text;
  if (!file)
    return fail("cannot write " + o.db);

  // The summary: the model's pick against the tuned winner, re-measured.
  out << pad("workload", 42) << pad("model's pick", 46) << "    model_us  "
      << pad("tuned", 46) << "    tuned_us  speedup  measured  stop\n";
  double logSum = 0;
  int tuned = 0, entries = 0;
  for (const Outcome &r : outcomes) {
    out << pad(r.workload.str(), 42);
    if (r.modelUs <= 0) {
      out << r.stop << "\n";
      continue;
    }
    double speedup = r.modelUs / r.tunedUs;
    logSum += std::log(speedup);
    ++tuned;
    entries += r.entry;
    out << pad(r.model.str(), 46) << pad(fixed(r.modelUs, 1), 12) << "  "
        << pad(r.entry ? r.tuned.str() : "(the model's pick)", 46)
        << pad(fixed(r.tunedUs, 1), 12) << "  "
        << pad(fixed(speedup, 2) + "x", 9)
        << pad(std::to_string(r.measured), 10) << r.stop << "\n";
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  out << "\ngeomean speed-up over the model's pick: "
      << fixed(tuned ? std::exp(logSum / tuned) : 1.0, 3) << "x on " << tuned
      << " workload(s); " << entries << " entr" << (entries == 1 ? "y" : "ies")
      << " written to " << o.db << " (" << db.entries.size()
      << " in all)\ntuning took " << fixed(seconds, 0) << " s, of which "
      << fixed(probes.compileSeconds(), 0) << " s compiling "
      << probes.librariesCompiled() << " probe libraries\n";
  return kExitOk;
}

} // namespace quilt
