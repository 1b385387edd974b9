//===- Selection.cpp - Picking a kernel (or a patch) for a shape ----------===//
//
// Part of the Quilt project. The run-time half of the cost model: given a
// prepared table and the actual dims, apply the policy. Everything here is
// allocation-free; the common case is one pass over the candidates plus a
// patch search that is usually cut short by a lower bound.
//
//===----------------------------------------------------------------------===//

#include "CostModel/CostModel.h"
#include "Evaluate.h"
#include "TextUtil.h"

#include <cmath>
#include <limits>
#include <new>
#include <type_traits>

namespace quilt {

namespace {

inline int64_t ceilDivInt(int64_t a, int64_t b) { return (a + b - 1) / b; }

constexpr int64_t kMaxElements = int64_t(1) << 62;

/// A dimension is worth patching only if the best single kernel pads it by
/// at least this fraction: below it the padded work is smaller than what a
/// second launch costs on any target we know, and skipping the search keeps
/// the selection within its time budget.
constexpr double kMinPaddingToPatch = 0.05;

bool padsEnough(int64_t extent, double tile) {
  double padded = detail::ceilNonNegative(double(extent) / tile) * tile;
  return padded - double(extent) >= kMinPaddingToPatch * padded;
}

bool fitsIndexArithmetic(int64_t x, int64_t y, int64_t z) {
  int64_t p;
  return !__builtin_mul_overflow(x, y, &p) &&
         !__builtin_mul_overflow(p, z, &p) && p <= kMaxElements;
}

struct Best {
  int32_t index = -1;
  double us = std::numeric_limits<double>::infinity();
};

/// Cheapest of the candidates in `mask` by `times` (ties: lowest index).
Best cheapestOf(uint64_t mask, const double *times) {
  Best best;
  for (; mask; mask &= mask - 1) {
    int i = __builtin_ctzll(mask);
    if (times[i] < best.us)
      best = {int32_t(i), times[i]};
  }
  return best;
}

/// Cheapest of candidates [0, count) by `times` (ties: lowest index).
Best cheapest(int count, const double *times) {
  Best best;
  for (int i = 0; i < count; ++i)
    if (times[i] < best.us)
      best = {int32_t(i), times[i]};
  return best;
}

/// The loop the selection budget rests on, a pack at a time: `count`
/// lanes into `out`. Either candidates 0, 1, ... of the table on one shape
/// (`count` a multiple of the pack), or (`Picked`) candidates index[0],
/// index[1], ... each on its own shape from `lanes` (`count` even: a
/// batch of a few ends with a register's worth rather than a whole pack).
/// The one shape makes its own quantities loop-invariant scalars.
/// Flattened: every pack operation must inline to its instructions, which
/// GCC's inlining limits would otherwise stop short of in a body this long.
template <bool Cpu, bool Footprint, bool Picked>
[[gnu::flatten]] void
evaluateLanes(const PreparedTable &t, const GemmShape &shape,
              const int32_t *index, const detail::ShapeLanes *lanes, int count,
              double *out) {
  using detail::load;
  using detail::Pack;
  using detail::Vec;
  double bd = double(shape.b);
  int j = 0;
  for (; j + detail::kPackLanes <= count; j += detail::kPackLanes) {
    Pack us;
    if constexpr (Picked)
      us = detail::evaluateLane<Pack, Cpu, Footprint>(
          t, t.candidates, index + j, bd, load<Pack>(&lanes->m[j]),
          load<Pack>(&lanes->n[j]), load<Pack>(&lanes->k[j]), nullptr);
    else
      us = detail::evaluateLane<Pack, Cpu, Footprint>(
          t, t.candidates, j, bd, double(shape.m), double(shape.n),
          double(shape.k), nullptr);
    detail::store(&out[j], us);
  }
  if constexpr (Picked)
    if (j < count)
      detail::store(&out[j],
                    detail::evaluateLane<Vec, Cpu, Footprint>(
                        t, t.candidates, index + j, bd, load<Vec>(&lanes->m[j]),
                        load<Vec>(&lanes->n[j]), load<Vec>(&lanes->k[j]),
                        nullptr));
}

/// evaluateLanes for the table's kind. `footprint` may be false only when
/// every lane's operands fit the shared cache (detail::operandsFit): the
/// common case then skips the rasterization footprint.
template <bool Picked>
void evaluateBatch(const PreparedTable &t, const GemmShape &shape,
                   const int32_t *index, const detail::ShapeLanes *lanes,
                   int count, bool footprint, double *out) {
  auto run = [&](auto cpu, auto fp) {
    evaluateLanes<decltype(cpu)::value, decltype(fp)::value, Picked>(
        t, shape, index, lanes, count, out);
  };
  using Yes = std::true_type;
  using No = std::false_type;
  if (t.cpu)
    footprint ? run(Yes(), Yes()) : run(Yes(), No());
  else
    footprint ? run(No(), Yes()) : run(No(), No());
}

/// The shape being selected for, as the model sees it.
struct WholeShape {
  GemmShape shape;
  double bd, md, nd, kd;
  bool footprint; ///< some operand outgrows the shared cache

