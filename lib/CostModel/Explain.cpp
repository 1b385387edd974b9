//===- Explain.cpp - Rendering predictions for people and tools -----------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Explain.h"
#include "TextUtil.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace quilt {

namespace {

std::string tileName(const KernelConfig &c) {
  return std::to_string(c.tileM) + "x" + std::to_string(c.tileN);
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f%%", 100.0 * fraction);
  return buf;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, std::isfinite(v) ? v : 0.0);
  return buf;
}

/// The term that best explains why `win` beats `lose`, phrased with both
/// values: wave quantization, padding, DRAM traffic, on-chip traffic, or
/// compute, in the order a reader checks them.
std::string compare(const std::string &winName, const Prediction &win,
                    const std::string &loseName, const Prediction &lose) {
  double gain = lose.totalUs - win.totalUs;
  if (gain <= 1e-9 * std::max(lose.totalUs, 1.0))
    return winName + " ties with " + loseName +
           " (same prediction); the lower candidate index is kept";
  std::string head =
      winName + " wins over " + loseName + " by " + fixed(gain, 2) + " us: ";
  double waveGap = win[Term::WaveEfficiency] - lose[Term::WaveEfficiency];
  double padGap = lose[Term::PaddingWaste] - win[Term::PaddingWaste];
  if (waveGap > 0.1)
    return head + fixed(win[Term::Waves], 2) + " waves at " +
           percent(win[Term::WaveEfficiency]) + " efficiency vs " +
           fixed(lose[Term::Waves], 2) + " waves at " +
           percent(lose[Term::WaveEfficiency]);
  if (padGap > 0.05)
    return head + percent(win[Term::PaddingWaste]) + " padding waste vs " +
           percent(lose[Term::PaddingWaste]);
  struct Side {
    Term term;
    const char *what;
  };
  const Side sides[] = {{Term::MemoryUs, "memory"},
                        {Term::OnChipUs, "on-chip traffic"},
                        {Term::ComputeUs, "compute"},
                        {Term::PackUs, "packing"},
                        {Term::TileOverheadUs, "per-tile overhead"}};
  const Side *best = nullptr;
  double bestGap = 0.01 * std::max(gain, 0.0);
  for (const Side &s : sides) {
    double gap = lose[s.term] - win[s.term];
    if (gap > bestGap)
      best = &s, bestGap = gap;
  }
  if (!best) // Same work and traffic: what differs is how much overlaps.
    return head + "more of the shorter side hidden, overlap " +
           percent(win[Term::Overlap]) + " vs " + percent(lose[Term::Overlap]) +
           " (stages x resident blocks), occupancy " +
           percent(win[Term::Occupancy]) + " vs " +
           percent(lose[Term::Occupancy]);
  std::string detail = std::string(best->what) + " " +
                       fixed(win[best->term], 2) + " us vs " +
                       fixed(lose[best->term], 2) + " us";
  if (best->term == Term::MemoryUs) {
    auto differs = [&](Term term) {
      return std::fabs(win[term] - lose[term]) >
             0.01 * std::max(win[term], lose[term]);
    };
    auto traffic = [&](Term term, const char *what) {
      return fixed(win[term], 1) + " vs " + fixed(lose[term], 1) + " MB of " +
             what;
    };
    bool dram = differs(Term::DramMB), partials = differs(Term::PartialMB);
    if (dram || partials)
      detail += " (" +
                (dram ? traffic(Term::DramMB, "DRAM traffic") : std::string()) +
                (dram && partials ? ", " : "") +
                (partials ? traffic(Term::PartialMB, "partial sums")
                          : std::string()) +
                ")";
    else
      detail += " at equal DRAM traffic: latency-bound, more bytes in "
                "flight per compute unit (stages x tile K)";
  }
  if (best->term == Term::ComputeUs)
    detail += " (issue efficiency " + fixed(win[Term::IssueEfficiency], 2) +
              " vs " + fixed(lose[Term::IssueEfficiency], 2) + ")";
  return head + detail;
}

