//===- CostModel.cpp - Preparing candidates and evaluating the model ------===//
//
// Part of the Quilt project. `prepareTable` folds everything that does not
// depend on the shape into per-candidate constants (one array per constant,
// see PreparedCandidates); `evaluateLane` in Evaluate.h is then a straight
// line of whole-number tile arithmetic and a few dozen flops. The same
// function serves the fast selection path, a pack of candidates at a time,
// and the explained breakdown, so the two can never disagree.
//
//===----------------------------------------------------------------------===//

#include "CostModel/CostModel.h"
#include "Evaluate.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace quilt {

namespace {

constexpr const char *kTermNames[kNumTerms] = {"tiles",
                                               "waves",
                                               "wave_efficiency",
                                               "padding_waste",
                                               "occupancy",
                                               "active_cu_fraction",
                                               "issue_efficiency",
                                               "compute_us",
                                               "onchip_us",
                                               "pack_us",
                                               "dram_mb",
                                               "partial_mb",
                                               "memory_us",
                                               "overlap",
                                               "tile_overhead_us",
                                               "launch_us",
                                               "total_us"};

/// Fraction of L2 (GPU) / L3 (CPU) an operand may occupy and still be
/// counted as re-read from cache rather than DRAM: the rest holds the other
/// operand, the output and other traffic.
constexpr double kCacheShareForReuse = 0.5;
/// Load-to-use latency of DRAM and of an L2 hit on current GPUs (about
/// 600 and 200 ns in published microbenchmarks, e.g. Jia et al.,
/// "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking",
/// and Luo et al. for Hopper). ESTIMATES; calibration absorbs the rest.
constexpr double kDramLatencyUs = 0.6;
constexpr double kCacheLatencyUs = 0.2;
/// Cycles to issue one operand-fragment load (ldmatrix.x4, ds_read_b128)
/// next to the matrix instructions it feeds.
constexpr double kFragmentLoadCycles = 4.0;
/// Cycles from one FMA into an accumulator to the next that the register
/// block's loop sustains. An FMA's own latency is 4 cycles (Ice Lake, Zen 3
/// to 5, Neoverse N1), but on one Zen 5 core blocks of exactly latency x FMA
/// units accumulators (2x64, 4x32, 8x16 on two 512-bit units) ran at a
/// median 1.28x the best candidate on attention products, blocks of 12 or
/// more at 1.05x: with the loads between them, the FMAs need slack.
/// MEASURED: replayed on every candidate either model keeps on 43 products
/// (docs/cost-model.md, "FMA slack"), 4 cycles lost 12.8% to the best
/// measured, 5 cycles 6.7%, 6 cycles 6.0%.
constexpr double kCpuFmaLatency = 6.0;
/// CPU load ports: one A broadcast or B vector each per cycle.
constexpr double kCpuLoadPorts = 2.0;
/// An A block read in place (cpuReadsAInPlace) is read again for every
/// register-block column. Measured on Zen 4 with every candidate, blocks of
/// up to twice L1 ran as if they stayed in L1 and larger ones lost up to
/// 10-20%, as if each row a register block starts stalled; the model ramps
/// the stall in from two to four times L1. MEASURED on one machine
/// (docs/cost-model.md, "CPU tiles", has what else was tried).
constexpr double kCpuInPlaceAReachL1s = 2.0;
/// That stall, in cycles at the calibrated compute rate: about an L3 hit.
/// The picks were the same from 32 to 64 cycles on the products measured.
constexpr double kCpuRowStartStallCycles = 40.0;

/// Warps per scheduler that keep the instruction's pipeline busy: SIMT FMA
/// chains need a second warp to cover shared-memory latency; matrix
/// instructions have enough independent work inside one warp tile.
double warpsNeededPerScheduler(InstKind inst) {
  return inst == InstKind::SimtFma ? 2.0 : 1.0;
}

/// Fraction of issue slots the inner loop spends on math rather than on
/// feeding it, for a GPU configuration.
double gpuIssueEfficiency(const KernelConfig &cfg, const TargetDesc &t) {
  if (cfg.inst == InstKind::SimtFma) {
    // Per k step a thread does ttM x ttN FMAs and loads its A column and B
    // row from shared memory in 16-byte vectors (4 f32 after widening),
    // plus about two instructions of address and loop overhead.
    double fmas = double(cfg.threadTileM * cfg.threadTileN);
    double loads = double(cfg.threadTileM + cfg.threadTileN) / 4.0;
    return fmas / (fmas + loads + 2.0);
  }
  if (cfg.inst == InstKind::Wgmma)
    return 1.0; // Asynchronous, operands read from shared memory directly.
  InstShape s = instShape(cfg.inst);
  double fragsM = double(cfg.warpTileM()) / double(s.m);
  double fragsN = double(cfg.warpTileN()) / double(s.n);
  double flopsPerCyclePerScheduler =
      t.peak(cfg.inst) * 1e12 /
      (double(t.computeUnits) * double(t.subPartitions) * t.clockGHz * 1e9);
  double instCycles =
      2.0 * double(s.m * s.n * s.k) / std::max(flopsPerCyclePerScheduler, 1.0);
  double math = fragsM * fragsN * instCycles;
  // A 16-bit mma.sync B fragment is two 8x8 matrices: one ldmatrix.x4
  // feeds two adjacent instruction tiles (MatrixEngines.cpp).
  double loadsN =
      cfg.inst == InstKind::MmaSyncF16 ? std::ceil(fragsN / 2.0) : fragsN;
  return math / (math + (fragsM + loadsN) * kFragmentLoadCycles);
}

/// Cycles per k step of a CPU register block of `rows` x `vectors` vectors:
/// the longest of its FMAs on the FMA units, the latency of one FMA (each
/// accumulator waits for its previous FMA) and its loads (a broadcast per
/// row and each B vector) on the load ports.
double cpuBlockCycles(double rows, double vectors, double fmaUnits) {
  return std::max({rows * vectors / fmaUnits, kCpuFmaLatency,
                   (rows + vectors) / kCpuLoadPorts});
}

double cpuFmaUnits(const TargetDesc &t) {
  return double(std::max<int64_t>(t.fmaUnitsPerCore, 1));
}

double cpuLanesOf(const KernelConfig &cfg, ElemType elem, const TargetDesc &t) {
  return double(cfg.vectorWidth > 0 ? cfg.vectorWidth : t.cpuLanes(elem));
}

/// Same for a CPU register block: the fraction of its cycles that issue
/// FMAs.
double cpuIssueEfficiency(const KernelConfig &cfg, ElemType elem,
                          const TargetDesc &t) {
  double units = cpuFmaUnits(t);
  double rows = double(cfg.threadTileM);
  double vectors = double(cfg.threadTileN) / cpuLanesOf(cfg, elem, t);
  return rows * vectors / units / cpuBlockCycles(rows, vectors, units);
}

/// The edge-block lanes of a CPU candidate (PreparedCandidates::vectorCols
/// and edge*): cpuBlockCycles's three terms for a block of the same rows,
/// linear in its vectors, scaled to columns of a whole block's time.
void prepareCpuEdgeBlock(const KernelConfig &cfg, ElemType elem,
                         const TargetDesc &t, PreparedCandidates &c, int i) {
  double units = cpuFmaUnits(t);
  double lanes = cpuLanesOf(cfg, elem, t);
  double rows = double(cfg.threadTileM), cols = double(cfg.threadTileN);
  double colsPerCycle = cols / cpuBlockCycles(rows, cols / lanes, units);
  c.vectorCols[i] = lanes, c.invVectorCols[i] = 1.0 / lanes;
  c.edgeFmaCols[i] = rows / units * colsPerCycle;
  c.edgeLatencyCols[i] = kCpuFmaLatency * colsPerCycle;
  c.edgeLoadCols[i] = rows / kCpuLoadPorts * colsPerCycle;
  c.edgeLoadColsPerVector[i] = colsPerCycle / kCpuLoadPorts;
}

/// The tiles a full wave of `waveTiles` covers on a grid with room in both
/// directions (no clamp to the tile counts): what the prepared table prices
/// reads by and what the GPU kernels walk (waveFootprintRows).
struct WaveFootprint {
  double columns, rows;
};
WaveFootprint fullWaveFootprint(double waveTiles, double aspect) {
  constexpr double kUnbounded = std::numeric_limits<double>::infinity();
  double columns = detail::waveColumns(waveTiles, aspect, kUnbounded);
  return {columns,
          detail::waveRows(waveTiles, columns, 1.0 / columns, kUnbounded)};
}

/// Shape-independent constants of candidate `i`, into lane `i` of
/// `t.candidates`. `t` must already hold the target constants
/// (setTargetConstants).
void prepareCandidate(const KernelConfig &cfg, ElemType elem,
                      const TargetDesc &target, PreparedTable &t, int i) {
  PreparedCandidates &c = t.candidates;
  ResourceUsage usage = estimateResources(cfg, elem, target);
  bool cpu = !target.isGpu();
  double tileM = double(std::max<int64_t>(cfg.tileM, 1));
  double tileN = double(std::max<int64_t>(cfg.tileN, 1));
  double tileK = double(std::max<int64_t>(cfg.tileK, 1));
  double stages = double(std::max<int64_t>(cfg.stages, 1));
  double eb = t.elemBytes;
  c.tileM[i] = tileM, c.tileN[i] = tileN, c.tileK[i] = tileK;
  c.splitK[i] = double(std::max<int64_t>(cfg.splitK, 1));
  c.invTileM[i] = 1.0 / tileM, c.invTileN[i] = 1.0 / tileN;
  c.invTileK[i] = 1.0 / tileK, c.invSplitK[i] = 1.0 / c.splitK[i];
  c.streamK[i] = cpu ? 0.0 : double(std::max<int64_t>(cfg.streamK, 0));
  c.granM[i] = cpu ? double(std::max<int64_t>(cfg.threadTileM, 1)) : tileM;
  c.granN[i] = cpu ? double(std::max<int64_t>(cfg.threadTileN, 1)) : tileN;
  c.invGranM[i] = 1.0 / c.granM[i], c.invGranN[i] = 1.0 / c.granN[i];
  c.issueEfficiency[i] = cpu ? cpuIssueEfficiency(cfg, elem, target)
                             : gpuIssueEfficiency(cfg, target);
  double peakFlopsPerUsPerCU =
      target.peak(cfg.inst, elem) * 1e6 / t.computeUnits;
  c.usPerFlop[i] =
      1.0 / std::max(peakFlopsPerUsPerCU * c.issueEfficiency[i], 1e-9);
  c.blocksPerCU[i] = double(std::max<int64_t>(usage.blocksPerCU, 1));
  c.invBlocksPerCU[i] = 1.0 / c.blocksPerCU[i];
  c.waveTiles[i] = t.computeUnits * c.blocksPerCU[i];
  c.occupancy[i] = usage.occupancy;
  c.stages[i] = stages;
  c.invStages[i] = 1.0 / stages;
  c.footprintAspect[i] = tileM / tileN;
  WaveFootprint full = fullWaveFootprint(c.waveTiles[i], c.footprintAspect[i]);
  c.fullWaveN[i] = full.columns;
  c.invFullWaveN[i] = 1.0 / c.fullWaveN[i];
  c.fullWaveM[i] = full.rows;
  c.invFullWaveM[i] = 1.0 / c.fullWaveM[i];
  c.invInFlightBytes[i] = 1.0 / (stages * (tileM + tileN) * tileK * eb);
  c.packsA[i] = cpu && cpuReadsAInPlace(cfg, elem) ? 0.0 : 1.0;
  if (cpu) {
    prepareCpuEdgeBlock(cfg, elem, target, c, i);
    c.invLatencyWarps[i] = 0;
    c.onChipUsPerKA[i] = c.onChipUsPerKB[i] = 0; // CPUs use their own formula
    return;
  }
  double warps = double(std::max<int64_t>(
      cfg.threads / std::max<int64_t>(target.warpSize, 1), 1));
  c.invLatencyWarps[i] = double(std::max<int64_t>(target.subPartitions, 1)) *
                         warpsNeededPerScheduler(cfg.inst) / warps;
  // Every warp column reads the A rows of its warp tile and every warp row
  // the B columns of its warp tile (mma.sync, MFMA, WMMA, SIMT). A wgmma
  // reads A once per warpgroup column and B once per 64-row instruction
  // block. Plus one store of each element into shared memory.
  double readersOfA = double(std::max<int64_t>(cfg.warpsN, 1));
  double readersOfB = cfg.inst == InstKind::Wgmma
                          ? double(std::max<int64_t>(cfg.tileM / 64, 1))
                          : double(std::max<int64_t>(cfg.warpsM, 1));
  c.onChipUsPerKA[i] = (readersOfA + 1.0) * eb * t.usPerOnChipByte;
  c.onChipUsPerKB[i] = (readersOfB + 1.0) * eb * t.usPerOnChipByte;
}

/// Groups candidates by their tile along one dimension (largest first) so a
/// patch search tries each distinct main tile once.
void buildGroups(const PreparedTable &table, bool alongM, int32_t &numGroups,
                 std::array<int64_t, kMaxPatchGroups> &tiles,
                 std::array<uint64_t, kMaxPatchGroups> &masks) {
  const PreparedCandidates::Lanes &tileOf =
      alongM ? table.candidates.tileM : table.candidates.tileN;
  std::vector<int64_t> distinct;
  for (int i = 0; i < table.count; ++i)
    distinct.push_back(int64_t(tileOf[i]));
  std::sort(distinct.begin(), distinct.end(), std::greater<int64_t>());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  // Small tiles make poor main kernels: keep the largest few.
  if (distinct.size() > size_t(kMaxPatchGroups))
    distinct.resize(kMaxPatchGroups);
  numGroups = int32_t(distinct.size());
  for (size_t g = 0; g < distinct.size(); ++g) {
    tiles[g] = distinct[g];
    masks[g] = 0;
    for (int i = 0; i < table.count; ++i)
      if (int64_t(tileOf[i]) == distinct[g])
        masks[g] |= uint64_t(1) << i;
  }
}

/// Target and calibration constants shared by every candidate of a table.
/// Figures that would divide by zero are clamped so that even an incomplete
/// target yields finite predictions.
void setTargetConstants(PreparedTable &t, const TargetDesc &target,
                        ElemType elem, const Calibration &calibration) {
  t.cpu = !target.isGpu();
  t.computeUnits = double(std::max<int64_t>(target.computeUnits, 1));
  t.invComputeUnits = 1.0 / t.computeUnits;
  // GB/s = 1e3 bytes/us; GHz = 1e3 cycles/us.
  t.usPerOnChipByte =
      1.0 / std::max(target.onChipBytesPerClock * target.clockGHz * 1e3, 1e-9);
  t.dramBytesPerUs = std::max(target.memBandwidthGBs * 1e3, 1e-9);
  t.usPerDramByte = 1.0 / t.dramBytesPerUs;
  t.usPerL2Byte =
      target.l2BytesPerClock > 0
          ? std::min(1.0 / (target.l2BytesPerClock * target.clockGHz * 1e3),
                     t.usPerDramByte)
          : t.usPerDramByte;
  double cache =
      t.cpu ? double(target.l3Bytes > 0 ? target.l3Bytes
                                        : target.l2Bytes * target.computeUnits)
            : double(target.l2Bytes);
  t.sharedCacheBytes = cache * kCacheShareForReuse;
  t.elemBytes = double(elemBytes(elem));
  t.dramLatencyUs = kDramLatencyUs;
  t.cacheLatencyUs = kCacheLatencyUs;
  t.invComputeEfficiency = 1.0 / std::max(calibration.computeEfficiency, 1e-9);
  t.invMemoryEfficiency = 1.0 / std::max(calibration.memoryEfficiency, 1e-9);
  t.launchUs = std::max(calibration.launchOverheadUs, 0.0);
  t.tileOverheadUs = std::max(calibration.tileOverheadUs, 0.0);
  if (t.cpu && target.l1Bytes > 0) {
    t.invInPlaceAReachBytes =
        1.0 / (kCpuInPlaceAReachL1s * double(target.l1Bytes));
    t.usPerRowStartStall = kCpuRowStartStallCycles / (target.clockGHz * 1e3);
  }
}

} // namespace

