//===- Evaluate.h - The cost model's per-shape formula (library-private) --===//
//
// Part of the Quilt project. Inline so that the selection loop compiles to
// straight-line code per candidate. One function computes both the total
// and, when asked, the named terms: the fast path and `explain` cannot
// disagree.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_LIB_COSTMODEL_EVALUATE_H
#define QUILT_LIB_COSTMODEL_EVALUATE_H

#include "CostModel/CostModel.h"

#include <algorithm>
#include <cmath>

namespace quilt {
namespace detail {

/// Outside a grid of few tiles, one CPU core can pull this many times its
/// fair share of DRAM bandwidth.
constexpr double kCpuBandwidthShare = 4.0;

/// Largest double the integer-conversion fast paths accept.
constexpr double kFastRoundLimit = 4.0e18;

/// std::ceil / std::floor for non-negative values. Baseline x86-64 has no
/// rounding instruction (SSE4.1), so the std versions are libm calls; a
/// truncating conversion is one instruction.
inline double ceilNonNegative(double x) {
  if (!(x < kFastRoundLimit))
    return std::ceil(x);
  double truncated = double(int64_t(x));
  // Branch-free: the comparison's outcome varies from shape to shape and
  // would otherwise be mispredicted often.
  return truncated + double(truncated < x);
}
inline double floorNonNegative(double x) {
  return x < kFastRoundLimit ? double(int64_t(x)) : std::floor(x);
}

/// ceil(a / b) for non-negative integers held in doubles, given 1 / b. The
/// product a * (1 / b) is within an ulp of the quotient: that can only
/// cross an integer when the quotient is one (a a multiple of b), which the
/// fix-up catches. Exact for quotients below 2^40, within one unit beyond,
/// and a multiply where a division would sit on the critical path.
inline double ceilDiv(double a, double b, double invB) {
  double q = ceilNonNegative(a * invB);
  return q - double(q >= 1.0 && (q - 1.0) * b >= a);
}
inline double ceilDiv(double a, double b) { return ceilDiv(a, b, 1.0 / b); }

/// 1 / r for the small whole numbers of resident blocks, so that the
/// selection path divides only where exactness needs it (tile counts).
struct Reciprocals {
  static constexpr int kSize = 65;
  double value[kSize];
  constexpr Reciprocals() : value() {
    value[0] = 1.0;
    for (int i = 1; i < kSize; ++i)
      value[i] = 1.0 / double(i);
  }
};
inline constexpr Reciprocals kReciprocals{};
/// 1 / r for a whole number r >= 1 held in a double.
inline double reciprocal(double r) {
  return r < Reciprocals::kSize ? kReciprocals.value[int(r)] : 1.0 / r;
}

/// What the model needs of a shape, independent of the candidate: computed
/// once per selection, not once per candidate.
struct ShapeFacts {
  double bd, md, nd, kd;
  bool empty;
  /// Whether each operand stays in the shared cache (L2 / L3) across waves.
  bool aFits, bFits;
  /// DRAM bytes when every operand is read once and C written once.
  double compulsoryBytes;