std::string whyLine(const ExplainReport &r) {
  const Selection &sel = r.selection;
  if (r.predictions.empty())
    return "";
  if (r.workload.gemm.b == 0 || r.workload.gemm.m == 0 ||
      r.workload.gemm.n == 0 || r.workload.gemm.k == 0)
    return "empty problem: nothing to compute, candidate " +
           std::to_string(sel.candidate) + " chosen by convention";
  if (sel.patchDim != PatchDim::None) {
    const char *dim = sel.patchDim == PatchDim::M ? "M" : "N";
    int64_t extent =
        sel.patchDim == PatchDim::M ? r.workload.gemm.m : r.workload.gemm.n;
    return "patch wins: " + tileName(r.candidates[sel.candidate]) + " on " +
           dim + "=" + std::to_string(sel.mainExtent) + " + " +
           tileName(r.candidates[sel.remainder]) + " on the remaining " +
           std::to_string(extent - sel.mainExtent) + " = " +
           fixed(sel.predictedUs, 2) + " us vs " + fixed(sel.bestSingleUs, 2) +
           " us for the best single kernel";
  }
  if (r.policy == SelectionPolicy::Fixed)
    return "fixed policy: candidate " + std::to_string(sel.candidate);
  if (sel.tunedRegion >= 0) {
    const TunedRegion &region = r.tuned[sel.tunedRegion];
    int modelPick = r.ranking[0];
    std::string line =
        "tuning database: #" + std::to_string(sel.candidate) + " " +
        r.candidates[sel.candidate].str() + " measured fastest for " +
        formatShapeRegion(region.region) + " (" + region.source + ")";
    if (modelPick == sel.candidate)
      return line + "; the model agrees";
    return line + "; the model alone would pick #" + std::to_string(modelPick) +
           " " + r.candidates[modelPick].str() + " (" +
           fixed(r.predictions[modelPick].totalUs, 2) + " us predicted vs " +
           fixed(sel.predictedUs, 2) + " us)";
  }
  if (r.policy == SelectionPolicy::Pad)
    return "pad policy: operands padded to " +
           tileName(r.candidates[sel.candidate]) + ", " +
           fixed(sel.predictedUs, 2) + " us including the copies";
  if (r.ranking.size() < 2)
    return "only one candidate";
  int winner = sel.candidate;
  int runnerUp = r.ranking[0] == winner ? r.ranking[1] : r.ranking[0];
  std::string winName = tileName(r.candidates[winner]);
  std::string loseName = tileName(r.candidates[runnerUp]);
  if (winName == loseName) {
    winName = "#" + std::to_string(winner) + " " + winName;
    loseName = "#" + std::to_string(runnerUp) + " " + loseName;
  }
  return compare(winName, r.predictions[winner], loseName,
                 r.predictions[runnerUp]);
}

std::string padLeft(const std::string &s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}
std::string padRight(const std::string &s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::vector<int> shownRows(const ExplainReport &r, int top) {
  std::vector<int> rows = r.ranking;
  if (top > 0 && rows.size() > size_t(top))
    rows.resize(top);
  // The chosen kernels, and the learned model's pick, are always shown.
  for (int chosen :
       {r.selection.candidate, r.selection.remainder, r.learnedPick})
    if (chosen >= 0 &&
        std::find(rows.begin(), rows.end(), chosen) == rows.end())
      rows.push_back(chosen);
  return rows;
}

} // namespace

bool explainWorkload(const Workload &workload, const TargetDesc &target,
                     const ExplainOptions &options, ExplainReport &report,
                     std::string &error) {
  std::vector<KernelConfig> candidates = generateCandidates(
      workload.op, workload.elem, target, options.candidates);
  if (candidates.empty()) {
    error = "target " + target.name + " has no candidate for " +
            std::string(stringify(workload.elem));
    return false;
  }
  return explainCandidates(workload, restrictToCores(target, options.threads),
                           candidates, options, report, error);
}

