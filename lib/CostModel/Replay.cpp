//===- Replay.cpp - The model's picks replayed on measured times ---------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Replay.h"

#include "CostModel/Candidates.h"
#include "CostModel/CostModel.h"
#include "CostModel/TargetDatabase.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>

namespace quilt {

namespace {

/// Times of one candidate: the sum of their logs, and how many.
using LogSum = std::pair<double, int>;
double meanLog(const LogSum &s) { return s.first / s.second; }

/// One product's times, by candidate.
struct LogTimes {
  std::map<std::string, LogSum> byConfig;
  double us(const std::string &config) const {
    return std::exp(meanLog(byConfig.at(config)));
  }
};

using ProductKey =
    std::tuple<OpKind, ElemType, int64_t, int64_t, int64_t, int64_t>;

ProductKey keyOf(const Measurement &m) {
  return {m.op, m.elem, m.shape.b, m.shape.m, m.shape.n, m.shape.k};
}

std::string label(const ReplayedProduct &p) {
  Workload w;
  w.op = p.op, w.elem = p.elem, w.gemm = p.shape;
  std::string s = w.str();
  if (p.op != OpKind::Matmul && p.op != OpKind::BatchMatmul)
    s += " (GEMM b=" + std::to_string(p.shape.b) +
         " m=" + std::to_string(p.shape.m) + " n=" + std::to_string(p.shape.n) +
         " k=" + std::to_string(p.shape.k) + ")";
  return s;
}

double geomeanMinusOne(const std::vector<double> &ratios) {
  if (ratios.empty())
    return 0.0;
  double sum = 0;
  for (double r : ratios)
    sum += std::log(r);
  return std::exp(sum / double(ratios.size())) - 1.0;
}

} // namespace

bool replayMeasurements(const std::vector<std::vector<Measurement>> &runs,
                        const TargetDesc &target, const ReplayOptions &options,
                        ReplayReport &report, std::string &error) {
  report = ReplayReport();
  report.target = target.name;
  report.threads = options.threads;
  report.maxCandidates = options.maxCandidates;
  if (options.threads < 1) {
    error = "threads must be at least 1";
    return false;
  }

  // Join the runs product by product, each later run scaled onto the runs
  // before it by the candidates they share.
  std::map<ProductKey, LogTimes> products;
  for (size_t run = 0; run < runs.size(); ++run) {
    std::map<ProductKey, LogTimes> thisRun;
    for (const Measurement &m : runs[run]) {
      if (!(m.measuredUs > 0)) {
        error = "run " + std::to_string(run + 1) + ": " + m.config.str() +
                ": measured time must be positive";
        return false;
      }
      if (std::string why = checkForTarget(m.config, m.elem, target);
          !why.empty()) {
        error = "run " + std::to_string(run + 1) + ": " + m.config.str() +
                " is not a candidate for " + target.name + ": " + why;
        return false;
      }
      auto &[sum, count] = thisRun[keyOf(m)].byConfig[m.config.str()];
      sum += std::log(m.measuredUs), count += 1;
    }
    for (auto &[key, times] : thisRun) {
      LogTimes &joined = products[key];
      double shift = 0;
      int shared = 0;
      for (const auto &[config, logTime] : times.byConfig)
        if (auto it = joined.byConfig.find(config);
            it != joined.byConfig.end()) {
          shift += meanLog(it->second) - meanLog(logTime);
          ++shared;
        }
      if (shared)
        shift /= shared;
      for (const auto &[config, logTime] : times.byConfig) {
        auto &[sum, count] = joined.byConfig[config];
        sum += logTime.first + shift * logTime.second;
        count += logTime.second;
      }
    }
  }

  // What compiling keeps per (op, element type), and the table the
  // dispatch selects with.
  TargetDesc dispatchTarget = restrictToCores(target, options.threads);
  std::map<std::pair<OpKind, ElemType>, std::vector<KernelConfig>> keptFor;
  std::map<std::pair<OpKind, ElemType>, PreparedTable> tableFor;
  std::vector<double> regrets, losses, keptLosses;
  for (const auto &[key, times] : products) {
    ReplayedProduct p;
    std::tie(p.op, p.elem, p.shape.b, p.shape.m, p.shape.n, p.shape.k) = key;
    if (p.shape.b <= 0 || p.shape.m <= 0 || p.shape.n <= 0 || p.shape.k <= 0)
      continue; // Nothing to compute: every candidate is a no-op.
    std::pair<OpKind, ElemType> kind{p.op, p.elem};
    if (!keptFor.count(kind)) {
      CandidateOptions candidates;
      candidates.maxCandidates = options.maxCandidates;
      keptFor[kind] = generateCandidates(p.op, p.elem, target, candidates);
      if (keptFor[kind].empty()) {
        error = "no candidates for " + std::string(stringify(p.op)) + " " +
                std::string(stringify(p.elem)) + " on " + target.name;
        return false;
      }
      if (!prepareTable(keptFor[kind], p.elem, dispatchTarget,
                        dispatchTarget.calibration, tableFor[kind], error))
        return false;
    }
    const std::vector<KernelConfig> &kept = keptFor[kind];
    for (const KernelConfig &c : kept)
      if (!times.byConfig.count(c.str()))
        p.unmeasured.push_back(c);
    if (!p.unmeasured.empty()) {
      report.unscored.push_back(std::move(p));
      continue;
    }
    Selection selection;
    if (selectKernel(tableFor[kind], p.shape, selection) != SelectStatus::Ok) {
      error = label(p) + ": the dispatch could not select a candidate";
      return false;
    }
    // A patch (GPU) is scored by its main kernel, the one measured.
    p.picked = kept[selection.candidate];
    p.pickedUs = times.us(p.picked.str());
    p.bestKeptUs = p.bestUs = std::numeric_limits<double>::infinity();
    for (const KernelConfig &c : kept)
      if (double us = times.us(c.str()); us < p.bestKeptUs)
        p.bestKeptUs = us, p.bestKept = c;
    for (const auto &[config, logTime] : times.byConfig)
      if (double us = times.us(config); us < p.bestUs) {
        p.bestUs = us;
        std::string ignored;
        p.best = *parseKernelConfig(config, ignored);
      }
    regrets.push_back(p.pickedUs / p.bestKeptUs);
    losses.push_back(p.pickedUs / p.bestUs);
    keptLosses.push_back(p.bestKeptUs / p.bestUs);
    report.scored.push_back(std::move(p));
  }
  report.regret = geomeanMinusOne(regrets);
  report.loss = geomeanMinusOne(losses);
  report.keptLoss = geomeanMinusOne(keptLosses);
  return true;
}

std::string renderReplayText(const ReplayReport &r) {
  std::string s;
  char line[512];
  std::snprintf(line, sizeof line,
                "target %s, picked on %d core(s), %d candidates kept per "
                "kind\n",
                r.target.c_str(), r.threads, r.maxCandidates);
  s += line;
  for (const ReplayedProduct &p : r.scored) {
    std::snprintf(line, sizeof line,
                  "%-44s regret %5.1f%%  loss %5.1f%%  picked %s (%.1f us); "
                  "best kept %s (%.1f us); best %s (%.1f us)\n",
                  label(p).c_str(), 100 * (p.pickedUs / p.bestKeptUs - 1),
                  100 * (p.pickedUs / p.bestUs - 1), p.picked.str().c_str(),
                  p.pickedUs, p.bestKept.str().c_str(), p.bestKeptUs,
                  p.best.str().c_str(), p.bestUs);
    s += line;
  }
  for (const ReplayedProduct &p : r.unscored) {
    s += label(p) + ": not scored; kept but not measured:";
    for (const KernelConfig &c : p.unmeasured)
      s += " [" + c.str() + "]";
    s += "\n";
  }
  std::snprintf(line, sizeof line,
                "geomean over %zu products (%zu not scored): regret %.2f%%, "
                "loss %.2f%%, kept-set loss %.2f%%\n",
                r.scored.size(), r.unscored.size(), 100 * r.regret,
                100 * r.loss, 100 * r.keptLoss);
  s += line;
  return s;
}

void writeReplayJson(JsonWriter &json, const ReplayReport &r) {
  json.beginObject();
  json.field("target", r.target);
  json.field("threads", r.threads);
  json.field("max_candidates", r.maxCandidates);
  json.field("regret", r.regret);
  json.field("loss", r.loss);
  json.field("kept_loss", r.keptLoss);
  json.key("products");
  json.beginArray();
  for (const ReplayedProduct &p : r.scored) {
    json.beginObject();
    json.field("workload", label(p));
    json.field("picked", p.picked.str());
    json.field("picked_us", p.pickedUs);
    json.field("best_kept", p.bestKept.str());
    json.field("best_kept_us", p.bestKeptUs);
    json.field("best", p.best.str());
    json.field("best_us", p.bestUs);
    json.endObject();
  }
  json.endArray();
  json.key("not_scored");
  json.beginArray();
  for (const ReplayedProduct &p : r.unscored) {
    json.beginObject();
    json.field("workload", label(p));
    json.key("unmeasured");
    json.beginArray();
    for (const KernelConfig &c : p.unmeasured)
      json.value(c.str());
    json.endArray();
    json.endObject();
  }
  json.endArray();
  json.endObject();
}

} // namespace quilt
