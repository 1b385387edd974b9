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

/// The rows native wgmma tiles are swizzled in (the 128-byte swizzle).
inline constexpr int64_t kWgmmaSwizzleBytes = 128;

/// Elements a padded engine appends to each row of a tile, 16 bytes, so
/// that the rows of a fragment load start 4 banks apart and hit distinct
/// banks: 8 halves for mma.sync f16/bf16, MFMA and WMMA, 4 floats for tf32;
/// none for SIMT tiles and native wgmma's swizzled ones.
int64_t rowPadElems(InstKind engine);

/// How a matrix engine keeps an operand tile in workgroup memory.
struct SharedTileFormat {
  int64_t elemBytes = 4;
  /// Elements appended to each row, so that the rows of a fragment load
  /// start in different banks (mma.sync, MFMA, WMMA).
  int64_t rowPad = 0;
  /// The 128-byte swizzle wgmma reads: the panel width in elements, 0 for
  /// none. Swizzled tiles have no padding.
  int64_t swizzleElems = 0;
};

/// The format the code generator's engine for `cfg` uses with `input`
/// operands, the tiles in their stored layout (a K-contiguous A, an
/// N-contiguous B; SIMT tiles both K-major). A wgmma configuration
/// swizzles when its K tile is one 128-byte row, as the native
/// wgmma.mma_async kernels do; otherwise it is issued as mma.sync.
SharedTileFormat sharedTileFormat(const KernelConfig &cfg, ElemType input);

/// Shapes and byte offsets of a K step's two tiles. Plain tiles start at
/// 16-byte boundaries (cp.async's); swizzled ones at 1024-byte boundaries,
/// where their swizzle pattern starts.
struct SharedStageLayout {
  /// Buffer shapes (rows x elements a row) and logical row counts.
  std::array<int64_t, 2> aShape{}, bShape{};
  int64_t aRows = 0, bRows = 0;
  int64_t bOffset = 0, bytes = 0, alignment = 16;

  SharedStageLayout(const KernelConfig &cfg, bool aKContiguous,
                    bool bKContiguous, const SharedTileFormat &format);

  int64_t alignUp(int64_t n) const {
    return (n + alignment - 1) / alignment * alignment;
  }
  /// Bytes of one stage in a ring of stages.
  int64_t stageBytes() const { return alignUp(bytes); }
  /// A swizzled layout asks for this much more memory and starts its tiles
  /// at the first `alignment` boundary in it.
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