bool explainCandidates(const Workload &workload, const TargetDesc &target,
                       const std::vector<KernelConfig> &candidates,
                       const ExplainOptions &options, ExplainReport &report,
                       std::string &error) {
  ExplainReport r;
  r.workload = workload;
  r.target = target;
  r.policy = options.policy;
  r.candidates = candidates;
  PreparedTable table;
  table.policy = options.policy;
  table.fixedIndex = options.fixedIndex;
  r.tuned = options.tuned;
  // As compiling with the database does (ukernel-apply-tuning-db): on the
  // threads this report prices, not the database's own.
  if (options.tuning &&
      (!options.tuning->checkApplies(target, options.threads, error) ||
       !addTunedCandidates(*options.tuning, workload.op, workload.elem,
                           /*epilogue=*/"none", r.candidates, r.tuned, error)))
    return false;
  if (!prepareTable(r.candidates, workload.elem, target, target.calibration,
                    table, error) ||
      !addTunedRegions(r.tuned, table, error))
    return false;
  SelectStatus status = selectKernel(table, workload.gemm, r.selection);
  if (status == SelectStatus::BadFixedIndex) {
    error = "fixed=" + std::to_string(options.fixedIndex) +
            " is out of range: there are " +
            std::to_string(r.candidates.size()) + " candidates";
    return false;
  }
  if (status != SelectStatus::Ok) {
    error = checkGemmShape(workload.gemm);
    return false;
  }
  for (int i = 0; i < table.count; ++i) {
    Prediction p;
    p.totalUs = evaluateCandidate(table, i, workload.gemm, &p.terms);
    r.predictions.push_back(p);
    r.ranking.push_back(i);
  }
  std::stable_sort(r.ranking.begin(), r.ranking.end(), [&](int a, int b) {
    return r.predictions[a].totalUs < r.predictions[b].totalUs;
  });
  if (options.residual) {
    r.residualSource = options.residual->source();
    for (int i = 0; i < table.count; ++i) {
      r.residualFeatures.push_back(
          residualFeatures(workload.gemm, workload.elem, r.candidates[i],
                           target, r.predictions[i]));
      r.learnedUs.push_back(options.residual->correct(
          r.predictions[i].totalUs, r.residualFeatures.back(), target.name));
      if (r.learnedPick < 0 || r.learnedUs[i] < r.learnedUs[r.learnedPick])
        r.learnedPick = i;
    }
  }
  bool stagesInRuns =
      std::any_of(r.candidates.begin(), r.candidates.end(),
                  [](const KernelConfig &c) { return c.vectorWidth > 1; });
  r.copies =
      unalignedOperandCopies(table, workload.op, workload.gemm, stagesInRuns);
  r.why = whyLine(r);
  report = std::move(r);
  return true;
}