int64_t waveFootprintRows(const KernelConfig &cfg, ElemType elem,
                          const TargetDesc &target) {
  ResourceUsage usage = estimateResources(cfg, elem, target);
  double waveTiles = double(std::max<int64_t>(target.computeUnits, 1)) *
                     double(std::max<int64_t>(usage.blocksPerCU, 1));
  double aspect = double(std::max<int64_t>(cfg.tileM, 1)) /
                  double(std::max<int64_t>(cfg.tileN, 1));
  return int64_t(fullWaveFootprint(waveTiles, aspect).rows);
}

const char *termName(Term term) { return termName(static_cast<int>(term)); }
const char *termName(int term) {
  return term >= 0 && term < kNumTerms ? kTermNames[term] : "?";
}

double evaluateCandidate(const PreparedTable &t, int index,
                         const GemmShape &shape, TermArray *terms) {
  return detail::evaluateOne(t, t.candidates, index, shape, terms);
}

bool prepareTable(const std::vector<KernelConfig> &candidates, ElemType elem,
                  const TargetDesc &target, const Calibration &calibration,
                  PreparedTable &table, std::string &error) {
  if (candidates.empty()) {
    error = "no candidates to prepare";
    return false;
  }
  if (candidates.size() > size_t(kMaxPreparedCandidates)) {
    error = std::to_string(candidates.size()) +
            " candidates exceed the prepared-table limit of " +
            std::to_string(kMaxPreparedCandidates);
    return false;
  }
  if (target.computeUnits < 1 || target.clockGHz <= 0 ||
      target.memBandwidthGBs <= 0 || target.onChipBytesPerClock <= 0) {
    error = "target " + target.name +
            " lacks compute units, clock or bandwidth figures";
    return false;
  }
  if (calibration.computeEfficiency <= 0 || calibration.memoryEfficiency <= 0) {
    error = "calibration efficiencies must be positive";
    return false;
  }
  for (size_t i = 0; i < candidates.size(); ++i)
    if (std::string why = checkForTarget(candidates[i], elem, target);
        !why.empty()) {
      error = "candidate " + std::to_string(i) + " (" + candidates[i].str() +
              "): " + why;
      return false;
    }

  PreparedTable t;
  setTargetConstants(t, target, elem, calibration);
  t.count = int32_t(candidates.size());
  for (const KernelConfig &cfg : candidates) {
    t.splitK |= cfg.splitK > 1;
    t.streamK |= cfg.streamK > 0 && target.isGpu();
  }
  for (size_t i = 0; i < candidates.size(); ++i)
    prepareCandidate(candidates[i], elem, target, t, int(i));
  // Selection evaluates whole packs: the lanes past the last candidate
  // repeat it (evaluated, never chosen).
  for (int i = t.count; i < detail::packedCount(t.count); ++i)
    prepareCandidate(candidates.back(), elem, target, t, i);
  buildGroups(t, /*alongM=*/true, t.numGroupsM, t.groupTileM, t.groupMaskM);
  buildGroups(t, /*alongM=*/false, t.numGroupsN, t.groupTileN, t.groupMaskN);
  t.policy = table.policy;
  t.fixedIndex = table.fixedIndex;
  table = t;
  return true;
}

