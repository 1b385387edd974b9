//===- GpuSharedMemory.cpp - A GPU kernel's workgroup memory, in bytes ----===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/GpuSharedMemory.h"

using namespace quilt;

namespace {

/// A tile of `outer` x `tileK` elements, K-contiguous or not, in `format`:
/// its buffer shape, with its logical row count in `logicalRows` and its
/// swizzle panel (0: padded) in `panelElems`.
std::array<int64_t, 2> tileShape(int64_t outer, int64_t tileK, bool kContiguous,
                                 const SharedTileFormat &format,
                                 int64_t &logicalRows, int64_t &panelElems) {
  int64_t rows = kContiguous ? outer : tileK;
  int64_t cols = kContiguous ? tileK : outer;
  logicalRows = rows;
  panelElems =
      swizzlePanelBytes(cols * format.elemBytes, format) / format.elemBytes;
  if (panelElems)
    return {rows * (cols / panelElems), panelElems};
  return {rows, cols + format.rowPad};
}

} // namespace

int64_t quilt::rowPadElems(InstKind engine) {
  switch (engine) {
  case InstKind::MmaSyncTf32:
    return 4;
  case InstKind::MmaSyncF16:
  case InstKind::Mfma32x32x8:
  case InstKind::Mfma16x16x16:
  case InstKind::Wmma16x16x16:
    return 8;
  case InstKind::SimtFma:
  case InstKind::Wgmma:
  case InstKind::CpuFma:
    return 0;
  }
  return 0;
}

int64_t quilt::swizzlePanelBytes(int64_t rowBytes,
                                 const SharedTileFormat &format) {
  if (!format.swizzleBytes || rowBytes <= 0)
    return 0;
  if (rowBytes % format.swizzleBytes == 0)
    return format.swizzleBytes;
  // A narrower row is its own panel when its 16-byte chunks are a power of
  // two of at least two, so that XOR permutes them among themselves.
  if (rowBytes < format.swizzleBytes && (rowBytes == 32 || rowBytes == 64))
    return rowBytes;
  return 0;
}

SharedTileFormat quilt::sharedTileFormat(const KernelConfig &cfg,
                                         ElemType input) {
  SharedTileFormat format;
  switch (cfg.inst) {
  case InstKind::SimtFma:
  case InstKind::CpuFma:
    // SIMT tiles and CPU panels hold the compute type, unpadded.
    format.elemBytes = computeBytes(input);
    return format;
  case InstKind::MmaSyncTf32:
    format.elemBytes = 4;
    format.rowPad = rowPadElems(cfg.inst);
    return format;
  case InstKind::Wgmma:
    if (cfg.tileK * elemBytes(input) == kSwizzlePanelBytes) {
      format.elemBytes = elemBytes(input);
      format.swizzleBytes = kSwizzlePanelBytes;
      format.alignment = 1024;
      return format;
    }
    // Otherwise issued as mma.sync m16n8k16, from its tiles.
    [[fallthrough]];
  case InstKind::MmaSyncF16:
    // Read with ldmatrix: XOR-swizzled where the rows allow.
    format.elemBytes = elemBytes(input);
    format.rowPad = rowPadElems(InstKind::MmaSyncF16);
    format.swizzleBytes = kSwizzlePanelBytes;
    format.alignment = kSwizzlePanelBytes;
    return format;
  case InstKind::Mfma32x32x8:
  case InstKind::Mfma16x16x16:
  case InstKind::Wmma16x16x16:
    format.elemBytes = elemBytes(input);
    format.rowPad = rowPadElems(cfg.inst);
    return format;
  }
  return format;
}

SharedStageLayout::SharedStageLayout(const KernelConfig &cfg, bool aKContiguous,
                                     bool bKContiguous,
                                     const SharedTileFormat &format) {
  alignment = format.alignment;
  aShape =
      tileShape(cfg.tileM, cfg.tileK, aKContiguous, format, aRows, aPanelElems);
  bShape =
      tileShape(cfg.tileN, cfg.tileK, bKContiguous, format, bRows, bPanelElems);
  bOffset = alignUp(aShape[0] * aShape[1] * format.elemBytes);
  bytes = bOffset + bShape[0] * bShape[1] * format.elemBytes;
}

int64_t SharedStageLayout::kernelBytes(int64_t stages,
                                       int64_t barrierBytes) const {
  if (barrierBytes)
    return alignmentSlack() + stages * (stageBytes() + barrierBytes);
  return alignmentSlack() + (stages == 1 ? bytes : stages * stageBytes());
}
