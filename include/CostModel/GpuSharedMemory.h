//===- GpuSharedMemory.h - A GPU kernel's workgroup memory, in bytes ------===//
//
// Part of the Quilt project. How a GPU kernel lays out the operand tiles of
// a K step in workgroup memory, and how many bytes it asks for: one
// definition for the code generator, which builds the tiles from it
// (Conversion/UKernelToGPU/KernelBuilder.cpp), and for the cost model,
// which decides from it how many blocks share a compute unit
// (estimateResources). Plain C++, like the rest of the cost model.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_GPUSHAREDMEMORY_H
#define QUILT_COSTMODEL_GPUSHAREDMEMORY_H

#include "CostModel/KernelConfig.h"

#include <array>
#include <cstdint>

namespace quilt {

/// The widest rows tiles are swizzled in: one row of the 32 four-byte
/// banks, and wgmma's 128-byte swizzle mode.
inline constexpr int64_t kSwizzlePanelBytes = 128;

/// Elements a padded engine appends to each row of a tile, 16 bytes, so
/// that the rows of a fragment load start 4 banks apart and hit distinct
/// banks: 8 halves for mma.sync f16/bf16, MFMA and WMMA, 4 floats for tf32;
/// none for SIMT tiles and native wgmma's swizzled ones.
int64_t rowPadElems(InstKind engine);

/// How a matrix engine keeps an operand tile in workgroup memory.
struct SharedTileFormat {
  int64_t elemBytes = 4;
  /// Elements appended to each row of a tile that is not swizzled, so that
  /// the rows of a fragment load start in different banks.
  int64_t rowPad = 0;
  /// The widest panel of a swizzled tile in bytes (kSwizzlePanelBytes), 0
  /// for an engine that pads every tile. Which tiles swizzle, and in what
  /// panel: swizzlePanelBytes.
  int64_t swizzleBytes = 0;
  /// Where each stage's tiles start: 1024 bytes for wgmma, whose hardware
  /// takes the swizzle pattern from the address bits; 128 for the other
  /// swizzled tiles, whose kernels apply the pattern to an element's index
  /// among all the stages' (so a tile starts at a multiple of its panel);
  /// 16 (cp.async's) for padded ones.
  int64_t alignment = 16;
};

/// The panel, in bytes, a tile whose rows hold `rowBytes` bytes is
/// swizzled in, or 0 when it is padded instead. Rows of a multiple of 128
/// bytes take 128-byte panels; rows of 32 or 64 bytes (a K tile of 16 or
/// 32 halves) are their own panel, and rows of any other length are
/// padded. A swizzled tile (SharedTile in the code generator) stores its
/// logical [R][C] in panels of P = panel / elemBytes columns, panel p
/// holding columns [p P, (p + 1) P) of every row, with the 16-byte chunks
/// of each row XOR-permuted: logical (r, c) is at
///   buffer[(c / P) R + r][(c % P) ^ (((r / (8 / n)) % n) x chunk)]
/// for n = panel / 16 chunks a row and chunk = 16 bytes of elements. The 8
/// rows an 8x8 ldmatrix (or a wgmma core matrix) reads at one logical
/// chunk then cover 8 distinct 16-byte bank groups, with no padding: for
/// 128-byte panels this is wgmma's 128-byte swizzle (8 rows, one per 128
/// bytes); narrower panels hold 128 / panel rows in each 128 bytes and
/// permute their chunks every 128 / panel rows.
int64_t swizzlePanelBytes(int64_t rowBytes, const SharedTileFormat &format);

/// The format the code generator's engine for `cfg` uses with `input`
/// operands, the tiles in their stored layout (a K-contiguous A, an
/// N-contiguous B; SIMT tiles both K-major). The 16-bit mma.sync engine
/// swizzles the tiles ldmatrix reads; tf32 mma.sync (scalar fragment
/// loads), MFMA and WMMA pad. A wgmma configuration swizzles at wgmma's
/// alignment when its K tile is one 128-byte row, as the native
/// wgmma.mma_async kernels do; otherwise it is issued as mma.sync.
SharedTileFormat sharedTileFormat(const KernelConfig &cfg, ElemType input);

/// Shapes and byte offsets of a K step's two tiles, each at the format's
/// alignment.
struct SharedStageLayout {
  /// Buffer shapes (rows x elements a row) and logical row counts.
  std::array<int64_t, 2> aShape{}, bShape{};
  int64_t aRows = 0, bRows = 0;
  /// Each tile's swizzle panel in elements, 0 for a padded tile.
  int64_t aPanelElems = 0, bPanelElems = 0;
  int64_t bOffset = 0, bytes = 0, alignment = 16;

  SharedStageLayout(const KernelConfig &cfg, bool aKContiguous,
                    bool bKContiguous, const SharedTileFormat &format);

  int64_t alignUp(int64_t n) const {
    return (n + alignment - 1) / alignment * alignment;
  }
  /// Bytes of one stage in a ring of stages.
  int64_t stageBytes() const { return alignUp(bytes); }
  /// A layout aligned past 16 bytes (a swizzled one) asks for this much
  /// more memory and starts its tiles at the first `alignment` boundary in
  /// it.
  int64_t alignmentSlack() const { return alignment > 16 ? alignment : 0; }
  /// Dynamic workgroup memory of a kernel with `stages` stages, each
  /// followed by `barrierBytes` of mbarriers (a TMA kernel's).
  int64_t kernelBytes(int64_t stages, int64_t barrierBytes = 0) const;
};

/// Where a split-K kernel of `kernelBytes` keeps the word in which its
/// thread 0 tells the block that it arrived last at its tile
/// (lib/Conversion/UKernelToGPU/SplitKFixup.cpp): after everything else.
inline int64_t splitKFlagOffset(int64_t kernelBytes) {
  return (kernelBytes + 3) / 4 * 4;
}
/// A split-K kernel's dynamic workgroup memory, the word included.
inline int64_t withSplitKFlag(int64_t kernelBytes) {
  return splitKFlagOffset(kernelBytes) + 4;
}

} // namespace quilt

#endif // QUILT_COSTMODEL_GPUSHAREDMEMORY_H
