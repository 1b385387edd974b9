//===- CostModel.h - Interpretable analytic cost model --------------------===//
//
// Part of the Quilt project. Predicts the run time of one micro-kernel
// configuration on one (batched) GEMM shape as a combination of named terms:
//
//   total = launch + tile_overhead
//         + max(chip, memory) + (1 - overlap) * min(chip, memory)
//   chip  = max(compute, onchip) + pack
//
// where compute is the work of the busiest compute unit (wave-quantized,
// padded to the tile) at the instruction's peak, onchip the shared-memory /
// LDS (GPU) or L2-to-L1 (CPU) traffic, memory the DRAM traffic after tile
// reuse and L2, and overlap what the pipeline stages and co-resident blocks
// hide. docs/cost-model.md gives every formula.
//
// Two entry points: `predict` for one configuration with the full breakdown
// (explain, tests), and a PreparedTable built once per (candidate set,
// target, element type) whose `selectKernel` evaluates every candidate for a
// shape in well under a microsecond: no allocation, no strings, no virtual
// calls, tens of flops per candidate. The runtime dispatcher calls the same
// function through the C ABI in Dispatch.h, so what the compiler predicts is
// what the runtime picks.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_COSTMODEL_H
#define QUILT_COSTMODEL_COSTMODEL_H

#include "CostModel/Calibration.h"
#include "CostModel/KernelConfig.h"
#include "CostModel/Target.h"
#include "CostModel/TunedRegion.h"
#include "CostModel/Workload.h"

#include <array>
#include <string>
#include <vector>

