//===- AnalysisCommands.cpp - quiltc's cost-model commands ----------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "AnalysisCommands.h"

#include "CostModel/CalibrationFit.h"
#include "CostModel/Explain.h"
#include "CostModel/Replay.h"
#include "CostModel/TargetDatabase.h"

#include <cstdlib>
#include <ostream>

namespace quilt {

namespace {

/// The options every analysis command understands, parsed leniently in one
/// pass: flags a command does not take are reported by that command.
struct Options {
  std::string target;
  std::vector<std::string> targetFiles;
  std::string workloadsFile, measurementsFile, tuningDb, residualModel,
      policy = "cost-model";
  std::vector<std::string> workloads;
  /// Every --measurements, in order (calibrate takes the last).
  std::vector<std::string> measurementsFiles;
  bool json = false, tf32 = false, help = false;
  int top = 0, maxCandidates = 16, threads = 1;
};

bool parseCount(const std::string &text, int low, int high, int &out) {
  char *end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < low || v > high)
    return false;
  out = int(v);
  return true;
}

/// Parses `args`; `allowed` lists the flags this command accepts.
bool parseOptions(const std::vector<std::string> &args,
                  const std::vector<std::string> &allowed, bool positional,
                  Options &o, std::string &error) {
  auto isAllowed = [&](const std::string &flag) {
    for (const std::string &a : allowed)
      if (a == flag)
        return true;
    return false;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i], value;
    bool hasValue = false;
    if (arg.rfind("--", 0) == 0) {
      if (size_t eq = arg.find('='); eq != std::string::npos) {
        value = arg.substr(eq + 1), arg = arg.substr(0, eq), hasValue = true;
      }
    } else if (arg != "-h") {
      if (!positional) {
        error = "unexpected argument '" + arg + "'";
        return false;
      }
      o.workloads.push_back(arg);
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      o.help = true;
      continue;
    }
    if (!isAllowed(arg)) {
      error = "unknown option '" + arg + "'";
      return false;
    }
    if (arg == "--json" || arg == "--tf32") {
      (arg == "--json" ? o.json : o.tf32) = true;
      continue;
    }
    if (!hasValue) {
      if (i + 1 >= args.size()) {
        error = "option '" + arg + "' needs a value";
        return false;
      }
      value = args[++i];
    }
    if (arg == "--target")
      o.target = value;
    else if (arg == "--target-file")
      o.targetFiles.push_back(value);
    else if (arg == "--workloads")
      o.workloadsFile = value;
    else if (arg == "--measurements") {
      o.measurementsFile = value;
      o.measurementsFiles.push_back(value);
    } else if (arg == "--tuning-db")
      o.tuningDb = value;
    else if (arg == "--residual-model")
      o.residualModel = value;
    else if (arg == "--policy")
      o.policy = value;
    else if (arg == "--top" && !parseCount(value, 0, 1000000, o.top)) {
      error = "--top expects a non-negative integer, got '" + value + "'";
      return false;
    } else if (arg == "--threads" && !parseCount(value, 1, 4096, o.threads)) {
      error = "--threads expects an integer in [1, 4096], got '" + value + "'";
      return false;
    } else if (arg == "--max-candidates" &&
               !parseCount(value, 1, kMaxPreparedCandidates, o.maxCandidates)) {
      error = "--max-candidates expects an integer in [1, " +
              std::to_string(kMaxPreparedCandidates) + "], got '" + value + "'";
      return false;
    }
  }
  return true;
}

/// The built-in database plus --target-file additions.
bool loadDatabase(const Options &o, TargetDatabase &db, std::ostream &err) {
  db = TargetDatabase::withBuiltins();
  for (const std::string &file : o.targetFiles) {
    std::string error;
    if (!db.addFromFile(file, error)) {
      err << "quiltc: error: " << error << "\n";
      return false;
    }
  }
  return true;
}

const TargetDesc *findTarget(const Options &o, const TargetDatabase &db,
                             std::ostream &err) {
  if (o.target.empty()) {
    err << "quiltc: error: --target is required\n";
    return nullptr;
  }
  if (const TargetDesc *t = db.lookup(o.target))
    return t;
  err << "quiltc: error: unknown target '" << o.target << "'; known targets:";
  for (const std::string &name : db.names())
    err << " " << name;
  err << "\n";
  return nullptr;
}