  WholeShape(const PreparedTable &t, const GemmShape &shape)
      : shape(shape), bd(double(shape.b)), md(double(shape.m)),
        nd(double(shape.n)), kd(double(shape.k)),
        footprint(!detail::operandsFit(t, md, nd, kd)) {}

  /// Every candidate of the table on this shape.
  void evaluateAll(const PreparedTable &t, double *out) const {
    evaluateBatch<false>(t, shape, nullptr, nullptr,
                         detail::packedCount(t.count), footprint, out);
  }
};

/// Candidates picked out of the table for a batch of their own: lane j is
/// candidate index[j] on (b, m[j], n[j], k). The patch search evaluates
/// only the few (candidate, part) pairs it needs this way.
struct PickedLanes {
  int count = 0;
  int32_t index[kMaxPreparedCandidates];
  detail::ShapeLanes shape;

  void add(int32_t candidate, double m, double n, double k) {
    index[count] = candidate;
    shape.m[count] = m, shape.n[count] = n, shape.k[count] = k;
    ++count;
  }

  /// Predicted times into `out`, lane by lane; `b` for every lane.
  /// `footprint` as for evaluateBatch.
  void evaluate(const PreparedTable &t, int64_t b, bool footprint,
                double *out) {
    if (count == 0)
      return;
    // Whole registers: the lane past an odd last repeats it.
    int packed =
        (count + detail::kVecLanes - 1) / detail::kVecLanes * detail::kVecLanes;
    for (int j = count; j < packed; ++j) {
      index[j] = index[count - 1];
      shape.m[j] = shape.m[count - 1];
      shape.n[j] = shape.n[count - 1];
      shape.k[j] = shape.k[count - 1];
    }
    evaluateBatch<true>(t, GemmShape{b, 0, 0, 0}, index, &shape, packed,
                        footprint, out);
  }
};

/// Lower bounds for the patch search. No candidate runs a part of the
/// shape in less than a launch and a tile overhead per round (at least one
/// round) plus the longer of the part's compulsory DRAM time (every operand
/// read once, C written once) and, on GPUs, its compute time: a GPU tile is
/// the same on every part, so that is the part's rounds x 1 / latency,
/// computed as evaluateLane does, times one tile at the full issue rate.
/// Whatever the part, rounds x 1 / latency is at least
/// max(1, invLatencyWarps) (fewer rounds leave fewer blocks resident),
/// which bounds a whole group at once.
class PartBounds {
public:
  PartBounds(const PreparedTable &t, const WholeShape &whole)
      : t(t), whole(whole) {
    using detail::Pack;
    const PreparedCandidates &c = t.candidates;
    for (int j = 0; j < detail::packedCount(t.count); j += detail::kPackLanes) {
      auto field = [j](const PreparedCandidates::Lanes &lanes) {
        return detail::load<Pack>(&lanes[j]);
      };
      Pack tileUs = detail::splat<Pack>(0.0); // CPU blocks shrink to the part
      if (!t.cpu) {
        Pack kPerSplit = t.splitK ? detail::ceilDiv(whole.kd, field(c.splitK),
                                                    field(c.invSplitK))
                                  : detail::splat<Pack>(whole.kd);
        Pack tileK = field(c.tileK);
        Pack paddedK =
            detail::ceilDiv(kPerSplit, tileK, field(c.invTileK)) * tileK;
        // evaluateLane multiplies these factors in another order: leave
        // room for the roundings.
        tileUs = 2.0 * field(c.tileM) * field(c.tileN) * paddedK *
                 field(c.usPerFlop) * t.invComputeEfficiency * (1.0 - 1e-12);
      }
      detail::store(&tileUs_[j], tileUs);
      // A stream-K candidate's busiest compute unit may run less than a
      // tile: it bounds nothing here.
      Pack fewestRoundsUs = tileUs * detail::maxOf(detail::splat<Pack>(1.0),
                                                   field(c.invLatencyWarps));
      if (t.streamK)
        fewestRoundsUs = detail::select(
            field(c.streamK) > 0.0, detail::splat<Pack>(0.0), fewestRoundsUs);
      detail::store(&fewestRoundsUs_[j], fewestRoundsUs);
      detail::store(&tilesM_[j], detail::ceilDiv(whole.md, field(c.tileM),
                                                 field(c.invTileM)));
      detail::store(&tilesN_[j], detail::ceilDiv(whole.nd, field(c.tileN),
                                                 field(c.invTileN)));
    }
  }