std::string renderExplainText(const ExplainReport &r, int top) {
  std::string out;
  const GemmShape &g = r.workload.gemm;
  out += "workload: " + r.workload.str() + "  (GEMM b=" + std::to_string(g.b) +
         " m=" + std::to_string(g.m) + " n=" + std::to_string(g.n) +
         " k=" + std::to_string(g.k) + ")\n";
  out += "target:   " + r.target.name + " (" + r.target.description + ", " +
         r.target.chip + ")";
  // A CPU product is priced on the cores its kernels run on.
  if (!r.target.isGpu())
    out += ", priced on " + std::to_string(r.target.computeUnits) + " core" +
           (r.target.computeUnits == 1 ? "" : "s");
  out += "\n";
  out += "policy:   " + std::string(stringify(r.policy)) + ", " +
         std::to_string(r.candidates.size()) + " candidates";
  if (!r.tuned.empty())
    out += ", " + std::to_string(r.tuned.size()) + " tuned region" +
           (r.tuned.size() == 1 ? "" : "s");
  out += "\n\n";

  size_t configWidth = 6;
  for (const KernelConfig &c : r.candidates)
    configWidth = std::max(configWidth, c.str().size());
  bool learned = !r.learnedUs.empty();
  std::string header = "  rank  idx  " + padRight("config", configWidth) +
                       "  " + padLeft("total_us", 10) +
                       (learned ? "  " + padLeft("learned_us", 10) : "");
  for (int t = 0; t < kNumTerms - 1; ++t) {
    std::string name = termName(t);
    header += "  " + padLeft(name, std::max<size_t>(name.size(), 8));
  }
  out += header + "\n";
  std::vector<int> rows = shownRows(r, top);
  for (size_t rank = 0; rank < rows.size(); ++rank) {
    int i = rows[rank];
    const Selection &sel = r.selection;
    const char *mark = i == sel.candidate   ? "*"
                       : i == sel.remainder ? "+"
                                            : " ";
    int shownRank = int(std::find(r.ranking.begin(), r.ranking.end(), i) -
                        r.ranking.begin()) +
                    1;
    std::string row = " " + std::string(mark) +
                      padLeft(std::to_string(shownRank), 4) + "  " +
                      padLeft(std::to_string(i), 3) + "  " +
                      padRight(r.candidates[i].str(), configWidth) + "  " +
                      padLeft(fixed(r.predictions[i].totalUs, 2), 10);
    if (learned)
      row += "  " + padLeft(fixed(r.learnedUs[i], 2), 10);
    for (int t = 0; t < kNumTerms - 1; ++t) {
      std::string name = termName(t);
      row += "  " + padLeft(formatNumber(r.predictions[i].terms[t], 3),
                            std::max<size_t>(name.size(), 8));
    }
    out += row + "\n";
  }
  out += "\n";
  const Selection &sel = r.selection;
  if (sel.patchDim != PatchDim::None)
    out += "chosen: patch along " +
           std::string(sel.patchDim == PatchDim::M ? "M" : "N") + ": main #" +
           std::to_string(sel.candidate) + " (*) on " +
           std::to_string(sel.mainExtent) + ", remainder #" +
           std::to_string(sel.remainder) + " (+), " +
           fixed(sel.predictedUs, 2) + " us\n";
  else
    out += "chosen: #" + std::to_string(sel.candidate) + " " +
           r.candidates[sel.candidate].str() + (sel.padded ? " (padded)" : "") +
           (sel.tunedRegion >= 0
                ? " (tuned: " + r.tuned[sel.tunedRegion].source + ")"
                : std::string()) +
           ", " + fixed(sel.predictedUs, 2) + " us\n";
  out += "why:    " + r.why + "\n";
  if (r.copies.us > 0) {
    const char *which = r.copies.copiesA && r.copies.copiesB ? "A and B"
                        : r.copies.copiesA                   ? "A"
                                                             : "B";
    out += "copies: " + std::string(which) +
           " rows are not multiples of 16 bytes: copied to aligned rows "
           "first, " +
           fixed(r.copies.bytes * 1e-6, 2) + " MB moved, " +
           fixed(r.copies.us, 2) + " us (" +
           fixed(sel.predictedUs + r.copies.us, 2) + " us in all)\n";
  }
  if (learned) {
    int pick = r.learnedPick;
    out += "learned: #" + std::to_string(pick) + " " +
           r.candidates[pick].str() + ", " + fixed(r.learnedUs[pick], 2) +
           " us corrected (residual model " + r.residualSource + ")";
    out += pick == sel.candidate
               ? ": agrees with the selection\n"
               : "; the selection, which compiled code runs, stays the "
                 "analytic model's\n";
  }
  return out;
}

void writeConfigJson(JsonWriter &json, const KernelConfig &c) {
  json.beginObject();
  json.field("tile_m", c.tileM);
  json.field("tile_n", c.tileN);
  json.field("tile_k", c.tileK);
  json.field("threads", c.threads);
  json.field("warps_m", c.warpsM);
  json.field("warps_n", c.warpsN);
  json.field("thread_tile_m", c.threadTileM);
  json.field("thread_tile_n", c.threadTileN);
  json.field("vector_width", c.vectorWidth);
  json.field("stages", c.stages);
  json.field("split_k", c.splitK);
  json.field("stream_k", c.streamK);
  json.field("inst", stringify(c.inst));
  json.field("boundary", stringify(c.boundary));
  json.field("str", c.str());
  json.endObject();
}

