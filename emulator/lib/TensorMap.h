//===- TensorMap.h - CUtensorMap encoding and TMA tile loads ----*- C++ -*-===//
//
// Part of the Quilt project.
//
// The emulator owns the 128-byte CUtensorMap that cuTensorMapEncodeTiled
// fills and cp.async.bulk.tensor reads: its bytes are this file's encoding
// (with a magic number and checksum, so a kernel handed any other 128 bytes
// faults instead of loading garbage), not the hardware's.
//
// Validation follows the cuTensorMapEncodeTiled documentation in cuda.h
// (CUDA 12.x/13.x): ranks, alignments, stride, box and element-stride
// bounds, interleave/swizzle combinations and the OOB-fill restriction.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_TENSORMAP_H
#define QUILT_EMULATOR_TENSORMAP_H

#include "Swizzle.h"

#include <cstdint>
#include <functional>
#include <string>

namespace quilt::emu {

/// CUtensorMapDataType values (cuda.h), defined here so that the emulator
/// does not need the CUDA headers.
enum TensorMapDataType : uint32_t {
  TensorMapUInt8 = 0,
  TensorMapUInt16 = 1,
  TensorMapUInt32 = 2,
  TensorMapInt32 = 3,
  TensorMapUInt64 = 4,
  TensorMapInt64 = 5,
  TensorMapFloat16 = 6,
  TensorMapFloat32 = 7,
  TensorMapFloat64 = 8,
  TensorMapBFloat16 = 9,
  TensorMapFloat32Ftz = 10,
  TensorMapTFloat32 = 11,
  TensorMapTFloat32Ftz = 12,
  TensorMap16U4Align8B = 13,
  TensorMap16U4Align16B = 14,
  TensorMap16U6Align16B = 15,
};

/// CUtensorMapInterleave, CUtensorMapL2promotion and CUtensorMapFloatOOBfill.
enum : uint32_t {
  TensorMapInterleaveNone = 0,
  TensorMapInterleave16B = 1,
  TensorMapInterleave32B = 2,
  TensorMapL2PromotionMax = 3,
  TensorMapOobFillZero = 0,
  TensorMapOobFillNan = 1,
};

/// CUresult values encodeTensorMap returns.
enum : int { TensorMapSuccess = 0, TensorMapInvalidValue = 1 };

/// A tiled tensor map, decoded. Dimension 0 is the innermost.
struct TensorMap {
  uint32_t dataType; ///< A TensorMapDataType (CUtensorMapDataType) value.
  uint32_t elementBytes;
  uint32_t rank;
  uint64_t globalAddress;
  uint64_t globalDim[5];
  /// Bytes; [0] = elementBytes, [i] = cuTensorMapEncodeTiled's
  /// globalStrides[i - 1].
  uint64_t globalStride[5];
  uint32_t boxDim[5];
  uint32_t elementStride[5];
  uint32_t interleave;
  Swizzle swizzle;
  uint32_t l2Promotion;
  uint32_t oobFill;
};

/// The element size of a tensor-map data type in bytes, or 0 for the packed
/// sub-byte types and invalid values.
uint32_t tensorMapElementBytes(uint32_t DataType);

/// The CUtensorMapSwizzle value of S (NONE 0, 32B 1, 64B 2, 128B 3).
uint32_t tensorMapSwizzleEnum(Swizzle S);

/// Validates Map like cuTensorMapEncodeTiled and, if valid, writes its
/// encoding to Opaque128 (128 bytes, 64-byte aligned). Returns
/// TensorMapSuccess or TensorMapInvalidValue with *Why set. elementBytes may
/// be 0 (derived from dataType); otherwise it must match. The packed
/// sub-byte types are rejected (not emulated).
int encodeTensorMap(const TensorMap &Map, void *Opaque128, std::string *Why);

/// Decodes 128 bytes written by encodeTensorMap; false (with *Why) for any
/// other bytes.
bool decodeTensorMap(const void *Opaque128, TensorMap &Map, std::string *Why);

/// cp.async.bulk.tensor.<rank>d.shared::cluster.global.tile: copies the box
/// whose first element is at Coords (elements, innermost first; they may be
/// negative or past the end, and elements outside the tensor are filled with
/// zero, or with a NaN for TensorMapOobFillNan on a float type) to Dst.
///
/// Dst receives the box densely, innermost dimension contiguous (with
/// elementStride[i] > 1 for i >= 1, ceil(boxDim[i] / elementStride[i])
/// elements along dimension i, taking every elementStride[i]-th), each
/// element's byte offset passed through swizzleOffset. Dst must stand for
/// shared memory aligned to swizzleRepeatBytes(swizzle) for that to be what
/// the hardware does. ReadGlobal(addr, dst, bytes) returns false if the
/// bytes are not readable; the load then fails with *Why set. BytesWritten
/// is the box's size in bytes (what the load adds to the mbarrier's
/// transaction count), counted also for filled elements. Map.elementBytes
/// may be 0 (derived from dataType). Interleaved maps are loaded as if the
/// interleaved dimension were an ordinary one (the global layout is already
/// interleaved); the 128B_ATOM_* swizzles cannot be expressed.
bool tmaLoadTile(const TensorMap &Map, const int32_t Coords[5], uint8_t *Dst,
                 const std::function<bool(uint64_t Addr, void *Dst,
                                          unsigned Bytes)> &ReadGlobal,
                 uint32_t &BytesWritten, std::string *Why);

} // namespace quilt::emu

#endif // QUILT_EMULATOR_TENSORMAP_H