/// The database (built-ins and --target-file additions) and --target in
/// it, or null after saying why.
const TargetDesc *loadTarget(const Options &o, TargetDatabase &db,
                             std::ostream &err) {
  return loadDatabase(o, db, err) ? findTarget(o, db, err) : nullptr;
}

/// `write(json)`'s document on `out`, on a line of its own.
template <typename Write> void printJson(std::ostream &out, Write write) {
  std::string text;
  JsonWriter json(text);
  write(json);
  out << text << "\n";
}

int usageError(std::ostream &err, const std::string &command,
               const std::string &error) {
  err << "quiltc " << command << ": error: " << error
      << " (see quiltc --help)\n";
  return kExitUsage;
}

} // namespace

int runTargetsCommand(const std::vector<std::string> &args, std::ostream &out,
                      std::ostream &err) {
  Options o;
  std::string error;
  if (!parseOptions(args, {"--target-file"}, false, o, error))
    return usageError(err, "targets", error);
  if (o.help) {
    out << "usage: quiltc targets [--target-file F]\n";
    return kExitOk;
  }
  TargetDatabase db;
  if (!loadDatabase(o, db, err))
    return kExitError;
  out << renderTargetTable(db);
  return kExitOk;
}

int runExplainCommand(const std::vector<std::string> &args, std::ostream &out,
                      std::ostream &err) {
  Options o;
  std::string error;
  if (!parseOptions(args,
                    {"--target", "--target-file", "--json", "--top",
                     "--max-candidates", "--policy", "--tf32", "--workloads",
                     "--tuning-db", "--residual-model", "--threads"},
                    true, o, error))
    return usageError(err, "explain", error);
  if (o.help) {
    out << "usage: quiltc explain --target T [--target-file F] [--json] "
           "[--top N] [--max-candidates N] [--policy P] [--tf32] "
           "[--threads N] [--tuning-db FILE] [--residual-model FILE] "
           "(WORKLOAD... | --workloads FILE)\n"
           "  --threads N (CPU targets) prices each product on N of the\n"
           "  target's cores, as the dispatch of `quiltc compile --threads N`\n"
           "  does (default 1, as compiling).\n"
           "  --residual-model adds the learned residual's corrected\n"
           "  prediction of every candidate (learned_us) and its pick, and\n"
           "  prunes the candidates with it as compiling with it does\n"
           "  (docs/tuning.md).\n";
    return kExitOk;
  }
  ExplainOptions options;
  options.top = o.top;
  options.threads = o.threads;
  options.candidates.maxCandidates = o.maxCandidates;
  options.candidates.allowTf32 = o.tf32;
  if (!parseSelectionPolicy(o.policy, options.policy, options.fixedIndex))
    return usageError(err, "explain",
                      "unknown policy '" + o.policy +
                          "' (expected cost-model, pad, patch or fixed=<i>)");
  TargetDatabase db;
  const TargetDesc *target = loadTarget(o, db, err);
  if (!target)
    return kExitError;
  TuningDatabase tuning;
  if (!o.tuningDb.empty()) {
    if (!TuningDatabase::load(o.tuningDb, db, tuning, error)) {
      err << "quiltc: error: " << error << "\n";
      return kExitError;
    }
    options.tuning = &tuning;
  }
  ResidualModel residual;
  if (!o.residualModel.empty()) {
    if (!residual.load(o.residualModel, error)) {
      err << "quiltc: error: " << error << "\n";
      return kExitError;
    }
    options.residual = &residual;
    options.candidates.residual = &residual;
  }

  std::vector<Workload> workloads;
  if (!o.workloadsFile.empty() &&
      !parseWorkloadFile(o.workloadsFile, workloads, error)) {
    err << "quiltc: error: " << error << "\n";
    return kExitError;
  }
  for (const std::string &text : o.workloads) {
    Workload w;
    if (!parseWorkload(text, w, error)) {
      err << "quiltc: error: workload '" << text << "': " << error << "\n";
      return kExitError;
    }
    workloads.push_back(w);
  }
  if (workloads.empty())
    return usageError(err, "explain", "no workloads given");

  std::vector<ExplainReport> reports;
  for (const Workload &w : workloads) {
    ExplainReport report;
    if (!explainWorkload(w, *target, options, report, error)) {
      err << "quiltc: error: " << w.str() << ": " << error << "\n";
      return kExitError;
    }
    reports.push_back(std::move(report));
  }
  if (o.json) {
    printJson(out, [&](JsonWriter &json) {
      if (reports.size() == 1) {
        writeExplainJson(json, reports.front(), o.top);
        return;
      }
      json.beginArray();
      for (const ExplainReport &r : reports)
        writeExplainJson(json, r, o.top);
      json.endArray();
    });
    return kExitOk;
  }
  for (size_t i = 0; i < reports.size(); ++i)
    out << (i ? "\n" : "") << renderExplainText(reports[i], o.top);
  return kExitOk;
}

