//===- TensorMapTest.cpp - Swizzle, CUtensorMap encoding and TMA loads ----===//
//
// Part of the Quilt project.
//
// Validation cases follow the requirements listed for cuTensorMapEncodeTiled
// in cuda.h; swizzle tables are the 16-byte-chunk permutations of
// CUtensorMapSwizzle ("Swizzle 16B chunks within 32B/64B/128B span"),
// written out row by row.
//
//===----------------------------------------------------------------------===//

#include "Swizzle.h"
#include "TensorMap.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace quilt::emu;

namespace {

//===----------------------------------------------------------------------===//
// Swizzle patterns
//===----------------------------------------------------------------------===//

/// The physical 16-byte chunk (within its row span) of logical chunk C of
/// span-row R, for rows of SpanBytes.
unsigned physicalChunk(Swizzle S, unsigned R, unsigned C) {
  unsigned Span = swizzleSpanBytes(S);
  return (swizzleOffset(R * Span + C * 16, S) - R * Span) / 16;
}

TEST(Swizzle, Pattern128B) {
  // The 8x8 chunk permutation of the 128B mode: chunk c of row r lands at
  // c ^ r.
  const unsigned Expected[8][8] = {
      {0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 3, 2, 5, 4, 7, 6},
      {2, 3, 0, 1, 6, 7, 4, 5}, {3, 2, 1, 0, 7, 6, 5, 4},
      {4, 5, 6, 7, 0, 1, 2, 3}, {5, 4, 7, 6, 1, 0, 3, 2},
      {6, 7, 4, 5, 2, 3, 0, 1}, {7, 6, 5, 4, 3, 2, 1, 0}};
  for (unsigned R = 0; R < 8; ++R)
    for (unsigned C = 0; C < 8; ++C)
      EXPECT_EQ(physicalChunk(Swizzle::B128, R, C), Expected[R][C])
          << R << "," << C;
  EXPECT_EQ(swizzleSpanBytes(Swizzle::B128), 128u);
  EXPECT_EQ(swizzleRepeatBytes(Swizzle::B128), 1024u);
}

TEST(Swizzle, Pattern64BAnd32B) {
  // 64B rows: bits 7-8 change every two rows.
  const unsigned E64[8][4] = {{0, 1, 2, 3}, {0, 1, 2, 3}, {1, 0, 3, 2},
                              {1, 0, 3, 2}, {2, 3, 0, 1}, {2, 3, 0, 1},
                              {3, 2, 1, 0}, {3, 2, 1, 0}};
  for (unsigned R = 0; R < 8; ++R)
    for (unsigned C = 0; C < 4; ++C)
      EXPECT_EQ(physicalChunk(Swizzle::B64, R, C), E64[R][C]);
  // 32B rows: bit 7 changes every four rows.
  const unsigned E32[8][2] = {{0, 1}, {0, 1}, {0, 1}, {0, 1},
                              {1, 0}, {1, 0}, {1, 0}, {1, 0}};
  for (unsigned R = 0; R < 8; ++R)
    for (unsigned C = 0; C < 2; ++C)
      EXPECT_EQ(physicalChunk(Swizzle::B32, R, C), E32[R][C]);
  EXPECT_EQ(swizzleRepeatBytes(Swizzle::B64), 512u);
  EXPECT_EQ(swizzleRepeatBytes(Swizzle::B32), 256u);
}

TEST(Swizzle, BytesWithinChunkAndPeriod) {
  for (Swizzle S : {Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128})
    for (uint32_t X = 0; X < 4096; ++X) {
      // Bytes stay inside their chunk, the pattern repeats, and it is its
      // own inverse.
      EXPECT_EQ(swizzleOffset(X, S) % 16, X % 16);
      EXPECT_EQ(swizzleOffset(X + swizzleRepeatBytes(S), S),
                swizzleOffset(X, S) + swizzleRepeatBytes(S));
      EXPECT_EQ(swizzleOffset(swizzleOffset(X, S), S), X);
      EXPECT_EQ(swizzleOffset(X, S) / swizzleSpanBytes(S),
                X / swizzleSpanBytes(S));
    }
  EXPECT_EQ(swizzleOffset(0x3a5, Swizzle::None), 0x3a5u);
}

//===----------------------------------------------------------------------===//
// Encoding and validation
//===----------------------------------------------------------------------===//

/// A valid 2D f16 map: a 100 (inner) x 70 tensor with rows 256 bytes apart
/// at 0x10000, 64 x 8 boxes, 128B swizzle.
TensorMap f16Map() {
  TensorMap M{};
  M.dataType = TensorMapFloat16;
  M.elementBytes = 2;
  M.rank = 2;
  M.globalAddress = 0x10000;
  M.globalDim[0] = 100;
  M.globalDim[1] = 70;
  M.globalStride[0] = 2;
  M.globalStride[1] = 256;
  M.boxDim[0] = 64;
  M.boxDim[1] = 8;
  M.elementStride[0] = M.elementStride[1] = 1;
  M.interleave = TensorMapInterleaveNone;
  M.swizzle = Swizzle::B128;
  M.l2Promotion = 2;
  M.oobFill = TensorMapOobFillZero;
  return M;
}

struct alignas(64) Opaque {
  uint8_t Bytes[128];
};

TEST(TensorMap, RoundTrip) {
  TensorMap M = f16Map();
  Opaque O;
  std::string Why;
  ASSERT_EQ(encodeTensorMap(M, O.Bytes, &Why), TensorMapSuccess) << Why;
  TensorMap D{};
  ASSERT_TRUE(decodeTensorMap(O.Bytes, D, &Why)) << Why;
  EXPECT_EQ(D.dataType, M.dataType);
  EXPECT_EQ(D.elementBytes, 2u);
  EXPECT_EQ(D.rank, 2u);
  EXPECT_EQ(D.globalAddress, M.globalAddress);
  for (int I = 0; I < 2; ++I) {
    EXPECT_EQ(D.globalDim[I], M.globalDim[I]);
    EXPECT_EQ(D.globalStride[I], M.globalStride[I]);
    EXPECT_EQ(D.boxDim[I], M.boxDim[I]);
    EXPECT_EQ(D.elementStride[I], M.elementStride[I]);
  }
  EXPECT_EQ(D.swizzle, Swizzle::B128);
  EXPECT_EQ(D.l2Promotion, 2u);

  // elementBytes 0 is derived; the largest box and dims survive.
  M.elementBytes = 0;
  M.boxDim[1] = 256;
  M.globalDim[1] = uint64_t(1) << 32;
  M.swizzle = Swizzle::None;
  ASSERT_EQ(encodeTensorMap(M, O.Bytes, &Why), TensorMapSuccess) << Why;
  ASSERT_TRUE(decodeTensorMap(O.Bytes, D, &Why));
  EXPECT_EQ(D.elementBytes, 2u);
  EXPECT_EQ(D.boxDim[1], 256u);
  EXPECT_EQ(D.globalDim[1], uint64_t(1) << 32);
  EXPECT_EQ(D.swizzle, Swizzle::None);
}

TEST(TensorMap, RejectsForeignBytes) {
  Opaque O;
  TensorMap D;
  std::string Why;
  std::memset(O.Bytes, 0, 128);
  EXPECT_FALSE(decodeTensorMap(O.Bytes, D, &Why));
  EXPECT_FALSE(Why.empty());
  for (int I = 0; I < 128; ++I)
    O.Bytes[I] = uint8_t(I * 37 + 11);
  EXPECT_FALSE(decodeTensorMap(O.Bytes, D, &Why));
  ASSERT_EQ(encodeTensorMap(f16Map(), O.Bytes, &Why), TensorMapSuccess);
  O.Bytes[40] ^= 1; // One flipped bit in globalDim.
  EXPECT_FALSE(decodeTensorMap(O.Bytes, D, &Why));
}

/// Expects Map to be rejected with a message containing Needle.
void expectInvalid(const TensorMap &Map, const char *Needle) {
  Opaque O;
  std::string Why;
  EXPECT_EQ(encodeTensorMap(Map, O.Bytes, &Why), TensorMapInvalidValue)
      << Needle;
  EXPECT_NE(Why.find(Needle), std::string::npos) << Why;
}

TEST(TensorMap, Validation) {
  TensorMap M = f16Map();
  M.rank = 0;
  expectInvalid(M, "rank");
  M = f16Map();
  M.rank = 6;
  expectInvalid(M, "rank");
  M = f16Map();
  M.globalAddress = 0x10008;
  expectInvalid(M, "aligned");
  M = f16Map();
  M.globalDim[1] = 0;
  expectInvalid(M, "globalDim[1]");
  M = f16Map();
  M.globalDim[0] = (uint64_t(1) << 32) + 1;
  expectInvalid(M, "globalDim[0]");
  M = f16Map();
  M.globalStride[1] = 200;
  expectInvalid(M, "multiple of 16");
  M = f16Map();
  M.globalStride[1] = uint64_t(1) << 40;
  expectInvalid(M, "2^40");
  M = f16Map();
  M.boxDim[1] = 0;
  expectInvalid(M, "boxDim[1]");
  M = f16Map();
  M.boxDim[1] = 257;
  expectInvalid(M, "boxDim[1]");
  M = f16Map();
  M.boxDim[0] = 60; // 120 bytes: not a multiple of 16.
  expectInvalid(M, "multiple of 16 bytes");
  M = f16Map();
  M.swizzle = Swizzle::B64; // 128-byte inner box > 64-byte span.
  expectInvalid(M, "swizzle span");
  M = f16Map();
  M.elementStride[1] = 9;
  expectInvalid(M, "elementStrides[1]");
  M = f16Map();
  M.elementStride[0] = 0;
  expectInvalid(M, "elementStrides[0]");
  M = f16Map();
  M.interleave = TensorMapInterleave16B;
  expectInvalid(M, "rank >= 3");
  M = f16Map();
  M.dataType = TensorMapUInt16;
  M.oobFill = TensorMapOobFillNan;
  expectInvalid(M, "floating-point");
  M = f16Map();
  M.elementBytes = 4;
  expectInvalid(M, "elementBytes");
  M = f16Map();
  M.dataType = TensorMap16U4Align8B;
  M.elementBytes = 0;
  expectInvalid(M, "packed");
  M = f16Map();
  M.dataType = 16;
  expectInvalid(M, "data type");
  M = f16Map();
  M.l2Promotion = 4;
  expectInvalid(M, "L2");

  // Interleave 32B needs rank >= 3, 32-byte strides and swizzle 32B.
  TensorMap I{};
  I.dataType = TensorMapFloat16;
  I.rank = 3;
  I.globalAddress = 0x20000;
  for (int D = 0; D < 3; ++D) {
    I.globalDim[D] = 16;
    I.boxDim[D] = 16;
    I.elementStride[D] = 1;
  }
  I.globalStride[1] = 32;
  I.globalStride[2] = 512;
  I.interleave = TensorMapInterleave32B;
  I.swizzle = Swizzle::B32;
  Opaque O;
  std::string Why;
  EXPECT_EQ(encodeTensorMap(I, O.Bytes, &Why), TensorMapSuccess) << Why;
  I.swizzle = Swizzle::B128;
  expectInvalid(I, "swizzle 32B");
  I.swizzle = Swizzle::B32;
  I.globalStride[1] = 48;
  expectInvalid(I, "multiple of 32");

  // The tensor map object itself must be 64-byte aligned.
  EXPECT_EQ(encodeTensorMap(f16Map(), O.Bytes + 16, &Why),
            TensorMapInvalidValue);
}

//===----------------------------------------------------------------------===//
// cp.async.bulk.tensor tile loads
//===----------------------------------------------------------------------===//

/// A global memory holding a 2D f16 tensor whose element (x, y) is the
/// 16-bit value y * 256 + x (x < 256).
struct Global {
  uint64_t Base;
  std::vector<uint8_t> Bytes;