namespace quilt {

/// The named terms of a prediction. Times are microseconds.
enum class Term : uint8_t {
  Tiles,            ///< blocks launched: B x ceil(M/TM) x ceil(N/TN) x splitK
  Waves,            ///< tiles / (CUs x resident blocks per CU)
  WaveEfficiency,   ///< tiles / (ceil(tiles / CUs) x CUs)
  PaddingWaste,     ///< fraction of computed work outside the problem
  Occupancy,        ///< resident threads / max threads per CU
  ActiveCUFraction, ///< compute units with at least one tile
  IssueEfficiency,  ///< fraction of peak the inner loop can issue
  ComputeUs,        ///< busiest CU's math at peak x efficiencies
  OnChipUs,         ///< shared memory / LDS (GPU), L2 -> L1 (CPU) traffic
  PackUs,           ///< CPU packing of A and B blocks; 0 on GPUs
  DramMB,           ///< DRAM traffic after tile reuse and L2/L3 hits
  PartialMB,        ///< split-K / stream-K f32 partial sums, stored + read
  MemoryUs,         ///< DRAM traffic over the achievable bandwidth
  Overlap,          ///< fraction of the shorter of chip/memory hidden
  TileOverheadUs,   ///< fixed cost per tile a CU runs in sequence
  LaunchUs,         ///< fixed cost per launch
  TotalUs,          ///< the prediction
};
inline constexpr int kNumTerms = 17;
using TermArray = std::array<double, kNumTerms>;

/// snake_case names, as printed by `quiltc explain` and in JSON.
const char *termName(Term term);
const char *termName(int term);

struct Prediction {
  double totalUs = 0;
  TermArray terms{};
  double operator[](Term t) const { return terms[static_cast<int>(t)]; }
};

/// Full breakdown for one configuration, with the target's calibration (or
/// the given one). The configuration should pass checkForTarget; invalid
/// ones are predicted as well as the numbers allow and never produce NaN.
/// Negative dims must be rejected beforehand (checkGemmShape); here they
/// count as 0.
Prediction predict(const GemmShape &shape, ElemType elem,
                   const KernelConfig &cfg, const TargetDesc &target);
Prediction predict(const GemmShape &shape, ElemType elem,
                   const KernelConfig &cfg, const TargetDesc &target,
                   const Calibration &calibration);

/// The rows of tiles one full wave of `cfg`'s blocks covers in the
/// footprint the model prices its operand reads by (roughly square in
/// elements, grouped rasterization): a GPU kernel of whole tiles walks its
/// grid in groups of this many tile rows, column after column, so that
/// each wave reads that footprint. At least 1.
int64_t waveFootprintRows(const KernelConfig &cfg, ElemType elem,
                          const TargetDesc &target);

//===----------------------------------------------------------------------===//
// Prepared tables and selection
//===----------------------------------------------------------------------===//

/// Most candidates a prepared table holds (pruning keeps 16 by default).
inline constexpr int kMaxPreparedCandidates = 64;
/// Most distinct tile sizes per dimension considered as a patch's main tile.
inline constexpr int kMaxPatchGroups = 8;
/// Most tuned regions (TunedRegion.h) a prepared table holds.
inline constexpr int kMaxTunedRegions = 64;

/// Everything about the candidates that does not depend on the shape, one
/// array per quantity (structure of arrays, indexed by candidate): the
/// selection loop reads consecutive candidates with vector loads and
/// evaluates several per instruction. Every candidate of a table shares the
/// table's `cpu`.
struct PreparedCandidates {
  using Lanes = std::array<double, kMaxPreparedCandidates>;
  // Tile sizes as doubles: the model's arithmetic is floating point so that
  // no integer division sits on the selection path.
  Lanes tileM, tileN, tileK, splitK;
  Lanes invTileM, invTileN, invTileK, invSplitK;
  /// Stream-K: the grid's blocks (0: none).
  Lanes streamK;
  /// Granularity the computed extent is padded to on CPUs: the register
  /// block (the cache block's edge is not padded). GPUs pad to the tile.
  Lanes granM, granN, invGranM, invGranN;
  Lanes usPerFlop; ///< 1 / (per-CU instruction peak x issue efficiency)
  /// Warps needed per CU to hide latency / warps per block: one block alone
  /// reaches 1 / invLatencyWarps of the issue rate (capped at 1).
  Lanes invLatencyWarps;
  Lanes issueEfficiency;
  Lanes blocksPerCU, invBlocksPerCU;
  Lanes waveTiles; ///< computeUnits x blocksPerCU: tiles resident at once
  Lanes occupancy;
  Lanes stages, invStages;
  /// GPU on-chip time per unit of K per row of A / column of B in a tile:
  /// read by every warp column/row plus the store into shared memory.
  Lanes onChipUsPerKA, onChipUsPerKB;
  /// tileM / tileN: shapes the square footprint of one wave of tiles.
  Lanes footprintAspect;
  /// Rows and columns of tiles a full wave covers where the grid has room,
  /// and their reciprocals.
  Lanes fullWaveM, fullWaveN, invFullWaveM, invFullWaveN;
  /// 1 / operand bytes one block keeps in flight (all pipeline stages).
  Lanes invInFlightBytes;
  /// CPUs: 1 where the kernels pack A's blocks, 0 where they read A in
  /// place (cpuReadsAInPlace).
  Lanes packsA;
  /// CPUs: the register block at the N edge multiplies only the vectors
  /// that hold columns (vectorCols each), and takes
  ///   max(v x edgeFmaCols, edgeLatencyCols, edgeLoadCols + v x
  ///   edgeLoadColsPerVector)
  /// for v such vectors, in columns of a whole block's time: the longest of
  /// its FMAs, one FMA's latency and its loads (cpuBlockCycles).
  Lanes vectorCols, invVectorCols;
  Lanes edgeFmaCols, edgeLatencyCols, edgeLoadCols, edgeLoadColsPerVector;
};

enum class SelectionPolicy : uint8_t { CostModel, Fixed, Pad, Patch };
std::string_view stringify(SelectionPolicy p);
/// "cost-model", "pad", "patch", or "fixed=<index>".
bool parseSelectionPolicy(std::string_view s, SelectionPolicy &policy,
                          int &fixedIndex);

struct PreparedTable {
  // Target and calibration constants.
  double computeUnits = 1, invComputeUnits = 1;
  double usPerOnChipByte = 1; ///< per CU
  double usPerDramByte = 1;
  double dramBytesPerUs = 1;
  /// Partial sums that fit in the shared cache move at its rate (GPUs that
  /// give it); the rest at the DRAM rate.
  double usPerL2Byte = 1;
  double sharedCacheBytes = 0; ///< usable L2 (GPU) / L3 (CPU) for reuse
  double elemBytes = 4;
  /// Load latency a block's pipeline must cover, from DRAM and from L2.
  double dramLatencyUs = 0.6, cacheLatencyUs = 0.2;
  double invComputeEfficiency = 1, invMemoryEfficiency = 1;
  double launchUs = 0, tileOverheadUs = 0;
  /// CPU: 1 / the in-place A block the prefetchers keep close, and the
  /// stall of a row a register block starts beyond it (Evaluate.h).
  double invInPlaceAReachBytes = 0, usPerRowStartStall = 0;
  bool cpu = false;
  bool splitK = false;  ///< some candidate splits K
  bool streamK = false; ///< some candidate streams K

  SelectionPolicy policy = SelectionPolicy::CostModel;
  int32_t fixedIndex = 0;