  /// The compulsory DRAM time of a part (m, n). evaluateLane computes its
  /// memory time from at least these bytes, in the same order of
  /// operations, so the bound holds in floating point as it is.
  double memoryUs(double md, double nd) const {
    double kd = whole.kd;
    double compulsoryBytes =
        whole.bd * t.elemBytes * (md * kd + kd * nd + md * nd);
    return compulsoryBytes * t.usPerDramByte * t.invMemoryEfficiency;
  }

  /// The least any candidate in `mask` takes on a part whose compulsory
  /// DRAM time is `memory`.
  double leastUs(uint64_t mask, double memory) const {
    double compute = std::numeric_limits<double>::infinity();
    for (; mask; mask &= mask - 1)
      compute = std::min(compute, fewestRoundsUs_[__builtin_ctzll(mask)]);
    return floorUs(compute, memory);
  }

  /// The least candidate i takes on a part `tiles` of its tiles wide in
  /// the dimension split (`alongM`), with `memory` as above.
  double leastUs(int i, bool alongM, double tiles, double memory) const {
    const PreparedCandidates &c = t.candidates;
    double tilesM = alongM ? tiles : tilesM_[i];
    double tilesN = alongM ? tilesN_[i] : tiles;
    double gridTiles = whole.bd * tilesM * tilesN * c.splitK[i];
    // Stream-K spreads the tiles' K steps over its blocks: no fewer than
    // tiles / CUs rounds, at no better than the full issue rate, and at
    // least one segment's overhead.
    if (c.streamK[i] > 0.0) {
      double rounds = gridTiles * t.invComputeUnits;
      return t.launchUs + t.tileOverheadUs +
             std::max(rounds * tileUs_[i], memory);
    }
    double rounds =
        detail::ceilDiv(gridTiles, t.computeUnits, t.invComputeUnits);
    double resident = std::min(c.blocksPerCU[i], rounds);
    double invLatency = std::max(1.0, c.invLatencyWarps[i] * (1.0 / resident));
    // The tile overhead of every round, as evaluateLane adds it.
    return t.launchUs + rounds * t.tileOverheadUs +
           std::max(rounds * invLatency * tileUs_[i], memory);
  }

private:
  const PreparedTable &t;
  const WholeShape &whole;
  /// Per candidate: one tile's compute at the full issue rate (0 on CPUs),
  /// the least rounds x 1 / latency make of it, and the tile grid of the
  /// whole shape.
  double tileUs_[kMaxPreparedCandidates];
  double fewestRoundsUs_[kMaxPreparedCandidates];
  double tilesM_[kMaxPreparedCandidates], tilesN_[kMaxPreparedCandidates];