int runCalibrateCommand(const std::vector<std::string> &args, std::ostream &out,
                        std::ostream &err) {
  Options o;
  std::string error;
  if (!parseOptions(args,
                    {"--target", "--target-file", "--measurements", "--json"},
                    false, o, error))
    return usageError(err, "calibrate", error);
  if (o.help) {
    out << "usage: quiltc calibrate --target T [--target-file F] "
           "--measurements FILE.csv [--json]\n";
    return kExitOk;
  }
  if (o.measurementsFile.empty())
    return usageError(err, "calibrate", "--measurements FILE.csv is required");
  TargetDatabase db;
  const TargetDesc *target = loadTarget(o, db, err);
  if (!target)
    return kExitError;
  std::vector<Measurement> measurements;
  if (!readMeasurementsCsv(o.measurementsFile, measurements, error)) {
    err << "quiltc: error: " << error << "\n";
    return kExitError;
  }
  FitResult fit;
  if (!fitCalibration(*target, measurements, fit, error)) {
    err << "quiltc: error: " << o.measurementsFile << ": " << error << "\n";
    return kExitError;
  }
  if (o.json) {
    printJson(out, [&](JsonWriter &json) { writeFitJson(json, fit, *target); });
  } else {
    out << renderFitText(fit, *target);
  }
  return kExitOk;
}

int runReplayCommand(const std::vector<std::string> &args, std::ostream &out,
                     std::ostream &err) {
  Options o;
  std::string error;
  if (!parseOptions(args,
                    {"--target", "--target-file", "--measurements", "--threads",
                     "--max-candidates", "--json"},
                    false, o, error))
    return usageError(err, "replay", error);
  if (o.help) {
    out << "usage: quiltc replay --target T [--target-file F] [--threads N] "
           "[--max-candidates N] [--json] --measurements FILE.csv "
           "[--measurements FILE.csv]...\n"
           "  For each product measured (quilt-bench --model-sample N\n"
           "  --measurements), keeps the candidates compiling for T keeps,\n"
           "  picks one as the dispatch does on N of T's cores (default 1;\n"
           "  a GPU target is priced whole),\n"
           "  and reports its measured time over the best kept candidate's\n"
           "  (regret) and the best measured one's (loss). Later files join\n"
           "  the earlier ones scaled by the candidates they share. Products\n"
           "  with a kept candidate not measured are listed, not scored.\n"
           "  Judges a change to the model on times measured once\n"
           "  (docs/cost-model.md, \"CPU tiles\").\n";
    return kExitOk;
  }
  if (o.measurementsFiles.empty())
    return usageError(err, "replay", "--measurements FILE.csv is required");
  TargetDatabase db;
  const TargetDesc *target = loadTarget(o, db, err);
  if (!target)
    return kExitError;
  std::vector<std::vector<Measurement>> runs;
  for (const std::string &file : o.measurementsFiles) {
    runs.emplace_back();
    if (!readMeasurementsCsv(file, runs.back(), error)) {
      err << "quiltc: error: " << error << "\n";
      return kExitError;
    }
  }
  ReplayOptions options;
  options.threads = o.threads;
  options.maxCandidates = o.maxCandidates;
  ReplayReport report;
  if (!replayMeasurements(runs, *target, options, report, error)) {
    err << "quiltc: error: " << error << "\n";
    return kExitError;
  }
  if (o.json) {
    printJson(out, [&](JsonWriter &json) { writeReplayJson(json, report); });
  } else {
    out << renderReplayText(report);
  }
  return kExitOk;
}

} // namespace quilt