  int32_t count = 0;
  PreparedCandidates candidates{};

  /// Candidates grouped by tile M (resp. N), for patch search.
  int32_t numGroupsM = 0, numGroupsN = 0;
  std::array<int64_t, kMaxPatchGroups> groupTileM{}, groupTileN{};
  std::array<uint64_t, kMaxPatchGroups> groupMaskM{}, groupMaskN{};

  /// Tuned regions (addTunedRegions): bounds on b, m, n, k, the geometric
  /// centre of each dimension's range, and the candidate measured fastest.
  int32_t tunedCount = 0;
  std::array<std::array<int64_t, 4>, kMaxTunedRegions> tunedLower{},
      tunedUpper{};
  std::array<std::array<double, 4>, kMaxTunedRegions> tunedCentre{};
  std::array<int32_t, kMaxTunedRegions> tunedCandidate{};
};

/// Builds the table. Fails (returning false with `error`) when there are no
/// or too many candidates, or one does not pass checkForTarget.
bool prepareTable(const std::vector<KernelConfig> &candidates, ElemType elem,
                  const TargetDesc &target, const Calibration &calibration,
                  PreparedTable &table, std::string &error);

/// Adds a dispatch's tuned regions to a prepared table. Fails (false with
/// `error`) when there are more than kMaxTunedRegions, a region's bounds
/// are unusable or its candidate is not in the table.
bool addTunedRegions(const std::vector<TunedRegion> &regions,
                     PreparedTable &table, std::string &error);

enum class PatchDim : uint8_t { None, M, N };

struct Selection {
  int32_t candidate = 0;  ///< the kernel, or a patch's main kernel
  int32_t remainder = -1; ///< a patch's remainder kernel, else -1
  PatchDim patchDim = PatchDim::None;
  int64_t mainExtent = 0; ///< rows (M) / columns (N) the main kernel covers
  bool padded = false;    ///< operands padded to the tile (policy pad)
  double predictedUs = 0;
  double bestSingleUs = 0; ///< best single masked kernel, for comparison
  /// The tuned region that chose `candidate` (policy cost-model, shape
  /// inside it), else -1: the model chose.
  int32_t tunedRegion = -1;
};

enum class SelectStatus : int {
  Ok = 0,
  NullArgument = 1,
  NegativeDimension = 2,
  ShapeOverflow = 3,
  EmptyTable = 4,
  BadFixedIndex = 5,
};

/// Applies the table's policy to a shape. Zero-size dims select candidate 0
/// with a zero prediction. Under policy cost-model, a shape inside tuned
/// regions runs the candidate of the region whose centre is nearest (the
/// smallest product over dimensions of max(d / c, c / d)); the model
/// chooses for every other shape.
SelectStatus selectKernel(const PreparedTable &table, const GemmShape &shape,
                          Selection &out);

/// Time of candidate `index` on a shape, with its breakdown if `terms`.
double evaluateCandidate(const PreparedTable &table, int index,
                         const GemmShape &shape, TermArray *terms = nullptr);
/// Time of candidate `index` when the operands are first padded to its tile
/// (policy pad): the kernel runs unmasked on the padded shape, plus a copy
/// kernel each way.
double evaluatePadded(const PreparedTable &table, int index,
                      const GemmShape &shape);

/// Copy kernels on the device that move `bytes` (read plus written) in
/// `launches` launches: the launches' fixed cost and the bytes at the
/// achievable DRAM bandwidth.
double deviceCopyUs(const PreparedTable &table, double bytes, int launches);

/// What a GPU dispatch of a matmul or batch matmul spends on the aligned
/// copies of operands whose rows do not start on 16-byte boundaries
/// (lib/Conversion/UKernelToGPU/OperandRepack.cpp): A (b x m x k, pitch k)
/// where k elements are not a multiple of 16 bytes, B (b x k x n, pitch n)
/// where n is not, each read once and written with its rows padded, one
/// launch each. The kernels then read the copies with their aligned path.
/// A workload names no layout: operands are priced as stored row-major.
/// The same for every candidate that stages in vector runs (and so not a
/// term of any one); nothing on CPUs, for convolutions, on empty shapes or
/// when no candidate stages in runs (`stagesInRuns`).
struct OperandCopies {
  bool copiesA = false, copiesB = false;
  double bytes = 0; ///< read plus written
  double us = 0;
};
OperandCopies unalignedOperandCopies(const PreparedTable &table, OpKind op,
                                     const GemmShape &shape, bool stagesInRuns);

} // namespace quilt

#endif // QUILT_COSTMODEL_COSTMODEL_H