  bool read(uint64_t Addr, void *Dst, unsigned Count) const {
    if (Addr < Base || Addr + Count > Base + Bytes.size())
      return false;
    std::memcpy(Dst, &Bytes[Addr - Base], Count);
    return true;
  }
};

Global makeF16Tensor(const TensorMap &M) {
  Global G{M.globalAddress, std::vector<uint8_t>(M.globalStride[1] *
                                                 M.globalDim[1])};
  for (uint64_t Y = 0; Y < M.globalDim[1]; ++Y)
    for (uint64_t X = 0; X < M.globalDim[0]; ++X) {
      uint16_t V = uint16_t(Y * 256 + X);
      std::memcpy(&G.Bytes[Y * M.globalStride[1] + X * 2], &V, 2);
    }
  return G;
}

/// The element at box position (x, y) of a dense 2D f16 box of Width, read
/// through the 128B swizzle written out as chunk ^ (row of 128 bytes % 8).
uint16_t boxElement128B(const std::vector<uint8_t> &Box, unsigned Width,
                        unsigned X, unsigned Y) {
  unsigned Offset = (Y * Width + X) * 2;
  unsigned Row = Offset / 128, Chunk = (Offset % 128) / 16;
  unsigned Physical = Row * 128 + ((Chunk ^ (Row % 8)) * 16) + Offset % 16;
  uint16_t V;
  std::memcpy(&V, &Box[Physical], 2);
  return V;
}

void loadBox(const TensorMap &M, const Global &G, int32_t X, int32_t Y,
             std::vector<uint8_t> &Box) {
  const int32_t Coords[5] = {X, Y, 0, 0, 0};
  uint32_t Bytes = 0;
  std::string Why;
  Box.assign(M.boxDim[0] * M.boxDim[1] * 2, 0xee);
  ASSERT_TRUE(tmaLoadTile(
      M, Coords, Box.data(),
      [&](uint64_t A, void *D, unsigned N) { return G.read(A, D, N); }, Bytes,
      &Why))
      << Why;
  EXPECT_EQ(Bytes, M.boxDim[0] * M.boxDim[1] * 2);
}

TEST(TmaLoad, SwizzledInBounds) {
  TensorMap M = f16Map();
  Global G = makeF16Tensor(M);
  std::vector<uint8_t> Box;
  loadBox(M, G, 16, 40, Box);
  for (unsigned Y = 0; Y < 8; ++Y)
    for (unsigned X = 0; X < 64; ++X)
      EXPECT_EQ(boxElement128B(Box, 64, X, Y), (40 + Y) * 256 + 16 + X);
  // Row 1's first chunk (elements 0-7 of the row) is stored in chunk 1.
  uint16_t V;
  std::memcpy(&V, &Box[128 + 16], 2);
  EXPECT_EQ(V, 41 * 256 + 16);
}

TEST(TmaLoad, OutOfBoundsIsZeroFilled) {
  TensorMap M = f16Map();
  Global G = makeF16Tensor(M);
  std::vector<uint8_t> Box;
  // x in [-8, 56), y in [66, 74): y >= 70 and x < 0 fall outside.
  loadBox(M, G, -8, 66, Box);
  for (unsigned Y = 0; Y < 8; ++Y)
    for (unsigned X = 0; X < 64; ++X) {
      int GX = int(X) - 8, GY = 66 + int(Y);
      uint16_t Want = (GX < 0 || GY >= 70) ? 0 : uint16_t(GY * 256 + GX);
      EXPECT_EQ(boxElement128B(Box, 64, X, Y), Want) << X << "," << Y;
    }
  // x in [64, 128): past the inner end (100) on the right; y negative.
  loadBox(M, G, 64, -3, Box);
  for (unsigned Y = 0; Y < 8; ++Y)
    for (unsigned X = 0; X < 64; ++X) {
      int GX = 64 + int(X), GY = int(Y) - 3;
      uint16_t Want = (GX >= 100 || GY < 0) ? 0 : uint16_t(GY * 256 + GX);
      EXPECT_EQ(boxElement128B(Box, 64, X, Y), Want) << X << "," << Y;
    }
  // Entirely outside: all zero, still a full transaction count.
  loadBox(M, G, 1000, 1000, Box);
  for (uint8_t B : Box)
    EXPECT_EQ(B, 0);
}

TEST(TmaLoad, NanFillAndUnswizzled) {
  // A 1D f32 tensor of 20 elements, box 32, NaN fill: the last 12 are NaN.
  TensorMap M{};
  M.dataType = TensorMapFloat32;
  M.rank = 1;
  M.globalAddress = 0x4000;
  M.globalDim[0] = 20;
  M.globalStride[0] = 4;
  M.boxDim[0] = 32;
  M.elementStride[0] = 1;
  M.swizzle = Swizzle::None;
  M.oobFill = TensorMapOobFillNan;
  Opaque O;
  std::string Why;
  ASSERT_EQ(encodeTensorMap(M, O.Bytes, &Why), TensorMapSuccess) << Why;
  TensorMap D;
  ASSERT_TRUE(decodeTensorMap(O.Bytes, D, &Why));
  std::vector<float> Data(20);
  for (int I = 0; I < 20; ++I)
    Data[I] = float(I) + 0.5f;
  float Box[32];
  const int32_t Coords[5] = {0};
  uint32_t Bytes;
  ASSERT_TRUE(tmaLoadTile(
      D, Coords, reinterpret_cast<uint8_t *>(Box),
      [&](uint64_t A, void *Dst, unsigned N) {
        if (A < 0x4000 || A + N > 0x4000 + 80)
          return false;
        std::memcpy(Dst, reinterpret_cast<uint8_t *>(Data.data()) + (A - 0x4000),
                    N);
        return true;
      },
      Bytes, &Why))
      << Why;
  EXPECT_EQ(Bytes, 128u);
  for (int I = 0; I < 20; ++I)
    EXPECT_EQ(Box[I], float(I) + 0.5f);
  for (int I = 20; I < 32; ++I)
    EXPECT_TRUE(std::isnan(Box[I]));
}

TEST(TmaLoad, ElementStridesAnd3D) {
  // A 3D u8 tensor 32 x 6 x 5 (value = 100*z + 10*y + x % 10 mod 256),
  // box 16 x 4 x 2 with element strides 1, 2, 1: 2 rows per plane (y, y+2).
  TensorMap M{};
  M.dataType = TensorMapUInt8;
  M.rank = 3;
  M.globalAddress = 0x1000;
  M.globalDim[0] = 32;
  M.globalDim[1] = 6;
  M.globalDim[2] = 5;
  M.globalStride[0] = 1;
  M.globalStride[1] = 48;
  M.globalStride[2] = 48 * 6;
  M.boxDim[0] = 16;
  M.boxDim[1] = 4;
  M.boxDim[2] = 2;
  M.elementStride[0] = 1;
  M.elementStride[1] = 2;
  M.elementStride[2] = 1;
  M.swizzle = Swizzle::B32; // 16-byte inner box within a 32-byte span.
  Opaque O;
  std::string Why;
  ASSERT_EQ(encodeTensorMap(M, O.Bytes, &Why), TensorMapSuccess) << Why;
  std::vector<uint8_t> Mem(48 * 6 * 5);
  auto Value = [](int X, int Y, int Z) { return uint8_t(100 * Z + 10 * Y + X); };
  for (int Z = 0; Z < 5; ++Z)
    for (int Y = 0; Y < 6; ++Y)
      for (int X = 0; X < 32; ++X)
        Mem[Z * 288 + Y * 48 + X] = Value(X, Y, Z);
  std::vector<uint8_t> Box(16 * 2 * 2, 0xee);
  const int32_t Coords[5] = {8, 3, 3, 0, 0};
  uint32_t Bytes;
  ASSERT_TRUE(tmaLoadTile(
      M, Coords, Box.data(),
      [&](uint64_t A, void *D, unsigned N) {
        if (A < 0x1000 || A + N > 0x1000 + Mem.size())
          return false;
        std::memcpy(D, &Mem[A - 0x1000], N);
        return true;
      },
      Bytes, &Why))
      << Why;
  EXPECT_EQ(Bytes, 64u);
  // Box rows: (y=3,z=3), (y=5,z=3), (y=3,z=4), (y=5,z=4); dense offset
  // row*16 + x, swizzled 32B: chunk ^= bit 7 of the offset (all zero here,
  // the box is only 64 bytes).
  for (int Z = 0; Z < 2; ++Z)
    for (int J = 0; J < 2; ++J)
      for (int X = 0; X < 16; ++X) {
        int GX = 8 + X, GY = 3 + 2 * J, GZ = 3 + Z;
        uint8_t Want = GX < 32 && GY < 6 && GZ < 5 ? Value(GX, GY, GZ) : 0;
        EXPECT_EQ(Box[(Z * 2 + J) * 16 + X], Want) << X << "," << J << "," << Z;
      }
}

TEST(TmaLoad, Swizzle32BAcrossRows) {
  // 2D u16 tensor, box 16 x 16 (32-byte rows) with 32B swizzle: rows 4-7 of
  // each 8 have their two chunks swapped.
  TensorMap M{};
  M.dataType = TensorMapUInt16;
  M.rank = 2;
  M.globalAddress = 0x10000;
  M.globalDim[0] = 16;
  M.globalDim[1] = 16;
  M.globalStride[0] = 2;
  M.globalStride[1] = 256;
  M.boxDim[0] = 16;
  M.boxDim[1] = 16;
  M.elementStride[0] = M.elementStride[1] = 1;
  M.swizzle = Swizzle::B32;
  Global G = makeF16Tensor(M);
  std::vector<uint8_t> Box;
  loadBox(M, G, 0, 0, Box);
  for (unsigned Y = 0; Y < 16; ++Y)
    for (unsigned X = 0; X < 16; ++X) {
      unsigned Chunk = X / 8, Physical = Chunk ^ ((Y / 4) % 2);
      uint16_t V;
      std::memcpy(&V, &Box[Y * 32 + Physical * 16 + (X % 8) * 2], 2);
      EXPECT_EQ(V, Y * 256 + X);
    }
}

TEST(TmaLoad, UnreadableGlobal) {
  TensorMap M = f16Map();
  std::vector<uint8_t> Box(1024);
  const int32_t Coords[5] = {0, 0, 0, 0, 0};
  uint32_t Bytes = 123;
  std::string Why;
  EXPECT_FALSE(tmaLoadTile(
      M, Coords, Box.data(), [](uint64_t, void *, unsigned) { return false; },
      Bytes, &Why));
  EXPECT_NE(Why.find("not readable"), std::string::npos) << Why;
  EXPECT_NE(Why.find("0x10000"), std::string::npos) << Why;
}

} // namespace