void writeExplainJson(JsonWriter &json, const ExplainReport &r, int top) {
  const Selection &sel = r.selection;
  json.beginObject();
  json.key("workload");
  json.beginObject();
  json.field("text", r.workload.str());
  json.field("op", stringify(r.workload.op));
  json.field("dtype", stringify(r.workload.elem));
  json.field("b", r.workload.gemm.b);
  json.field("m", r.workload.gemm.m);
  json.field("n", r.workload.gemm.n);
  json.field("k", r.workload.gemm.k);
  json.endObject();
  json.field("target", r.target.name);
  if (!r.target.isGpu())
    json.field("cores", r.target.computeUnits);
  json.field("policy", stringify(r.policy));

  json.key("chosen");
  json.beginObject();
  if (sel.patchDim != PatchDim::None) {
    json.key("patch");
    json.beginObject();
    json.field("dim", sel.patchDim == PatchDim::M ? "M" : "N");
    json.key("main");
    json.beginObject();
    json.field("index", sel.candidate);
    json.field("extent", sel.mainExtent);
    json.key("config");
    writeConfigJson(json, r.candidates[sel.candidate]);
    json.endObject();
    json.key("remainder");
    json.beginObject();
    json.field("index", sel.remainder);
    int64_t extent =
        sel.patchDim == PatchDim::M ? r.workload.gemm.m : r.workload.gemm.n;
    json.field("extent", extent - sel.mainExtent);
    json.key("config");
    writeConfigJson(json, r.candidates[sel.remainder]);
    json.endObject();
    json.endObject();
  } else {
    json.field("index", sel.candidate);
    json.field("padded", sel.padded);
    if (sel.tunedRegion >= 0) {
      const TunedRegion &region = r.tuned[sel.tunedRegion];
      json.key("tuned");
      json.beginObject();
      json.field("source", region.source);
      json.field("region", formatShapeRegion(region.region));
      json.endObject();
    }
    json.key("config");
    writeConfigJson(json, r.candidates[sel.candidate]);
  }
  json.field("predicted_us", sel.predictedUs);
  json.field("best_single_us", sel.bestSingleUs);
  json.endObject();
  json.key("operand_copies");
  json.beginObject();
  json.field("a", r.copies.copiesA);
  json.field("b", r.copies.copiesB);
  json.field("mb", r.copies.bytes * 1e-6);
  json.field("us", r.copies.us);
  json.endObject();
  json.field("why", r.why);
  if (r.learnedPick >= 0) {
    json.key("learned");
    json.beginObject();
    json.field("index", r.learnedPick);
    json.field("config", r.candidates[r.learnedPick].str());
    json.field("learned_us", r.learnedUs[r.learnedPick]);
    json.field("source", r.residualSource);
    json.endObject();
  }

  json.key("candidates");
  json.beginArray();
  for (int i : shownRows(r, top)) {
    json.beginObject();
    json.field("index", i);
    json.key("config");
    writeConfigJson(json, r.candidates[i]);
    json.field("predicted_us", r.predictions[i].totalUs);
    if (!r.learnedUs.empty()) {
      json.field("learned_us", r.learnedUs[i]);
      json.key("residual_features");
      json.beginObject();
      for (int f = 0; f < kNumResidualFeatures; ++f)
        json.field(residualFeatureName(f), r.residualFeatures[i][f]);
      json.endObject();
    }
    // The per-candidate resources behind the occupancy term, so that the
    // register estimate can be checked against ptxas (check_ptxas.py).
    ResourceUsage usage =
        estimateResources(r.candidates[i], r.workload.elem, r.target);
    json.key("resources");
    json.beginObject();
    json.field("registers_per_thread", usage.registersPerThread);
    json.field("shared_mem_bytes", usage.sharedMemBytes);
    json.field("blocks_per_cu", usage.blocksPerCU);
    json.endObject();
    json.key("terms");
    json.beginObject();
    for (int t = 0; t < kNumTerms; ++t)
      json.field(termName(t), r.predictions[i].terms[t]);
    json.endObject();
    json.endObject();
  }
  json.endArray();
  json.endObject();
}

std::string renderTargetTable(const TargetDatabase &db) {
  std::string out = padRight("name", 12) + "  " + padRight("vendor", 6) + "  " +
                    padRight("chip", 10) + "  " + padLeft("CUs", 4) + "  " +
                    padLeft("peak TFLOP/s", 20) + "  " + padLeft("GB/s", 7) +
                    "  description\n";
  for (const TargetDesc &t : db.targets()) {
    int best = 0;
    for (int i = 1; i < kNumInstKinds; ++i)
      if (t.peakTflops[i] > t.peakTflops[best])
        best = i;
    std::string peak = formatNumber(t.peakTflops[best], 4) + " " +
                       std::string(stringify(static_cast<InstKind>(best)));
    out += padRight(t.name, 12) + "  " +
           padRight(std::string(stringify(t.vendor)), 6) + "  " +
           padRight(t.chip, 10) + "  " +
           padLeft(std::to_string(t.computeUnits), 4) + "  " +
           padLeft(peak, 20) + "  " +
           padLeft(formatNumber(t.memBandwidthGBs, 4), 7) + "  " +
           t.description + "\n";
  }
  return out;
}

} // namespace quilt