Prediction predict(const GemmShape &shape, ElemType elem,
                   const KernelConfig &cfg, const TargetDesc &target) {
  return predict(shape, elem, cfg, target, target.calibration);
}

Prediction predict(const GemmShape &shape, ElemType elem,
                   const KernelConfig &cfg, const TargetDesc &target,
                   const Calibration &calibration) {
  Prediction p;
  // Invalid configurations are evaluated anyway: the breakdown still says
  // something useful, and every figure stays finite.
  PreparedTable table;
  setTargetConstants(table, target, elem, calibration);
  table.count = 1;
  table.splitK = cfg.splitK > 1;
  table.streamK = cfg.streamK > 0 && target.isGpu();
  prepareCandidate(cfg, elem, target, table, 0);
  GemmShape clamped{
      std::max<int64_t>(shape.b, 0), std::max<int64_t>(shape.m, 0),
      std::max<int64_t>(shape.n, 0), std::max<int64_t>(shape.k, 0)};
  p.totalUs = evaluateCandidate(table, 0, clamped, &p.terms);
  return p;
}

bool addTunedRegions(const std::vector<TunedRegion> &regions,
                     PreparedTable &table, std::string &error) {
  if (regions.size() > size_t(kMaxTunedRegions)) {
    error = std::to_string(regions.size()) +
            " tuned regions exceed the prepared-table limit of " +
            std::to_string(kMaxTunedRegions);
    return false;
  }
  for (size_t r = 0; r < regions.size(); ++r) {
    const TunedRegion &region = regions[r];
    if (std::string bad = region.region.check(); !bad.empty()) {
      error = "tuned region " + std::to_string(r) + " (" + region.source +
              "): " + bad;
      return false;
    }
    if (region.candidate < 0 || region.candidate >= table.count) {
      error = "tuned region " + std::to_string(r) + " (" + region.source +
              ") selects candidate " + std::to_string(region.candidate) +
              ", but there are " + std::to_string(table.count);
      return false;
    }
  }
  table.tunedCount = int32_t(regions.size());
  for (size_t r = 0; r < regions.size(); ++r) {
    const ShapeRegion &box = regions[r].region;
    table.tunedLower[r] = box.lower;
    table.tunedUpper[r] = box.upper;
    for (int d = 0; d < 4; ++d)
      // A zero bound would make every ratio infinite; 0.5 keeps "0" as near
      // to "1" as 1 is to 2.
      table.tunedCentre[r][d] = std::sqrt(std::max(0.5, double(box.lower[d])) *
                                          std::max(0.5, double(box.upper[d])));
    table.tunedCandidate[r] = regions[r].candidate;
  }
  return true;
}

} // namespace quilt
