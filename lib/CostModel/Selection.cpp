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
  double padded = std::ceil(double(extent) / tile) * tile;
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

/// Cheapest candidate among those in `mask` for `shape`; fills `times`
/// with every evaluated candidate's prediction.
Best cheapestOf(const PreparedTable &t, uint64_t mask, const GemmShape &s,
                double *times) {
  detail::ShapeFacts shape(t, s);
  Best best;
  while (mask) {
    int i = __builtin_ctzll(mask);
    mask &= mask - 1;
    double us = detail::evaluate(t, t.candidates[i], shape, nullptr);
    times[i] = us;
    if (us < best.us)
      best = {int32_t(i), us};
  }
  return best;
}

uint64_t allCandidates(const PreparedTable &t) {
  return t.count >= 64 ? ~uint64_t(0) : (uint64_t(1) << t.count) - 1;
}

/// Best split of one dimension into a main part (a multiple of one of the
/// table's tile sizes, run by a kernel with that tile) and a remainder run
/// by a kernel with a smaller tile. The two run as two launches on one
/// stream, so their times add, launch overheads included. Only splits
/// cheaper than `best.predictedUs` count.
///
/// To stay within the selection budget the remainder is tried only with one
/// candidate per smaller tile size: the one that was cheapest with that
/// tile on the whole shape (`times`, from the argmin pass).
void searchPatch(const PreparedTable &t, const GemmShape &shape, bool alongM,
                 const double *times, Selection &best) {
  int32_t groups = alongM ? t.numGroupsM : t.numGroupsN;
  const auto &tiles = alongM ? t.groupTileM : t.groupTileN;
  const auto &masks = alongM ? t.groupMaskM : t.groupMaskN;
  std::array<int32_t, kMaxPatchGroups> representative{};
  for (int32_t g = 0; g < groups; ++g) {
    Best rep;
    for (uint64_t mask = masks[g]; mask; mask &= mask - 1) {
      int i = __builtin_ctzll(mask);
      if (times[i] < rep.us)
        rep = {int32_t(i), times[i]};
    }
    representative[g] = rep.index;
  }
  int64_t extent = alongM ? shape.m : shape.n;
  // Groups are sorted by decreasing tile: smaller tiles follow group g.
  for (int32_t g = 0; g + 1 < groups; ++g) {
    int64_t mainExtent = extent / tiles[g] * tiles[g];
    int64_t rest = extent - mainExtent;
    if (mainExtent == 0 || rest == 0)
      continue;
    GemmShape mainShape = shape, restShape = shape;
    (alongM ? mainShape.m : mainShape.n) = mainExtent;
    (alongM ? restShape.m : restShape.n) = rest;
    // Tiles equal to the main tile divide the main part exactly: their
    // differences (N tile, K tile, stages) decide, so try them all.
    double scratch[kMaxPreparedCandidates];
    Best mainBest = cheapestOf(t, masks[g], mainShape, scratch);
    int32_t main = mainBest.index;
    double mainUs = mainBest.us;
    // The remainder costs at least a launch and one tile.
    if (mainUs + t.launchUs + t.tileOverheadUs >= best.predictedUs)
      continue;
    Best remainder;
    detail::ShapeFacts restFacts(t, restShape);
    for (int32_t h = g + 1; h < groups; ++h) {
      int32_t i = representative[h];
      double us = detail::evaluate(t, t.candidates[i], restFacts, nullptr);
      if (us < remainder.us)
        remainder = {i, us};
    }
    if (mainUs + remainder.us < best.predictedUs) {
      best.candidate = main;
      best.remainder = remainder.index;
      best.patchDim = alongM ? PatchDim::M : PatchDim::N;
      best.mainExtent = mainExtent;
      best.predictedUs = mainUs + remainder.us;
    }
  }
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

double evaluatePadded(const PreparedTable &t, int index,
                      const GemmShape &shape) {
  const PreparedCandidate &c = t.candidates[index];
  GemmShape padded = shape;
  int64_t tileM = int64_t(c.tileM), tileN = int64_t(c.tileN);
  int64_t kStep = int64_t(c.tileK * c.splitK);
  padded.m = ceilDivInt(shape.m, tileM) * tileM;
  padded.n = ceilDivInt(shape.n, tileN) * tileN;
  padded.k = ceilDivInt(shape.k, kStep) * kStep;
  double kernel = evaluateCandidate(t, index, padded);
  if (padded == shape || kernel == 0.0)
    return kernel;
  // One copy kernel pads A and B (read the originals, write the padded
  // buffers), another copies the valid part of C back.
  double b = double(shape.b), eb = t.elemBytes;
  double m = double(shape.m), n = double(shape.n), k = double(shape.k);
  double pm = double(padded.m), pn = double(padded.n), pk = double(padded.k);
  double bytes = b * eb * (m * k + k * n + pm * pk + pk * pn + pm * pn + m * n);
  return kernel + 2.0 * t.launchUs +
         bytes * t.invMemoryEfficiency / t.dramBytesPerUs;
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
    Best best;
    for (int i = 0; i < t.count; ++i)
      if (double us = evaluatePadded(t, i, shape); us < best.us)
        best = {int32_t(i), us};
    out.candidate = best.index;
    out.padded = true;
    out.predictedUs = out.bestSingleUs = best.us;
    return SelectStatus::Ok;
  }

  double times[kMaxPreparedCandidates];
  Best single = cheapestOf(t, allCandidates(t), shape, times);
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
  const PreparedCandidate &best = t.candidates[single.index];
  if (forced || padsEnough(shape.m, best.tileM))
    searchPatch(t, shape, /*alongM=*/true, times, patch);
  if (forced || padsEnough(shape.n, best.tileN))
    searchPatch(t, shape, /*alongM=*/false, times, patch);
  if (patch.patchDim != PatchDim::None) {
    patch.bestSingleUs = single.us;
    out = patch;
  }
  return SelectStatus::Ok;
}

} // namespace quilt
