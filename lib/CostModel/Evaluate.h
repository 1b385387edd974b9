//===- Evaluate.h - The cost model's per-shape formula (library-private) --===//
//
// Part of the Quilt project. Inline so that the selection loop compiles to
// straight-line code over several candidates at a time. One function
// computes both the total and, when asked, the named terms: the fast path
// and `explain` cannot disagree.
//
// The selection path evaluates packs of candidates (below): no branches
// on the data (selects only; branches on what a whole pack shares), no
// table lookups, no libm calls, and at most one division per candidate
// (none on grids of many rounds), plus one or two and a square root only
// where an operand outgrows the shared cache and the grid is not a full
// wave with room for its footprint; whole-number rounding is adds and
// compares.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_LIB_COSTMODEL_EVALUATE_H
#define QUILT_LIB_COSTMODEL_EVALUATE_H

#include "CostModel/CostModel.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <type_traits>

namespace quilt {
namespace detail {

/// Outside a grid of few tiles, one CPU core can pull this many times its
/// fair share of DRAM bandwidth.
constexpr double kCpuBandwidthShare = 4.0;
/// The largest grid z of a GPU launch (CUDA's and HIP's limit).
constexpr double kMaxGridZ = double(kGpuMaxGridZ);

//===----------------------------------------------------------------------===//
// One candidate or a pack of them
//===----------------------------------------------------------------------===//
//
// The formula is a template over its number type: `double` for one
// candidate (explain, predict, evaluateCandidate) and `Pack` for
// kPackLanes consecutive candidates of the structure-of-arrays table (the
// selection loop). Every operation on a pack is the same IEEE operation on
// each lane, in the same order, so both give the same bits.
//
// Packs are spelled out rather than left to the auto-vectorizer, which
// gives up on this loop: under the default -ftrapping-math it does not
// if-convert floating-point arithmetic that earlier passes have moved into
// one arm of a select. A pack is two registers, so that each operation's
// independent twin sits right next to it: the formula is one long chain of
// dependent operations, and this measured faster than one register (fewer
// lanes padded) or two packs a loop iteration.

/// Two doubles, one SSE2 (baseline x86-64) or NEON register, in the GCC /
/// Clang vector extension: operators work lane by lane.
using Vec = double __attribute__((vector_size(16)));
using VecMask = decltype(Vec{} < Vec{});
constexpr int kVecLanes = 2;

/// Two registers: four candidates.
struct Pack {
  Vec lo, hi;
};
/// A comparison's result per lane: all ones or all zeros.
struct PackMask {
  VecMask lo, hi;
};
constexpr int kPackLanes = 2 * kVecLanes;

/// Candidates [0, count) rounded up to whole packs. prepareTable fills the
/// lanes past `count` with copies of the last candidate.
constexpr int packedCount(int count) {
  return (count + kPackLanes - 1) / kPackLanes * kPackLanes;
}

/// A register of a pack, or a double as is (the vector extension
/// broadcasts it).
inline Vec lo(const Pack &p) { return p.lo; }
inline Vec hi(const Pack &p) { return p.hi; }
inline VecMask lo(const PackMask &p) { return p.lo; }
inline VecMask hi(const PackMask &p) { return p.hi; }
inline double lo(double x) { return x; }
inline double hi(double x) { return x; }

/// `op` on both registers of the operands.
template <typename R, typename Op, typename... Args>
inline R lanewise(Op op, const Args &...args) {
  return R{op(lo(args)...), op(hi(args)...)};
}

// Arithmetic and comparisons between packs, or a pack and a double.
template <typename A, typename B>
constexpr bool kEitherIsPack =
    std::is_same_v<A, Pack> || std::is_same_v<B, Pack>;
template <typename A, typename B>
using IfPack = std::enable_if_t<kEitherIsPack<A, B>, Pack>;
template <typename A, typename B>
using IfPackMask = std::enable_if_t<kEitherIsPack<A, B>, PackMask>;
template <typename A, typename B> IfPack<A, B> operator+(A a, B b) {
  return lanewise<Pack>([](auto x, auto y) { return x + y; }, a, b);
}
template <typename A, typename B> IfPack<A, B> operator-(A a, B b) {
  return lanewise<Pack>([](auto x, auto y) { return x - y; }, a, b);
}
template <typename A, typename B> IfPack<A, B> operator*(A a, B b) {
  return lanewise<Pack>([](auto x, auto y) { return x * y; }, a, b);
}
template <typename A, typename B> IfPack<A, B> operator/(A a, B b) {
  return lanewise<Pack>([](auto x, auto y) { return x / y; }, a, b);
}
template <typename A, typename B> IfPackMask<A, B> operator<(A a, B b) {
  return lanewise<PackMask>([](auto x, auto y) { return x < y; }, a, b);
}
template <typename A, typename B> IfPackMask<A, B> operator<=(A a, B b) {
  return lanewise<PackMask>([](auto x, auto y) { return x <= y; }, a, b);
}
template <typename A, typename B> IfPackMask<A, B> operator>(A a, B b) {
  return lanewise<PackMask>([](auto x, auto y) { return x > y; }, a, b);
}
template <typename A, typename B> IfPackMask<A, B> operator>=(A a, B b) {
  return lanewise<PackMask>([](auto x, auto y) { return x >= y; }, a, b);
}
inline PackMask operator&(PackMask a, PackMask b) {
  return lanewise<PackMask>([](auto x, auto y) { return x & y; }, a, b);
}

// The primitives below exist for one candidate (double), one register
// (Vec: two candidates, the tail of a batch) and a pack (two registers).

template <typename T> T splat(double x);
template <> inline double splat<double>(double x) { return x; }
template <> inline Vec splat<Vec>(double x) { return Vec{} + x; }
template <> inline Pack splat<Pack>(double x) {
  return Pack{splat<Vec>(x), splat<Vec>(x)};
}
/// x as a T: a T as is, a double in every lane.
template <typename T> T asLanes(double x) { return splat<T>(x); }
template <typename T> T asLanes(T x) { return x; }

/// Consecutive values from p, and back.
template <typename T> T load(const double *p);
template <> inline double load<double>(const double *p) { return *p; }
template <> inline Vec load<Vec>(const double *p) {
  Vec r;
  __builtin_memcpy(&r, p, sizeof r);
  return r;
}
template <> inline Pack load<Pack>(const double *p) {
  return Pack{load<Vec>(p), load<Vec>(p + kVecLanes)};
}
inline void store(double *p, Vec x) { __builtin_memcpy(p, &x, sizeof x); }
inline void store(double *p, const Pack &x) {
  store(p, x.lo);
  store(p + kVecLanes, x.hi);
}

/// A candidate field for the lanes `at`: candidates at, at + 1, ... of the
/// table (an index), or index[0], index[1], ... (candidates picked for a
/// batch of their own).
template <typename T>
T loadField(const PreparedCandidates::Lanes &lanes, int at) {
  return load<T>(&lanes[at]);
}
template <typename T>
T loadField(const PreparedCandidates::Lanes &lanes, const int32_t *index);
template <>
inline double loadField<double>(const PreparedCandidates::Lanes &lanes,
                                const int32_t *index) {
  return lanes[index[0]];
}
template <>
inline Vec loadField<Vec>(const PreparedCandidates::Lanes &lanes,
                          const int32_t *index) {
  return Vec{lanes[index[0]], lanes[index[1]]};
}
template <>
inline Pack loadField<Pack>(const PreparedCandidates::Lanes &lanes,
                            const int32_t *index) {
  return Pack{loadField<Vec>(lanes, index),
              loadField<Vec>(lanes, index + kVecLanes)};
}

inline double select(bool c, double a, double b) { return c ? a : b; }
inline Vec select(bool c, Vec a, Vec b) { return c ? a : b; }
inline Pack select(bool c, Pack a, Pack b) { return c ? a : b; }
inline Vec select(VecMask c, Vec a, Vec b) { return c ? a : b; }
inline Pack select(PackMask c, Pack a, Pack b) {
  return Pack{select(c.lo, a.lo, b.lo), select(c.hi, a.hi, b.hi)};
}
/// select(c, a, f()), where f runs only if it can be selected: a condition
/// shared by all lanes (a bool) skips it.
template <typename T, typename F> T selectLazy(bool c, T a, F f) {
  return c ? a : f();
}
template <typename M, typename T, typename F> T selectLazy(M c, T a, F f) {
  return select(c, a, f());
}

/// std::min, std::max and std::clamp, lane by lane (same operands on ties
/// and NaN).
inline double minOf(double a, double b) { return std::min(a, b); }
inline double maxOf(double a, double b) { return std::max(a, b); }
#ifdef __SSE2__
// MINPD / MAXPD return their second operand unless the first is strictly
// smaller / larger: std::min(a, b) and std::max(a, b) with the operands
// swapped. GCC finds these instructions for selects between variables but
// not against a constant, which this model has many of (2^52, 1).
inline Vec minOf(Vec a, Vec b) { return Vec(_mm_min_pd(b, a)); }
inline Vec maxOf(Vec a, Vec b) { return Vec(_mm_max_pd(b, a)); }
#else
inline Vec minOf(Vec a, Vec b) { return select(b < a, b, a); }
inline Vec maxOf(Vec a, Vec b) { return select(a < b, b, a); }
#endif
inline Pack minOf(Pack a, Pack b) {
  return Pack{minOf(a.lo, b.lo), minOf(a.hi, b.hi)};
}
inline Pack maxOf(Pack a, Pack b) {
  return Pack{maxOf(a.lo, b.lo), maxOf(a.hi, b.hi)};
}
template <typename T> T clampTo(T v, T low, T high) {
  return minOf(maxOf(v, low), high);
}

inline bool allOf(bool c) { return c; }
inline bool allOf(VecMask c) { return c[0] & c[1]; }
inline bool allOf(PackMask c) { return allOf(c.lo & c.hi); }
inline bool anyOf(bool c) { return c; }
inline bool anyOf(VecMask c) { return c[0] | c[1]; }
inline bool anyOf(PackMask c) { return anyOf(c.lo | c.hi); }

inline double sqrtOf(double x) { return std::sqrt(x); }
inline Vec sqrtOf(Vec x) {
  for (int l = 0; l < kVecLanes; ++l)
    x[l] = std::sqrt(x[l]);
  return x;
}
inline Pack sqrtOf(Pack x) { return Pack{sqrtOf(x.lo), sqrtOf(x.hi)}; }

/// 2^52: every double from here on is a whole number.
constexpr double kWholeFrom = 4503599627370496.0;

/// A whole number within 1 of x >= 0: (x + 2^52) - 2^52 below 2^52 (the
/// nearest in the default rounding mode, a neighbour in any other), and x
/// itself from there, where (x + x) - x is exact (below 2^1023).
template <typename T> T roundToWhole(T x) {
  static_assert(FLT_EVAL_METHOD == 0,
                "x87 excess precision would keep x + 2^52 unrounded");
  T magic = maxOf(x, splat<T>(kWholeFrom));
  return (x + magic) - magic;
}

/// std::floor / std::ceil for non-negative values below 2^1023, exactly.
/// Baseline x86-64 has no rounding instruction (SSE4.1) and no vector
/// double-to-int64 conversion (AVX-512DQ): the std functions are libm calls
/// there, and a round trip through int64 has no pack form. This is adds, a
/// compare and selects.
template <typename T> T floorNonNegative(T x) {
  T r = roundToWhole(x);
  return r - select(r > x, splat<T>(1.0), splat<T>(0.0));
}
template <typename T> T ceilNonNegative(T x) {
  T r = roundToWhole(x);
  return r + select(r < x, splat<T>(1.0), splat<T>(0.0));
}

/// ceil(a / b) for whole numbers a >= 0 and b >= 1 held in doubles, given
/// 1 / b: a multiply where a division would sit on the critical path.
/// a * (1 / b) is within two ulps of the quotient, so the nearest whole
/// number r is the ceiling, or the floor where the quotient is not whole,
/// which r * b < a tells apart. Exact while the quotient is below 2^40 and
/// r * b below 2^53 (relative error 2^-51 beyond), in the default rounding
/// mode like the rest of the model. With b = 1 it returns a, for every a.
template <typename A, typename B> auto ceilDiv(A a, B b, B invB) {
  auto r = roundToWhole(a * invB);
  using R = decltype(r);
  return r + select(r * b < a, splat<R>(1.0), splat<R>(0.0));
}

/// floor(a / b) likewise, under the same conditions.
template <typename A, typename B> auto floorDiv(A a, B b, B invB) {
  auto r = roundToWhole(a * invB);
  using R = decltype(r);
  return r - select(r * b > a, splat<R>(1.0), splat<R>(0.0));
}

/// The tiles one wave of `waveTiles` covers with grouped rasterization:
/// wn columns by wm rows of the tilesM x tilesN grid, roughly square in
/// elements (`aspect` = tile M / tile N).
template <typename T> T waveColumns(T waveTiles, T aspect, T tilesN) {
  return clampTo(floorNonNegative(sqrtOf(waveTiles * aspect) + 0.5),
                 splat<T>(1.0), tilesN);
}
/// The rows, given the columns and 1 / wn.
template <typename T> T waveRows(T waveTiles, T wn, T invWn, T tilesM) {
  // floor(waveTiles / wn): a wave is far below where floorDiv is inexact.
  return clampTo(floorDiv(waveTiles, wn, invWn), splat<T>(1.0), tilesM);
}

/// Shapes of a batch with a shape per lane: lane i is (b, m[i], n[i],
/// k[i]), b shared (the parts of a patch, the shapes padded to each tile).
struct ShapeLanes {
  double m[kMaxPreparedCandidates];
  double n[kMaxPreparedCandidates];
  double k[kMaxPreparedCandidates];
};

/// The model for the candidate(s) `at` of `c` (see loadField; one, or a
/// pack) on (bd, md, nd, kd), all dims >= 1: doubles for one shape in every
/// lane, packs for a shape per lane. `Cpu` is the table's `cpu`. Without
/// `Footprint` the caller guarantees that both operands fit the shared
/// cache (then every operand is read once, and the rasterization footprint
/// need not be computed); with it the result is the same where they fit.
/// `terms` only for T = double.
template <typename T, bool Cpu, bool Footprint, typename At, typename S>
inline T evaluateLane(const PreparedTable &t, const PreparedCandidates &c,
                      At at, double bd, S md, S nd, S kd, TermArray *terms) {
  auto field = [at](const PreparedCandidates::Lanes &lanes) {
    return loadField<T>(lanes, at);
  };
  const T one = splat<T>(1.0);
  // Tile grid and the extent actually computed (padded to the granularity:
  // the tile on GPUs, the register block on CPUs, where K is not padded).
  T tileMFull = field(c.tileM), tileNFull = field(c.tileN);
  T splitK = field(c.splitK);
  T tilesM = ceilDiv(md, tileMFull, field(c.invTileM));
  T tilesN = ceilDiv(nd, tileNFull, field(c.invTileN));
  T tiles = bd * tilesM * tilesN * splitK;

  // DRAM reads. The tiles of one wave cover a roughly square footprint of
  // wm x wn tiles (grouped rasterization), so A is read once per footprint
  // column group and B once per row group, unless the operand stays in L2
  // (GPU) / L3 (CPU) across waves. Computed early: it can be the longest
  // chain of dependent operations, which the independent work below may
  // then overlap.
  double eb = t.elemBytes;
  T readsA = one, readsB = one;
  T latency = splat<T>(t.cacheLatencyUs);
  auto aFits = md * kd * eb <= t.sharedCacheBytes;
  auto bFits = kd * nd * eb <= t.sharedCacheBytes;
  if constexpr (Footprint) {
    // The footprint's wn columns and wm rows, and their reciprocals, in
    // three cases, each exact:
    //  - at least a wave of tiles, with room along N for a full wave's
    //    footprint: prepared with the table (no square root, no division);
    //  - at least a wave on a grid narrower than that: the full wave's
    //    columns clamped to the grid's (what waveColumns would give, without
    //    its square root), and the rows computed;
    //  - fewer tiles than a wave: computed; wm is then all of the grid's
    //    rows (tiles / wn >= tilesM), where 1 / wm is not needed.
    // The computed values equal the prepared ones where both apply.
    T wave = field(c.waveTiles);
    T wn = field(c.fullWaveN), wm = field(c.fullWaveM);
    T invWn = field(c.invFullWaveN), invWm = field(c.invFullWaveM);
    auto fullWave = tiles >= wave;
    if (!allOf(fullWave & (wn <= tilesN))) {
      T waveTiles = minOf(tiles, wave);
      T fullWaveN = minOf(wn, tilesN);
      wn = allOf(fullWave)
               ? fullWaveN
               : select(
                     fullWave, fullWaveN,
                     waveColumns(waveTiles, field(c.footprintAspect), tilesN));
      invWn = 1.0 / wn;
      wm = waveRows(waveTiles, wn, invWn, tilesM);
      if (anyOf(fullWave & (tilesN < field(c.fullWaveN))))
        invWm = 1.0 / wm;
    }
    // Where wm is all of the grid's rows, B is read once (and invWm may
    // belong to the full wave): ceil(tilesM / tilesM).
    readsA = selectLazy(aFits, one, [&] { return ceilDiv(tilesN, wn, invWn); });
    readsB = selectLazy(bFits, one, [&] {
      return select(tilesM <= wm, one, ceilDiv(tilesM, wm, invWm));
    });
    latency = select(aFits & bFits, latency, splat<T>(t.dramLatencyUs));
  }

  // Tables without split-K (the default candidates) skip its arithmetic;
  // ceilDiv(kd, 1, 1) is kd either way.
  T kPerSplit =
      t.splitK ? ceilDiv(kd, splitK, field(c.invSplitK)) : asLanes<T>(kd);
  // `workN`: the columns computed, counting the block at the N edge by its
  // time (GPUs compute whole tiles).
  T paddedM, paddedN, paddedK, workN;
  if constexpr (Cpu) {
    T granM = field(c.granM), granN = field(c.granN);
    paddedM = ceilDiv(md, granM, field(c.invGranM)) * granM;
    paddedN = ceilDiv(nd, granN, field(c.invGranN)) * granN;
    paddedK = kPerSplit;
    // Rows past M are computed with the block's others; at the N edge only
    // the vectors that hold columns are (emitEdgeAwareMicroKernel), at the
    // cost of a block of that width (PreparedCandidates::edge*).
    T wholeBlocks = floorDiv(nd, granN, field(c.invGranN));
    T edgeCols = nd - wholeBlocks * granN;
    T edgeVectors =
        ceilDiv(edgeCols, field(c.vectorCols), field(c.invVectorCols));
    T edgeWork = maxOf(
        maxOf(edgeVectors * field(c.edgeFmaCols), field(c.edgeLatencyCols)),
        field(c.edgeLoadCols) + edgeVectors * field(c.edgeLoadColsPerVector));
    workN =
        wholeBlocks * granN + select(edgeCols > 0.0, edgeWork, splat<T>(0.0));
  } else {
    T tileK = field(c.tileK);
    paddedM = tilesM * tileMFull;
    paddedN = workN = tilesN * tileNFull;
    paddedK = ceilDiv(kPerSplit, tileK, field(c.invTileK)) * tileK;
  }
  // The largest tile: a whole one, or all of a dimension shorter than it.
  T tileM = minOf(tileMFull, paddedM);
  T tileN = minOf(tileNFull, paddedN);
  T workTileN = minOf(tileNFull, workN);
  double cus = t.computeUnits;

  // Waves: the busiest compute unit runs `rounds` tiles, sharing its
  // throughput between the ones resident at the same time. Too few resident
  // warps leave the pipelines idle (latency).
  T rounds = ceilDiv(tiles, cus, t.invComputeUnits);
  // Stream-K: G blocks (at most one per unit) share U = tiles x K steps
  // units; the busiest compute unit holds ceil(G / CUs) blocks of ceil(U /
  // G) units each: its rounds, in tiles, are fractional. Its blocks are
  // all resident at once.
  T streamK = splat<T>(0.0), gridBlocksPerCU = splat<T>(0.0);
  T streamWorkers = splat<T>(1.0), overheadRounds = rounds;
  if constexpr (!Cpu) {
    if (t.streamK) {
      streamK = field(c.streamK);
      T kSteps = maxOf(ceilDiv(kd, field(c.tileK), field(c.invTileK)), one);
      T units = tiles * kSteps;
      streamWorkers = maxOf(minOf(streamK, units), one);
      T unitsPerBlock = ceilDiv(units, streamWorkers, 1.0 / streamWorkers);
      gridBlocksPerCU = ceilDiv(streamWorkers, cus, t.invComputeUnits);
      rounds = select(streamK > 0.0, unitsPerBlock * gridBlocksPerCU / kSteps,
                      rounds);
      // Each segment (a block's part of one tile) has a tile's prologue
      // and epilogue: a block's units span ceil(units / steps) + 1 tiles at
      // most, and no more segments than units.
      T segments = minOf(ceilDiv(unitsPerBlock, kSteps, 1.0 / kSteps) + 1.0,
                         unitsPerBlock);
      overheadRounds =
          select(streamK > 0.0, gridBlocksPerCU * segments, overheadRounds);
      // The G blocks start spread evenly over the tiles (row-major, as the
      // kernel numbers them) and each walks its own range, so at any time
      // they work on G tiles a range apart, not on a wave's compact
      // footprint: over the tiles / G periods, each touching min(rows, G)
      // of the grid's tile rows and min(columns, G) of its columns, an
      // operand that does not stay in L2 is read again every period.
      if constexpr (Footprint) {
        T periods = maxOf(tiles / streamWorkers, one);
        T rowsAll = bd * tilesM, colsAll = bd * tilesN;
        T streamReadsA = selectLazy(aFits, one, [&] {
          return periods * minOf(rowsAll, streamWorkers) / rowsAll;
        });
        T streamReadsB = selectLazy(bFits, one, [&] {
          return periods * minOf(colsAll, streamWorkers) / colsAll;
        });
        readsA = select(streamK > 0.0, maxOf(streamReadsA, one), readsA);
        readsB = select(streamK > 0.0, maxOf(streamReadsB, one), readsB);
      }
    }
  }
  // The busiest compute unit's part of a quantity summed over the tiles
  // (`total`; `largest` on the largest tile). GPU tiles are whole: rounds
  // of the largest. A CPU kernel's last cache block along M or N holds only
  // what is left: the busiest core runs rounds of the largest tiles, or, if
  // less, its share of the total and the imbalance one largest tile makes
  // (list scheduling's bound). On one core that is the total.
  T gridCopies = bd * splitK; // tiles of each (ic, jc)
  auto busiest = [&](T total, T largest) {
    if constexpr (Cpu)
      return minOf(rounds * largest, gridCopies * total * t.invComputeUnits +
                                         largest * (1.0 - t.invComputeUnits));
    else
      return rounds * largest;
  };
  T blocksPerCU = field(c.blocksPerCU);
  T resident = minOf(blocksPerCU, rounds);
  if constexpr (!Cpu)
    if (t.streamK)
      resident =
          select(streamK > 0.0, minOf(blocksPerCU, gridBlocksPerCU), resident);
  // Where every lane has its full complement of resident blocks (large
  // grids), 1 / resident is prepared with the table: no division.
  T invResident =
      allOf(resident >= blocksPerCU) ? field(c.invBlocksPerCU) : 1.0 / resident;
  // latency = min(1, resident x latencyWarps); its reciprocal, without a
  // further division.
  T invLatency;
  if constexpr (Cpu)
    invLatency = one;
  else
    invLatency = maxOf(one, field(c.invLatencyWarps) * invResident);
  T computeRaw = busiest(paddedM * workN, tileM * workTileN) * 2.0 * paddedK *
                 field(c.usPerFlop) * invLatency;
  if constexpr (Cpu) {
    // An A block read in place is read again for every register-block
    // column; beyond the prefetchers' reach each of the mr rows a register
    // block starts stalls it. The part beyond grows in from the reach to
    // twice it (tileM x kc bytes; f32 only, packsA = 0).
    T kc = minOf(field(c.tileK), paddedK);
    T beyondReach =
        clampTo(tileM * kc * (t.elemBytes * t.invInPlaceAReachBytes) - 1.0,
                splat<T>(0.0), one) *
        (1.0 - field(c.packsA));
    T kBlocks = ceilDiv(paddedK, field(c.tileK), field(c.invTileK));
    T invNr = field(c.invGranN);
    T rowStarts =
        busiest(paddedM * paddedN * invNr, tileM * tileN * invNr) * kBlocks;
    computeRaw = computeRaw + rowStarts * beyondReach * t.usPerRowStartStall;
  }

  // On-chip traffic and, on CPUs, packing.
  T onChipRaw, packRaw = splat<T>(0.0);
  if constexpr (Cpu) {
    // The A block streams from L2 once per register-block column, the B
    // panel once. Packing reads the source and writes f32; A is not packed
    // by configurations that read it in place (packsA).
    T invNr = field(c.invGranN), packsA = field(c.packsA);
    T streamed = busiest(paddedM * paddedN * invNr + tilesM * paddedN,
                         tileM * tileN * invNr + tileN);
    onChipRaw = streamed * paddedK * 4.0 * t.usPerOnChipByte;
    // Per tile, as the parallel kernel packs. The sequential one packs each
    // B panel once for all of M's cache blocks; charging it per tile
    // measured better (docs/cost-model.md "CPU tiles").
    T packed = busiest(paddedM * tilesN * packsA + tilesM * paddedN,
                       tileM * packsA + tileN);
    packRaw = packed * paddedK * (t.elemBytes + 4.0) * t.usPerOnChipByte;
  } else {
    onChipRaw =
        rounds * paddedK *
        (tileM * field(c.onChipUsPerKA) + tileN * field(c.onChipUsPerKB));
  }

  // Reads of 1 leave the compulsory traffic: every operand read once.
  T dramBytes = bd * eb * (md * kd * readsA + kd * nd * readsB + md * nd);
  // Partial sums, stored as f32 and read back once each. Split-K: every
  // split of every tile.
  T partialBytes = splat<T>(0.0);
  if (t.splitK)
    partialBytes =
        select(splitK > 1.0, bd * md * nd * 4.0 * 2.0 * splitK, partialBytes);
  // Stream-K: each of the G - 1 boundaries between blocks' ranges that
  // falls inside a tile shares it, and each shared tile's contributors
  // store f32 partial sums, read back once: at most (G - 1) + min(tiles,
  // G - 1) partial tiles.
  if constexpr (!Cpu)
    if (t.streamK) {
      T boundaries = streamWorkers - 1.0;
      T partialTiles = boundaries + minOf(tiles, boundaries);
      partialBytes =
          select(streamK > 0.0, partialTiles * tileMFull * tileNFull * 8.0,
                 partialBytes);
    }
  // Partials whose stores fit in the cache's share are read back from L2,
  // at its rate where the target gives one (the write-back of their dirty
  // lines after the kernel overlaps the next one and is not priced); the
  // rest make the round trip to DRAM.
  T partialUs =
      partialBytes * select(partialBytes * 0.5 <= t.sharedCacheBytes,
                            splat<T>(t.usPerL2Byte), splat<T>(t.usPerDramByte));
  // A compute unit streams its tiles' operands no faster than its requests
  // in flight allow (Little's law: bytes in flight / latency), which is what
  // bounds grids with few tiles. A CPU core pulls a bounded share.
  T latencyBound;
  if constexpr (Cpu) {
    latencyBound = busiest(paddedM * tilesN + tilesM * paddedN, tileM + tileN) *
                   paddedK * eb * cus * t.usPerDramByte / kCpuBandwidthShare;
  } else {
    T tileBytes = (tileM + tileN) * paddedK * eb;
    latencyBound =
        rounds * tileBytes * field(c.invInFlightBytes) * latency * invResident;
  }
  T memoryRaw = maxOf(dramBytes * t.usPerDramByte + partialUs, latencyBound);

  T compute = computeRaw * t.invComputeEfficiency;
  T onChip = onChipRaw * t.invComputeEfficiency;
  T pack = packRaw * t.invComputeEfficiency;
  T memory = memoryRaw * t.invMemoryEfficiency;
  T chip = maxOf(compute, onChip) + pack;
  // Stages and co-resident blocks let loads for later k-steps (or tiles)
  // run under the math of the current one. CPUs pack, then compute.
  T exposed; // 1 - overlap
  if constexpr (Cpu)
    exposed = one;
  else
    exposed = field(c.invStages) * invResident;
  T body = maxOf(chip, memory) + exposed * minOf(chip, memory);
  T tileOverhead = overheadRounds * t.tileOverheadUs;
  // A GPU split-K candidate is one launch: the last block of each tile to
  // arrive sums its partial sums (lib/Conversion/UKernelToGPU/
  // SplitKFixup.cpp), whose traffic is priced above. A grid's z
  // walks (matrix, split) and holds at most 65535: a larger batch is
  // launched in chunks of floor(65535 / splits) matrices
  // (LaunchExpansion.cpp), a launch each.
  T launchUs = splat<T>(t.launchUs);
  if constexpr (!Cpu) {
    if (t.splitK) {
      if (anyOf(bd * splitK > kMaxGridZ)) {
        T perLaunch = floorDiv(splat<T>(kMaxGridZ), splitK, field(c.invSplitK));
        launchUs = launchUs * ceilDiv(splat<T>(bd), perLaunch, 1.0 / perLaunch);
      }
    } else if (bd > kMaxGridZ) {
      launchUs = launchUs * std::ceil(bd / kMaxGridZ);
    }
  }
  T total = launchUs + tileOverhead + body;

  if constexpr (std::is_same_v<T, double>) {
    if (terms) {
      TermArray &a = *terms;
      a[int(Term::Tiles)] = tiles;
      a[int(Term::Waves)] = tiles / (cus * field(c.blocksPerCU));
      // (Stream-K: U / (ceil(U / G) x ceil(G / CUs) x CUs).)
      a[int(Term::WaveEfficiency)] = tiles / (rounds * cus);
      a[int(Term::PaddingWaste)] =
          1.0 - (md * nd * kd) / (paddedM * workN * paddedK * splitK);
      a[int(Term::Occupancy)] = field(c.occupancy);
      a[int(Term::ActiveCUFraction)] =
          std::min(streamK > 0.0 ? streamWorkers : tiles, cus) / cus;
      a[int(Term::IssueEfficiency)] = field(c.issueEfficiency) / invLatency;
      a[int(Term::ComputeUs)] = compute;
      a[int(Term::OnChipUs)] = onChip;
      a[int(Term::PackUs)] = pack;
      a[int(Term::DramMB)] = dramBytes * 1e-6;
      a[int(Term::PartialMB)] = partialBytes * 1e-6;
      a[int(Term::MemoryUs)] = memory;
      a[int(Term::Overlap)] = 1.0 - exposed;
      a[int(Term::TileOverheadUs)] = tileOverhead;
      a[int(Term::LaunchUs)] = launchUs;
      a[int(Term::TotalUs)] = total;
    }
  }
  return total;
}

/// Whether both operands of (m, n, k) stay in the shared cache. The
/// products are monotone in each extent, so a batch whose largest m and n
/// fit has every lane fit.
inline bool operandsFit(const PreparedTable &t, double md, double nd,
                        double kd) {
  return md * kd * t.elemBytes <= t.sharedCacheBytes &&
         kd * nd * t.elemBytes <= t.sharedCacheBytes;
}

/// One candidate, with its breakdown if `terms`: the path of `explain`,
/// `predict` and `evaluateCandidate`.
inline double evaluateOne(const PreparedTable &t, const PreparedCandidates &c,
                          int i, const GemmShape &shape, TermArray *terms) {
  if (shape.b <= 0 || shape.m <= 0 || shape.n <= 0 || shape.k <= 0) {
    if (terms)
      terms->fill(0.0);
    return 0.0;
  }
  double bd = double(shape.b), md = double(shape.m), nd = double(shape.n),
         kd = double(shape.k);
  // With the footprint computed either way: the same result as the batch,
  // which skips it only where it would read every operand once.
  return t.cpu
             ? evaluateLane<double, true, true>(t, c, i, bd, md, nd, kd, terms)
             : evaluateLane<double, false, true>(t, c, i, bd, md, nd, kd,
                                                 terms);
}

} // namespace detail
} // namespace quilt

#endif // QUILT_LIB_COSTMODEL_EVALUATE_H
