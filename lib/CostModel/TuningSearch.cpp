//===- TuningSearch.cpp - Coordinate descent over kernel configurations ---===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/TuningSearch.h"

#include <algorithm>
#include <map>

namespace quilt {

namespace {

/// The values next to `value` on a ladder: the largest below it and the
/// smallest above it, where there are such.
std::vector<int64_t> adjacent(const std::vector<int64_t> &ladder,
                              int64_t value) {
  std::vector<int64_t> result;
  auto above = std::upper_bound(ladder.begin(), ladder.end(), value);
  auto below = std::lower_bound(ladder.begin(), ladder.end(), value);
  if (below != ladder.begin())
    result.push_back(*(below - 1));
  if (above != ladder.end())
    result.push_back(*above);
  return result;
}

/// Makes the sizes that follow from a moved knob consistent again, as the
/// candidate generator builds them (Candidates.cpp, enumerateCpu): the
/// kc x nr micro-panel of B (packed f32) within half the L1, the mc x kc
/// block of A within L2 (fewer register blocks per cache block).
KernelConfig repairCpu(KernelConfig cfg, const TargetDesc &t) {
  if (t.l1Bytes > 0 && cfg.tileK * cfg.threadTileN * 4 > t.l1Bytes / 2)
    cfg.tileK =
        std::max<int64_t>(16, t.l1Bytes / 2 / (cfg.threadTileN * 4) / 16 * 16);
  if (t.l2Bytes > 0 && cfg.tileM * cfg.tileK * 4 > t.l2Bytes)
    cfg.tileM =
        std::max(cfg.threadTileM, t.l2Bytes / (cfg.tileK * 4) /
                                      cfg.threadTileM * cfg.threadTileM);
  return cfg;
}

using Move = std::function<std::vector<KernelConfig>(const KernelConfig &)>;

/// A knob whose moves are repaired and kept when valid and new.
TuningKnob cpuKnob(std::string name, const TargetDesc &target, ElemType elem,
                   Move move) {
  return {std::move(name), [=](const KernelConfig &from) {
            std::vector<KernelConfig> result;
            for (const KernelConfig &moved : move(from)) {
              KernelConfig cfg = repairCpu(moved, target);
              if (cfg == from ||
                  std::find(result.begin(), result.end(), cfg) !=
                      result.end() ||
                  !checkForTarget(cfg, elem, target).empty())
                continue;
              result.push_back(cfg);
            }
            return result;
          }};
}

std::vector<TuningKnob> cpuKnobs(const TargetDesc &target, ElemType elem) {
  int64_t lanes = target.cpuLanes(elem);
  const std::vector<int64_t> rowLadder = {1,  2,  3,  4,  5,  6,  7,  8, 9,
                                          10, 11, 12, 14, 16, 20, 24, 28};
  const std::vector<int64_t> depthLadder = {16,  32,  48,  64,  96,  128, 192,
                                            256, 320, 384, 512, 768, 1024};
  auto each = [](const std::vector<int64_t> &values, auto set) {
    return [values, set](const KernelConfig &from) {
      std::vector<KernelConfig> out;
      for (int64_t v : values) {
        KernelConfig cfg = from;
        set(cfg, v);
        out.push_back(cfg);
      }
      return out;
    };
  };
  // The cache blocks move in units of register blocks, and keep their count
  // of register blocks when the register block moves: every move changes
  // one thing.
  std::vector<TuningKnob> knobs;
  knobs.push_back(
      cpuKnob("register block M", target, elem, [=](const KernelConfig &from) {
        return each(adjacent(rowLadder, from.threadTileM),
                    [blocks = from.tileM / from.threadTileM](KernelConfig &c,
                                                             int64_t v) {
                      c.threadTileM = v;
                      c.tileM = v * blocks;
                    })(from);
      }));
  knobs.push_back(
      cpuKnob("register block N", target, elem, [=](const KernelConfig &from) {
        return each({from.threadTileN - lanes, from.threadTileN + lanes},
                    [blocks = from.tileN / from.threadTileN](KernelConfig &c,
                                                             int64_t v) {
                      c.threadTileN = std::max<int64_t>(v, 1);
                      c.tileN = c.threadTileN * blocks;
                    })(from);
      }));
  knobs.push_back(
      cpuKnob("tile K", target, elem, [=](const KernelConfig &from) {
        return each(adjacent(depthLadder, from.tileK),
                    [](KernelConfig &c, int64_t v) { c.tileK = v; })(from);
      }));
  knobs.push_back(
      cpuKnob("tile M", target, elem, [=](const KernelConfig &from) {
        int64_t blocks = from.tileM / from.threadTileM;
        return each({blocks / 2, blocks * 2}, [](KernelConfig &c, int64_t v) {
          c.tileM = c.threadTileM * std::max<int64_t>(v, 1);
        })(from);
      }));
  knobs.push_back(
      cpuKnob("tile N", target, elem, [=](const KernelConfig &from) {
        int64_t blocks = from.tileN / from.threadTileN;
        return each({blocks / 2, blocks * 2}, [](KernelConfig &c, int64_t v) {
          c.tileN = c.threadTileN * std::max<int64_t>(v, 1);
        })(from);
      }));
  return knobs;
}

} // namespace

std::vector<TuningKnob> tuningKnobs(const TargetDesc &target, ElemType elem) {
  if (target.isGpu())
    return {};
  return cpuKnobs(target, elem);
}

TuningSearchResult
coordinateDescent(const std::vector<KernelConfig> &starts,
                  const std::vector<TuningKnob> &knobs,
                  const MeasureBatch &measure,
                  const TuningSearchOptions &options,
                  const std::function<void(const TuningStep &)> &progress) {
  TuningSearchResult result;
  // Every configuration measured once: a neighbour seen before (from an
  // earlier position) is not measured again.
  std::map<std::string, std::optional<double>> seen;
  bool budgetEnded = false;

  // Measures the configurations not seen yet (as many as the budget
  // allows) and returns the fastest of them, or -1.
  auto measureNew = [&](const std::string &knob,
                        const std::vector<KernelConfig> &configs) -> int {
    std::vector<KernelConfig> fresh;
    for (const KernelConfig &c : configs)
      if (!seen.count(c.str()) &&
          std::find(fresh.begin(), fresh.end(), c) == fresh.end())
        fresh.push_back(c);
    if (fresh.empty())
      return -1;
    int left = options.maxMeasurements - int(seen.size());
    if (left <= 0 || (options.outOfTime && options.outOfTime())) {
      budgetEnded = true;
      return -1;
    }
    if (int(fresh.size()) > left) {
      fresh.resize(left);
      budgetEnded = true;
    }
    std::vector<std::optional<double>> times = measure(fresh);
    int first = int(result.steps.size()), best = -1;
    for (size_t i = 0; i < fresh.size(); ++i) {
      std::optional<double> us = i < times.size() ? times[i] : std::nullopt;
      seen[fresh[i].str()] = us;
      result.steps.push_back(TuningStep{knob, fresh[i], us, false});
      if (us && (best < 0 || *us < *result.steps[best].us))
        best = first + int(i);
    }
    return best;
  };

  auto take = [&](int step) {
    result.steps[step].taken = true;
    result.best = result.steps[step].config;
    result.bestUs = *result.steps[step].us;
    result.found = true;
  };

  size_t reported = 0;
  auto report = [&] {
    if (progress)
      for (; reported < result.steps.size(); ++reported)
        progress(result.steps[reported]);
  };

  int first = measureNew("start", starts);
  if (first >= 0)
    take(first);
  report();
  if (!result.found)
    return result;

  // Announces the neighbours of the current configuration once per
  // position.
  std::string prepared;
  auto prepareRound = [&] {
    if (!options.prepare || prepared == result.best.str())
      return;
    prepared = result.best.str();
    std::vector<KernelConfig> next;
    for (const TuningKnob &knob : knobs)
      for (const KernelConfig &c : knob.neighbours(result.best))
        if (!seen.count(c.str()) &&
            std::find(next.begin(), next.end(), c) == next.end())
          next.push_back(c);
    if (!next.empty())
      options.prepare(next);
  };

  bool moved = true;
  while (moved && !budgetEnded) {
    moved = false;
    for (const TuningKnob &knob : knobs) {
      prepareRound();
      int step = measureNew(knob.name, knob.neighbours(result.best));
      if (step >= 0 &&
          *result.steps[step].us < result.bestUs * (1.0 - options.minGain)) {
        take(step);
        moved = true;
      }
      report();
      if (budgetEnded)
        break;
    }
  }
  result.localOptimum = !moved && !budgetEnded;
  return result;
}

} // namespace quilt