  ShapeFacts(const PreparedTable &t, const GemmShape &shape)
      : bd(double(shape.b)), md(double(shape.m)), nd(double(shape.n)),
        kd(double(shape.k)),
        empty(shape.b <= 0 || shape.m <= 0 || shape.n <= 0 || shape.k <= 0),
        aFits(md * kd * t.elemBytes <= t.sharedCacheBytes),
        bFits(kd * nd * t.elemBytes <= t.sharedCacheBytes),
        compulsoryBytes(bd * t.elemBytes * (md * kd + kd * nd + md * nd)) {}
};

inline double evaluate(const PreparedTable &t, const PreparedCandidate &c,
                       const ShapeFacts &shape, TermArray *terms) {
  if (shape.empty) {
    if (terms)
      terms->fill(0.0);
    return 0.0;
  }
  double bd = shape.bd, md = shape.md, nd = shape.nd, kd = shape.kd;
  // Tile grid and the extent actually computed (padded to the granularity:
  // the tile on GPUs, the register block on CPUs, where K is not padded).
  double tilesM = ceilDiv(md, c.tileM, c.invTileM);
  double tilesN = ceilDiv(nd, c.tileN, c.invTileN);
  double kPerSplit = c.splitK == 1.0 ? kd : ceilDiv(kd, c.splitK);
  double paddedM, paddedN, paddedK;
  if (c.cpu) {
    paddedM = ceilDiv(md, c.granM, c.invGranM) * c.granM;
    paddedN = ceilDiv(nd, c.granN, c.invGranN) * c.granN;
    paddedK = kPerSplit;
  } else {
    paddedM = tilesM * c.tileM;
    paddedN = tilesN * c.tileN;
    paddedK = ceilDiv(kPerSplit, c.tileK, c.invTileK) * c.tileK;
  }
  double tileM = std::min(c.tileM, paddedM);
  double tileN = std::min(c.tileN, paddedN);

  // Waves: the busiest compute unit runs `rounds` tiles, sharing its
  // throughput between the ones resident at the same time. Too few resident
  // warps leave the pipelines idle (latency).
  double tiles = bd * tilesM * tilesN * c.splitK;
  double cus = t.computeUnits;
  double rounds = ceilDiv(tiles, cus, t.invComputeUnits);
  double resident = std::min(c.blocksPerCU, rounds);
  double invResident = reciprocal(resident);
  // latency = min(1, resident x latencyWarps); its reciprocal, without a
  // division on the hot path.
  double invLatency =
      c.cpu ? 1.0 : std::max(1.0, c.invLatencyWarps * invResident);
  double computeRaw =
      rounds * 2.0 * tileM * tileN * paddedK * c.usPerFlop * invLatency;

  // On-chip traffic and, on CPUs, packing.
  double onChipRaw, packRaw = 0;
  if (c.cpu) {
    // The packed A block streams from L2 once per register-block column,
    // the B panel once. Packing reads the source and writes f32.
    // tileN is a multiple of the register block either way (the cache
    // block, or N padded to the register block): no rounding needed.
    double panels = tileN * c.invGranN;
    onChipRaw =
        rounds * paddedK * 4.0 * (tileM * panels + tileN) * t.usPerOnChipByte;
    packRaw = rounds * paddedK * (tileM + tileN) * (t.elemBytes + 4.0) *
              t.usPerOnChipByte;
  } else {
    onChipRaw =
        rounds * paddedK * (tileM * c.onChipUsPerKA + tileN * c.onChipUsPerKB);
  }

  // DRAM. The tiles of one wave cover a roughly square footprint of
  // wm x wn tiles (grouped rasterization), so A is read once per footprint
  // column group and B once per row group, unless the operand stays in L2
  // (GPU) / L3 (CPU) across waves.
  double eb = t.elemBytes;
  bool aFits = shape.aFits, bFits = shape.bFits;
  double dramBytes = shape.compulsoryBytes;
  if (!aFits || !bFits) {
    double waveTiles = std::min(tiles, cus * c.blocksPerCU);
    double wn = std::clamp(
        floorNonNegative(std::sqrt(waveTiles * c.footprintAspect) + 0.5), 1.0,
        tilesN);
    double wm = std::clamp(floorNonNegative(waveTiles / wn), 1.0, tilesM);
    double readsA = aFits ? 1.0 : ceilDiv(tilesN, wn);
    double readsB = bFits ? 1.0 : ceilDiv(tilesM, wm);
    dramBytes = bd * eb * (md * kd * readsA + kd * nd * readsB + md * nd);
  }
  if (c.splitK > 1.0) // f32 partial sums written and read back once each
    dramBytes += bd * md * nd * 4.0 * 2.0 * c.splitK;
  // A compute unit streams its tiles' operands no faster than its requests
  // in flight allow (Little's law: bytes in flight / latency), which is what
  // bounds grids with few tiles. A CPU core pulls a bounded share.
  double tileBytes = (tileM + tileN) * paddedK * eb;
  double latencyBound =
      c.cpu ? rounds * tileBytes * cus * t.usPerDramByte / kCpuBandwidthShare
            : rounds * tileBytes * c.invInFlightBytes *
                  (aFits && bFits ? t.cacheLatencyUs : t.dramLatencyUs) *
                  invResident;
  double memoryRaw = std::max(dramBytes * t.usPerDramByte, latencyBound);

  double compute = computeRaw * t.invComputeEfficiency;
  double onChip = onChipRaw * t.invComputeEfficiency;
  double pack = packRaw * t.invComputeEfficiency;
  double memory = memoryRaw * t.invMemoryEfficiency;
  double chip = std::max(compute, onChip) + pack;
  // Stages and co-resident blocks let loads for later k-steps (or tiles)
  // run under the math of the current one. CPUs pack, then compute.
  double exposed = c.cpu ? 1.0 : c.invStages * invResident; // 1 - overlap
  double body = std::max(chip, memory) + exposed * std::min(chip, memory);
  double tileOverhead = rounds * t.tileOverheadUs;
  double total = t.launchUs + tileOverhead + body;

  if (terms) {
    TermArray &a = *terms;
    a[int(Term::Tiles)] = tiles;
    a[int(Term::Waves)] = tiles / (cus * c.blocksPerCU);
    a[int(Term::WaveEfficiency)] = tiles / (rounds * cus);
    a[int(Term::PaddingWaste)] =
        1.0 - (md * nd * kd) / (paddedM * paddedN * paddedK * c.splitK);
    a[int(Term::Occupancy)] = c.occupancy;
    a[int(Term::ActiveCUFraction)] = std::min(tiles, cus) / cus;
    a[int(Term::IssueEfficiency)] = c.issueEfficiency / invLatency;
    a[int(Term::ComputeUs)] = compute;
    a[int(Term::OnChipUs)] = onChip;
    a[int(Term::PackUs)] = pack;
    a[int(Term::DramMB)] = dramBytes * 1e-6;
    a[int(Term::MemoryUs)] = memory;
    a[int(Term::Overlap)] = 1.0 - exposed;
    a[int(Term::TileOverheadUs)] = tileOverhead;
    a[int(Term::LaunchUs)] = t.launchUs;
    a[int(Term::TotalUs)] = total;
  }
  return total;
}

} // namespace detail
} // namespace quilt

#endif // QUILT_LIB_COSTMODEL_EVALUATE_H