  double floorUs(double compute, double memory) const {
    return t.launchUs + t.tileOverheadUs + std::max(compute, memory);
  }
};

/// PartBounds, computed when a patch search first needs them: both
/// searches share them, and most selections search nothing. (Not a
/// std::optional: GCC clears its kilobytes of storage on construction.)
class LazyPartBounds {
public:
  const PartBounds &get(const PreparedTable &t, const WholeShape &whole) {
    if (!bounds)
      bounds = new (&storage) PartBounds(t, whole);
    return *bounds;
  }

private:
  static_assert(std::is_trivially_destructible_v<PartBounds>);
  PartBounds *bounds = nullptr;
  alignas(PartBounds) unsigned char storage[sizeof(PartBounds)];
};

/// Best split of one dimension into a main part (a multiple of one of the
/// table's tile sizes, run by a kernel with that tile) and a remainder run
/// by a kernel with a smaller tile. The two run as two launches on one
/// stream, so their times add, launch overheads included. Only splits
/// cheaper than `best.predictedUs` count.
///
/// To stay within the selection budget the remainder is tried only with one
/// candidate per smaller tile size: the one that was cheapest with that
/// tile on the whole shape (`times`, from the argmin pass). Every candidate
/// with the main tile is tried on the main part: they divide it exactly, so
/// their other differences (N tile, K tile, stages) decide.
///
/// Equivalent to trying the groups one by one, which is how the last loop
/// reads; the main parts and the remainders are evaluated beforehand in
/// one batch each, skipping only what a lower bound (PartBounds) shows
/// cannot win.
void searchPatch(const PreparedTable &t, const WholeShape &whole, bool alongM,
                 const double *times, LazyPartBounds &lazyBounds,
                 Selection &best) {
  int32_t groups = alongM ? t.numGroupsM : t.numGroupsN;
  const auto &tiles = alongM ? t.groupTileM : t.groupTileN;
  const auto &masks = alongM ? t.groupMaskM : t.groupMaskN;
  int64_t extent = alongM ? whole.shape.m : whole.shape.n;
  double kd = whole.kd;
  // (m, n) of a part `part` rows (M) or columns (N) wide.
  auto partM = [&](int64_t part) { return alongM ? double(part) : whole.md; };
  auto partN = [&](int64_t part) { return alongM ? whole.nd : double(part); };

  // Groups are sorted by decreasing tile: smaller tiles follow group g, so
  // the last group has none. `best` only improves as groups are tried, so a
  // bound against its value now holds throughout.

  // The remainder candidates: one per smaller tile.
  std::array<int32_t, kMaxPatchGroups> representative{};
  for (int32_t h = 1; h < groups; ++h)
    representative[h] = cheapestOf(masks[h], times).index;

  // A group's main part is the largest multiple of its tile; a split needs
  // both parts non-empty.
  std::array<int64_t, kMaxPatchGroups> mainExtent{};
  bool anySplit = false;
  for (int32_t g = 0; g + 1 < groups; ++g) {
    mainExtent[g] = extent / tiles[g] * tiles[g];
    anySplit |= mainExtent[g] != 0 && mainExtent[g] != extent;
  }
  if (!anySplit)
    return;
  const PartBounds &bounds = lazyBounds.get(t, whole);

  // Groups worth evaluating: those where the least the main part can take
  // plus the least any remainder can take (over the candidates of the
  // smaller tiles) is below `best`.
  uint64_t laterReps = 0; // representatives of the groups after g
  std::array<double, kMaxPatchGroups> restFloor;
  restFloor.fill(std::numeric_limits<double>::infinity());
  for (int32_t g = groups - 2; g >= 0; --g) {
    laterReps |= uint64_t(1) << representative[g + 1];
    int64_t rest = extent - mainExtent[g];
    if (mainExtent[g] != 0 && rest != 0)
      restFloor[g] =
          bounds.leastUs(laterReps, bounds.memoryUs(partM(rest), partN(rest)));
  }
  std::array<int, kMaxPatchGroups> firstMain{};
  PickedLanes mains;
  for (int32_t g = 0; g + 1 < groups; ++g) {
    firstMain[g] = mains.count;
    double m = partM(mainExtent[g]), n = partN(mainExtent[g]);
    double memory = bounds.memoryUs(m, n);
    if (bounds.leastUs(masks[g], memory) + restFloor[g] >= best.predictedUs)
      continue;
    // Then candidate by candidate: the main part is a whole number of this
    // group's tiles.
    double mainTiles = double(mainExtent[g] / tiles[g]);
    for (uint64_t mask = masks[g]; mask; mask &= mask - 1) {
      int i = __builtin_ctzll(mask);
      if (t.cpu || bounds.leastUs(i, alongM, mainTiles, memory) + restFloor[g] <
                       best.predictedUs)
        mains.add(i, m, n, kd);
    }
  }
  if (mains.count == 0)
    return;
  double mainTimes[kMaxPreparedCandidates];
  mains.evaluate(t, whole.shape.b, whole.footprint, mainTimes);

  // The cheapest main kernel of each group (ties: lowest index, as its
  // lanes are in index order), and the remainders of the groups it leaves
  // room for.
  std::array<Best, kMaxPatchGroups> main{};
  // Lane of the remainder (h, g) is firstRest[g] + h - g - 1. Groups whose
  // main parts end at the same row share their remainders' lanes: those of
  // a later group are the tail of an earlier one's.
  std::array<int, kMaxPatchGroups> firstRest{};
  PickedLanes rests;
  for (int32_t g = 0; g + 1 < groups; ++g) {
    int lastMain = g + 2 < groups ? firstMain[g + 1] : mains.count;
    for (int lane = firstMain[g]; lane < lastMain; ++lane)
      if (mainTimes[lane] < main[g].us)
        main[g] = {mains.index[lane], mainTimes[lane]};
    if (main[g].us + restFloor[g] >= best.predictedUs)
      continue;
    int32_t earlier = 0;
    while (earlier < g &&
           !(mainExtent[earlier] == mainExtent[g] &&
             main[earlier].us + restFloor[earlier] < best.predictedUs))
      ++earlier;
    if (earlier < g) {
      firstRest[g] = firstRest[earlier] + (g - earlier);
      continue;
    }
    firstRest[g] = rests.count;
    int64_t rest = extent - mainExtent[g];
    for (int32_t h = g + 1; h < groups; ++h)
      rests.add(representative[h], partM(rest), partN(rest), kd);
  }
  double restTimes[kMaxPreparedCandidates];
  rests.evaluate(t, whole.shape.b, whole.footprint, restTimes);

  for (int32_t g = 0; g + 1 < groups; ++g) {
    // Groups without a split, or skipped above, fail this too.
    if (main[g].us + restFloor[g] >= best.predictedUs)
      continue;
    Best remainder;
    for (int32_t h = g + 1; h < groups; ++h) {
      int lane = firstRest[g] + (h - g - 1);
      if (restTimes[lane] < remainder.us)
        remainder = {rests.index[lane], restTimes[lane]};
    }
    if (main[g].us + remainder.us < best.predictedUs) {
      best.candidate = main[g].index;
      best.remainder = remainder.index;
      best.patchDim = alongM ? PatchDim::M : PatchDim::N;
      best.mainExtent = mainExtent[g];
      best.predictedUs = main[g].us + remainder.us;
    }
  }
}

/// The shape the pad policy runs candidate `index` on: every dim padded to
/// the tile (K to the tile times split-K).
GemmShape paddedShape(const PreparedTable &t, int index,
                      const GemmShape &shape) {
  const PreparedCandidates &c = t.candidates;
  GemmShape padded = shape;
  int64_t tileM = int64_t(c.tileM[index]), tileN = int64_t(c.tileN[index]);
  int64_t kStep = int64_t(c.tileK[index] * c.splitK[index]);
  padded.m = ceilDivInt(shape.m, tileM) * tileM;
  padded.n = ceilDivInt(shape.n, tileN) * tileN;
  padded.k = ceilDivInt(shape.k, kStep) * kStep;
  return padded;
}

/// The pad policy's total: the kernel on the padded shape and, where
/// anything was padded, one copy kernel that pads A and B (read the
/// originals, write the padded buffers) and another that copies the valid
/// part of C back.
double withPadCopies(const PreparedTable &t, const GemmShape &shape,
                     const GemmShape &padded, double kernel) {
  if (padded == shape || kernel == 0.0)
    return kernel;
  double b = double(shape.b), eb = t.elemBytes;
  double m = double(shape.m), n = double(shape.n), k = double(shape.k);
  double pm = double(padded.m), pn = double(padded.n), pk = double(padded.k);
  double bytes = b * eb * (m * k + k * n + pm * pk + pk * pn + pm * pn + m * n);
  return kernel + deviceCopyUs(t, bytes, /*launches=*/2);
}

/// The tuned region holding `shape` whose centre is nearest, or -1. The
/// distance is a product of ratios, so no logarithm sits on the selection
/// path; ties go to the earlier region (file order).
int32_t nearestTunedRegion(const PreparedTable &t, const GemmShape &shape) {
  const int64_t dims[4] = {shape.b, shape.m, shape.n, shape.k};
  int32_t best = -1;
  double bestDistance = 0;
  for (int32_t r = 0; r < t.tunedCount; ++r) {
    bool inside = true;
    double distance = 1;
    for (int d = 0; d < 4 && inside; ++d) {
      inside = dims[d] >= t.tunedLower[r][d] && dims[d] <= t.tunedUpper[r][d];
      double x = double(dims[d]), c = t.tunedCentre[r][d];
      distance *= x > c ? x / c : c / x;
    }
    if (inside && (best < 0 || distance < bestDistance)) {
      best = r;
      bestDistance = distance;
    }
  }
  return best;
}

} // namespace

std::string_view stringify(SelectionPolicy p) {
  switch (p) {
  case SelectionPolicy::CostModel:
    return "cost-model";
  case SelectionPolicy::Fixed:
    return "fixed";
  case SelectionPolicy::Pad:
    return "pad";
  case SelectionPolicy::Patch:
    return "patch";
  }
  return "?";
}

bool parseSelectionPolicy(std::string_view s, SelectionPolicy &policy,
                          int &fixedIndex) {
  if (s == "cost-model" || s == "pad" || s == "patch") {
    policy = s == "pad"     ? SelectionPolicy::Pad
             : s == "patch" ? SelectionPolicy::Patch
                            : SelectionPolicy::CostModel;
    return true;
  }
  int64_t index;
  if (startsWith(s, "fixed=") && parseInt64(s.substr(6), index) && index >= 0 &&
      index < kMaxPreparedCandidates) {
    policy = SelectionPolicy::Fixed;
    fixedIndex = int(index);
    return true;
  }
  return false;
}

double deviceCopyUs(const PreparedTable &t, double bytes, int launches) {
  return double(launches) * t.launchUs +
         bytes * t.invMemoryEfficiency / t.dramBytesPerUs;
}

OperandCopies unalignedOperandCopies(const PreparedTable &t, OpKind op,
                                     const GemmShape &shape,
                                     bool stagesInRuns) {
  OperandCopies copies;
  bool matrices = op == OpKind::Matmul || op == OpKind::BatchMatmul;
  if (t.cpu || !matrices || !stagesInRuns || shape.b <= 0 || shape.m <= 0 ||
      shape.n <= 0 || shape.k <= 0)
    return copies;
  // Rows padded to whole 16-byte runs (OperandRepack.cpp, kRowAlignment).
  constexpr int64_t kRowBytes = 16;
  int64_t eb = int64_t(t.elemBytes);
  auto padded = [&](int64_t pitch) {
    return ceilDivInt(pitch * eb, kRowBytes) * kRowBytes / eb;
  };
  double b = double(shape.b), e = t.elemBytes;
  int launches = 0;
  copies.copiesA = shape.k * eb % kRowBytes != 0;
  copies.copiesB = shape.n * eb % kRowBytes != 0;
  if (copies.copiesA) {
    copies.bytes += b * double(shape.m) * e * double(shape.k + padded(shape.k));
    ++launches;
  }
  if (copies.copiesB) {
    copies.bytes += b * double(shape.k) * e * double(shape.n + padded(shape.n));
    ++launches;
  }
  copies.us = launches ? deviceCopyUs(t, copies.bytes, launches) : 0.0;
  return copies;
}

double evaluatePadded(const PreparedTable &t, int index,
                      const GemmShape &shape) {
  GemmShape padded = paddedShape(t, index, shape);
  return withPadCopies(t, shape, padded, evaluateCandidate(t, index, padded));
}

SelectStatus selectKernel(const PreparedTable &t, const GemmShape &shape,
                          Selection &out) {
  out = Selection();
  if (t.count <= 0 || t.count > kMaxPreparedCandidates)
    return SelectStatus::EmptyTable;
  if (shape.b < 0 || shape.m < 0 || shape.n < 0 || shape.k < 0)
    return SelectStatus::NegativeDimension;
  if (!fitsIndexArithmetic(shape.b, shape.m, shape.k) ||
      !fitsIndexArithmetic(shape.b, shape.k, shape.n) ||
      !fitsIndexArithmetic(shape.b, shape.m, shape.n))
    return SelectStatus::ShapeOverflow;
  if (t.policy == SelectionPolicy::Fixed &&
      (t.fixedIndex < 0 || t.fixedIndex >= t.count))
    return SelectStatus::BadFixedIndex;
  if (shape.b == 0 || shape.m == 0 || shape.n == 0 || shape.k == 0) {
    // Nothing to compute: a deterministic choice and a zero prediction.
    out.candidate = t.policy == SelectionPolicy::Fixed ? t.fixedIndex : 0;
    return SelectStatus::Ok;
  }

  if (t.policy == SelectionPolicy::Fixed) {
    out.candidate = t.fixedIndex;
    out.predictedUs = out.bestSingleUs =
        evaluateCandidate(t, t.fixedIndex, shape);
    return SelectStatus::Ok;
  }
  if (t.policy == SelectionPolicy::Pad) {
    // Each candidate on its own padded shape, in one batch.
    PickedLanes lanes;
    GemmShape padded[kMaxPreparedCandidates];
    double largestM = 0, largestN = 0, largestK = 0;
    for (int i = 0; i < t.count; ++i) {
      padded[i] = paddedShape(t, i, shape);
      lanes.add(i, double(padded[i].m), double(padded[i].n),
                double(padded[i].k));
      largestM = std::max(largestM, double(padded[i].m));
      largestN = std::max(largestN, double(padded[i].n));
      largestK = std::max(largestK, double(padded[i].k));
    }
    double times[kMaxPreparedCandidates];
    lanes.evaluate(t, shape.b,
                   !detail::operandsFit(t, largestM, largestN, largestK),
                   times);
    for (int i = 0; i < t.count; ++i)
      times[i] = withPadCopies(t, shape, padded[i], times[i]);
    Best best = cheapest(t.count, times);
    out.candidate = best.index;
    out.padded = true;
    out.predictedUs = out.bestSingleUs = best.us;
    return SelectStatus::Ok;
  }

  if (t.policy == SelectionPolicy::CostModel && t.tunedCount > 0) {
    int32_t region = nearestTunedRegion(t, shape);
    if (region >= 0) {
      out.candidate = t.tunedCandidate[region];
      out.tunedRegion = region;
      out.predictedUs = out.bestSingleUs =
          evaluateCandidate(t, out.candidate, shape);
      return SelectStatus::Ok;
    }
  }

  WholeShape whole(t, shape);
  double times[kMaxPreparedCandidates];
  whole.evaluateAll(t, times);
  Best single = cheapest(t.count, times);
  out.candidate = single.index;
  out.predictedUs = out.bestSingleUs = single.us;
  // cost-model patches only when that is cheaper, and searches only where a
  // patch can pay; patch patches whenever the shape is not a multiple of
  // some tile.
  bool forced = t.policy == SelectionPolicy::Patch;
  // Any patch is two launches of at least one tile each. On CPUs the masked
  // edge is already only a register block wide, so patching the
  // cache-blocked kernel cannot pay.
  if (!forced && (t.cpu || 2.0 * (t.launchUs + t.tileOverheadUs) >= single.us))
    return SelectStatus::Ok;
  Selection patch;
  patch.predictedUs =
      forced ? std::numeric_limits<double>::infinity() : single.us;
  const PreparedCandidates &c = t.candidates;
  LazyPartBounds bounds;
  if (forced || padsEnough(shape.m, c.tileM[single.index]))
    searchPatch(t, whole, /*alongM=*/true, times, bounds, patch);
  if (forced || padsEnough(shape.n, c.tileN[single.index]))
    searchPatch(t, whole, /*alongM=*/false, times, bounds, patch);
  if (patch.patchDim != PatchDim::None) {
    patch.bestSingleUs = single.us;
    out = patch;
  }
  return SelectStatus::Ok;
}

} // namespace quilt
