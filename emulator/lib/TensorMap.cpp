//===- TensorMap.cpp - CUtensorMap encoding and TMA tile loads ------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "TensorMap.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <vector>

namespace quilt::emu {

namespace {

// The encoding, little-endian byte offsets within the 128 bytes:
//   0 magic, 4 version, 5 data type, 6 rank, 7 interleave, 8 swizzle
//   (CUtensorMapSwizzle value), 9 L2 promotion, 10 OOB fill, 11 element
//   bytes, 12 global address, 20 globalDim[5], 60 globalStride[1..4],
//   92 boxDim[5] - 1, 97 elementStride[5], 124 checksum of bytes 0..123.
constexpr uint32_t Magic = 0x314d5451; // "QTM1"
constexpr uint8_t Version = 1;
constexpr unsigned ChecksumOffset = 124;

bool fail(std::string *Why, const std::string &Message) {
  if (Why)
    *Why = Message;
  return false;
}

int invalid(std::string *Why, const std::string &Message) {
  fail(Why, "cuTensorMapEncodeTiled: " + Message);
  return TensorMapInvalidValue;
}

uint32_t fnv1a(const uint8_t *Bytes, unsigned Count) {
  uint32_t Hash = 2166136261u;
  for (unsigned I = 0; I < Count; ++I)
    Hash = (Hash ^ Bytes[I]) * 16777619u;
  return Hash;
}

template <typename T> void put(uint8_t *Bytes, unsigned Offset, T Value) {
  std::memcpy(Bytes + Offset, &Value, sizeof(T));
}

template <typename T> T get(const uint8_t *Bytes, unsigned Offset) {
  T Value;
  std::memcpy(&Value, Bytes + Offset, sizeof(T));
  return Value;
}

bool isFloatType(uint32_t DataType) {
  switch (DataType) {
  case TensorMapFloat16:
  case TensorMapFloat32:
  case TensorMapFloat64:
  case TensorMapBFloat16:
  case TensorMapFloat32Ftz:
  case TensorMapTFloat32:
  case TensorMapTFloat32Ftz:
    return true;
  default:
    return false;
  }
}

Swizzle swizzleFromEnum(uint32_t Value) {
  static const Swizzle Modes[4] = {Swizzle::None, Swizzle::B32, Swizzle::B64,
                                   Swizzle::B128};
  return Modes[Value & 3];
}

std::string dimMessage(const char *What, unsigned Dim, uint64_t Value,
                       const char *Rule) {
  std::ostringstream OS;
  OS << What << "[" << Dim << "] = " << Value << " " << Rule;
  return OS.str();
}

/// The checks of the cuTensorMapEncodeTiled documentation (cuda.h) that
/// concern the emulated (non-packed) types; returns TensorMapSuccess or
/// TensorMapInvalidValue.
int validate(const TensorMap &Map, uint32_t ElementBytes, std::string *Why) {
  if (Map.dataType > TensorMap16U6Align16B)
    return invalid(Why, "unknown data type " + std::to_string(Map.dataType));
  if (ElementBytes == 0)
    return invalid(Why, "packed sub-byte data types are not emulated");
  if (Map.elementBytes != 0 && Map.elementBytes != ElementBytes)
    return invalid(Why, "elementBytes does not match the data type");
  if (Map.rank < 1 || Map.rank > 5)
    return invalid(Why, "rank must be in [1, 5]");
  if (Map.interleave > TensorMapInterleave32B)
    return invalid(Why, "unknown interleave");
  if (Map.interleave != TensorMapInterleaveNone && Map.rank < 3)
    return invalid(Why, "an interleaved layout needs rank >= 3");
  const uint64_t AddressAlign =
      Map.interleave == TensorMapInterleave32B ? 32 : 16;
  if (Map.globalAddress % AddressAlign)
    return invalid(Why, "globalAddress must be " +
                            std::to_string(AddressAlign) + "-byte aligned");
  for (unsigned I = 0; I < Map.rank; ++I)
    if (Map.globalDim[I] == 0 || Map.globalDim[I] > (uint64_t(1) << 32))
      return invalid(Why, dimMessage("globalDim", I, Map.globalDim[I],
                                     "must be in [1, 2^32]"));
  const uint64_t StrideAlign =
      Map.interleave == TensorMapInterleave32B ? 32 : 16;
  for (unsigned I = 1; I < Map.rank; ++I) {
    if (Map.globalStride[I] % StrideAlign)
      return invalid(
          Why, dimMessage("globalStrides", I - 1, Map.globalStride[I],
                          StrideAlign == 32 ? "must be a multiple of 32"
                                            : "must be a multiple of 16"));
    if (Map.globalStride[I] >= (uint64_t(1) << 40))
      return invalid(Why,
                     dimMessage("globalStrides", I - 1, Map.globalStride[I],
                                "must be less than 2^40"));
  }
  for (unsigned I = 0; I < Map.rank; ++I) {
    if (Map.boxDim[I] == 0 || Map.boxDim[I] > 256)
      return invalid(
          Why, dimMessage("boxDim", I, Map.boxDim[I], "must be in [1, 256]"));
    if (Map.elementStride[I] == 0 || Map.elementStride[I] > 8)
      return invalid(Why, dimMessage("elementStrides", I, Map.elementStride[I],
                                     "must be in [1, 8]"));
  }
  const uint64_t InnerBytes = uint64_t(Map.boxDim[0]) * ElementBytes;
  if (Map.interleave == TensorMapInterleaveNone) {
    if (InnerBytes % 16)
      return invalid(Why, "boxDim[0] * element size must be a multiple of "
                          "16 bytes");
    if (Map.swizzle != Swizzle::None &&
        InnerBytes > swizzleSpanBytes(Map.swizzle))
      return invalid(
          Why, "boxDim[0] * element size (" + std::to_string(InnerBytes) +
                   ") exceeds the swizzle span of " +
                   std::to_string(swizzleSpanBytes(Map.swizzle)) + " bytes");
  }
  if (Map.interleave == TensorMapInterleave32B && Map.swizzle != Swizzle::B32)
    return invalid(Why, "interleave 32B requires swizzle 32B");
  if (Map.l2Promotion > TensorMapL2PromotionMax)
    return invalid(Why, "unknown L2 promotion");
  if (Map.oobFill > TensorMapOobFillNan)
    return invalid(Why, "unknown OOB fill");
  if (Map.oobFill == TensorMapOobFillNan && !isFloatType(Map.dataType))
    return invalid(Why, "NaN OOB fill requires a floating-point data type");
  return TensorMapSuccess;
}

/// The bytes an out-of-bounds element is filled with.
void fillValue(const TensorMap &Map, uint32_t ElementBytes, uint8_t *Out) {
  std::memset(Out, 0, ElementBytes);
  if (Map.oobFill != TensorMapOobFillNan)
    return;
  // The driver names the NaN only "a special NaN constant"; the emulator
  // uses the canonical quiet NaN of the element's format.
  switch (ElementBytes) {
  case 2:
    put<uint16_t>(Out, 0, 0x7fff);
    break;
  case 4:
    put<uint32_t>(Out, 0, 0x7fffffffu);
    break;
  case 8:
    put<uint64_t>(Out, 0, 0x7fffffffffffffffull);
    break;
  default:
    break;
  }
}

/// Elements the box holds along dimension Dim: the traversal stride of
/// dimension 0 is ignored without interleave (cuda.h).
uint32_t boxElements(const TensorMap &Map, unsigned Dim) {
  uint32_t Step = Map.elementStride[Dim];
  if (Dim == 0 && Map.interleave == TensorMapInterleaveNone)
    Step = 1;
  return (Map.boxDim[Dim] + Step - 1) / Step;
}

uint32_t traversalStep(const TensorMap &Map, unsigned Dim) {
  if (Dim == 0 && Map.interleave == TensorMapInterleaveNone)
    return 1;
  return Map.elementStride[Dim];
}

bool inBounds(const TensorMap &Map, unsigned Dim, int64_t Coord) {
  return Coord >= 0 && uint64_t(Coord) < Map.globalDim[Dim];
}

} // namespace

uint32_t tensorMapElementBytes(uint32_t DataType) {
  switch (DataType) {
  case TensorMapUInt8:
    return 1;
  case TensorMapUInt16:
  case TensorMapFloat16:
  case TensorMapBFloat16:
    return 2;
  case TensorMapUInt32:
  case TensorMapInt32:
  case TensorMapFloat32:
  case TensorMapFloat32Ftz:
  case TensorMapTFloat32:
  case TensorMapTFloat32Ftz:
    return 4;
  case TensorMapUInt64:
  case TensorMapInt64:
  case TensorMapFloat64:
    return 8;
  default:
    return 0;
  }
}

uint32_t tensorMapSwizzleEnum(Swizzle S) {
  // CUtensorMapSwizzle numbers the modes by the address bits they XOR.
  return swizzleBits(S);
}

int encodeTensorMap(const TensorMap &Map, void *Opaque128, std::string *Why) {
  if (!Opaque128 || reinterpret_cast<uintptr_t>(Opaque128) % 64)
    return invalid(Why, "tensorMap must be 64-byte aligned");
  const uint32_t ElementBytes = tensorMapElementBytes(Map.dataType);
  if (int Result = validate(Map, ElementBytes, Why))
    return Result;

  uint8_t Bytes[128] = {};
  put<uint32_t>(Bytes, 0, Magic);
  Bytes[4] = Version;
  Bytes[5] = uint8_t(Map.dataType);
  Bytes[6] = uint8_t(Map.rank);
  Bytes[7] = uint8_t(Map.interleave);
  Bytes[8] = uint8_t(tensorMapSwizzleEnum(Map.swizzle));
  Bytes[9] = uint8_t(Map.l2Promotion);
  Bytes[10] = uint8_t(Map.oobFill);
  Bytes[11] = uint8_t(ElementBytes);
  put<uint64_t>(Bytes, 12, Map.globalAddress);
  for (unsigned I = 0; I < Map.rank; ++I) {
    put<uint64_t>(Bytes, 20 + 8 * I, Map.globalDim[I]);
    if (I > 0)
      put<uint64_t>(Bytes, 60 + 8 * (I - 1), Map.globalStride[I]);
    Bytes[92 + I] = uint8_t(Map.boxDim[I] - 1);
    Bytes[97 + I] = uint8_t(Map.elementStride[I]);
  }
  put<uint32_t>(Bytes, ChecksumOffset, fnv1a(Bytes, ChecksumOffset));
  std::memcpy(Opaque128, Bytes, sizeof(Bytes));
  return TensorMapSuccess;
}

bool decodeTensorMap(const void *Opaque128, TensorMap &Map, std::string *Why) {
  const uint8_t *Bytes = static_cast<const uint8_t *>(Opaque128);
  if (get<uint32_t>(Bytes, 0) != Magic || Bytes[4] != Version ||
      get<uint32_t>(Bytes, ChecksumOffset) != fnv1a(Bytes, ChecksumOffset))
    return fail(Why, "not a tensor map made by cuTensorMapEncodeTiled");
  Map = TensorMap{};
  Map.dataType = Bytes[5];
  Map.rank = Bytes[6];
  Map.interleave = Bytes[7];
  Map.swizzle = swizzleFromEnum(Bytes[8]);
  Map.l2Promotion = Bytes[9];
  Map.oobFill = Bytes[10];
  Map.elementBytes = Bytes[11];
  Map.globalAddress = get<uint64_t>(Bytes, 12);
  if (Map.rank < 1 || Map.rank > 5 ||
      Map.elementBytes != tensorMapElementBytes(Map.dataType))
    return fail(Why, "corrupt tensor map");
  for (unsigned I = 0; I < Map.rank; ++I) {
    Map.globalDim[I] = get<uint64_t>(Bytes, 20 + 8 * I);
    Map.globalStride[I] =
        I == 0 ? Map.elementBytes : get<uint64_t>(Bytes, 60 + 8 * (I - 1));
    Map.boxDim[I] = uint32_t(Bytes[92 + I]) + 1;
    Map.elementStride[I] = Bytes[97 + I];
  }
  return true;
}

bool tmaLoadTile(const TensorMap &Map, const int32_t Coords[5], uint8_t *Dst,
                 const std::function<bool(uint64_t Addr, void *Dst,
                                          unsigned Bytes)> &ReadGlobal,
                 uint32_t &BytesWritten, std::string *Why) {
  BytesWritten = 0;
  const unsigned Rank = Map.rank;
  // elementBytes 0 is derived from the data type, as encodeTensorMap does.
  const uint32_t Elem = tensorMapElementBytes(Map.dataType);
  if (Rank < 1 || Rank > 5 || Elem == 0 ||
      (Map.elementBytes != 0 && Map.elementBytes != Elem))
    return fail(Why, "cp.async.bulk.tensor: invalid tensor map");

  uint32_t Count[5] = {1, 1, 1, 1, 1};
  uint64_t Total = 1;
  for (unsigned I = 0; I < Rank; ++I) {
    Count[I] = boxElements(Map, I);
    Total *= Count[I];
  }

  uint8_t Fill[8];
  fillValue(Map, Elem, Fill);
  std::vector<uint8_t> Row(size_t(Count[0]) * Elem);
  const uint32_t Step0 = traversalStep(Map, 0);
  const uint64_t Rows = Total / Count[0];

  // Walk the box one innermost row at a time: the outer index decides
  // whether the whole row lies outside the tensor, then the in-bounds run of
  // the row is read (in one piece when it is contiguous) and the rest
  // filled.
  for (uint64_t RowIndex = 0; RowIndex < Rows; ++RowIndex) {
    uint64_t Remaining = RowIndex, Base = Map.globalAddress;
    bool RowInBounds = true;
    for (unsigned I = 1; I < Rank; ++I) {
      const uint32_t Index = uint32_t(Remaining % Count[I]);
      Remaining /= Count[I];
      const int64_t Coord =
          int64_t(Coords[I]) + int64_t(Index) * traversalStep(Map, I);
      if (!inBounds(Map, I, Coord))
        RowInBounds = false;
      else
        Base += uint64_t(Coord) * Map.globalStride[I];
    }

    for (uint32_t J = 0; J < Count[0]; ++J)
      std::memcpy(&Row[size_t(J) * Elem], Fill, Elem);
    if (RowInBounds) {
      // The in-bounds elements J of the row form one run [First, Last).
      uint32_t First = Count[0], Last = 0;
      for (uint32_t J = 0; J < Count[0]; ++J)
        if (inBounds(Map, 0, int64_t(Coords[0]) + int64_t(J) * Step0)) {
          First = std::min(First, J);
          Last = J + 1;
        }
      for (uint32_t J = First; J < Last; J += (Step0 == 1 ? Last - First : 1)) {
        const uint32_t Run = Step0 == 1 ? Last - First : 1;
        const uint64_t Addr =
            Base + uint64_t(int64_t(Coords[0]) + int64_t(J) * Step0) * Elem;
        if (!ReadGlobal(Addr, &Row[size_t(J) * Elem], Run * Elem)) {
          std::ostringstream OS;
          OS << "cp.async.bulk.tensor: global address 0x" << std::hex << Addr
             << " (" << std::dec << Run * Elem << " bytes) is not readable";
          return fail(Why, OS.str());
        }
      }
    }

    // Store the row into the box, each element at its swizzled offset.
    const uint64_t RowOffset = RowIndex * Count[0] * Elem;
    for (uint32_t J = 0; J < Count[0]; ++J) {
      const uint32_t Offset = uint32_t(RowOffset + uint64_t(J) * Elem);
      std::memcpy(Dst + swizzleOffset(Offset, Map.swizzle),
                  &Row[size_t(J) * Elem], Elem);
    }
  }
  BytesWritten = uint32_t(Total * Elem);
  return true;
}

} // namespace quilt::emu
