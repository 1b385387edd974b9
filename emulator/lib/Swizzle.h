//===- Swizzle.h - The shared-memory swizzle of TMA and wgmma ---*- C++ -*-===//
//
// Part of the Quilt project.
//
// TMA (cp.async.bulk.tensor) writes, and wgmma reads, shared-memory tiles
// whose 16-byte chunks are permuted within each 32/64/128-byte row span to
// avoid bank conflicts (cuda.h, CUtensorMapSwizzle: "Swizzle 16B chunks
// within 32B/64B/128B span"). The permutation is a function of the shared
// memory address: the 16-byte chunk index, address bits [4, 4+B), is XORed
// with address bits [7, 7+B), where B is 3 for 128B, 2 for 64B, 1 for 32B.
// That is CuTe's Swizzle<B,4,3>, which the PTX ISA's canonical wgmma layouts
// (section 9.7.15.5.1.2.1.3) name for each mode. The pattern therefore
// repeats every 1024/512/256 bytes (the ISA's "starting address of the
// repeating pattern"), and a tile must start on such a boundary for
// byte offsets within the tile to swizzle like addresses do.
//
// For 128B, row r (128 bytes each) of an 8-row block has its chunk c stored
// at chunk c ^ r. For 64B, bits 7-8 are (row of 64 bytes) / 2, so rows 2i and
// 2i+1 share a permutation; for 32B, bit 7 is (row of 32 bytes) / 4.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_SWIZZLE_H
#define QUILT_EMULATOR_SWIZZLE_H

#include <cstdint>

namespace quilt::emu {

/// The swizzle modes wgmma descriptors and tensor maps share. (The tensor
/// map's 128B_ATOM_32B/64B variants are not modelled.)
enum class Swizzle { None, B32, B64, B128 };

/// The number of address bits XORed into the chunk index: 0..3.
inline unsigned swizzleBits(Swizzle S) {
  switch (S) {
  case Swizzle::None:
    return 0;
  case Swizzle::B32:
    return 1;
  case Swizzle::B64:
    return 2;
  case Swizzle::B128:
    return 3;
  }
  return 0;
}

/// The row span the 16-byte chunks are permuted within: 16 (no swizzle:
/// one chunk), 32, 64 or 128 bytes.
inline unsigned swizzleSpanBytes(Swizzle S) { return 16u << swizzleBits(S); }

/// The period of the permutation: 128 (trivially), 256, 512 or 1024 bytes.
/// Tiles must be aligned to it.
inline unsigned swizzleRepeatBytes(Swizzle S) {
  return S == Swizzle::None ? 128u : (128u << swizzleBits(S));
}

/// The byte offset (or shared-memory address) the hardware uses for logical
/// ByteOffset. The permutation is an involution, so this also maps back.
inline uint32_t swizzleOffset(uint32_t ByteOffset, Swizzle S) {
  const uint32_t Mask = (1u << swizzleBits(S)) - 1;
  return ByteOffset ^ (((ByteOffset >> 7) & Mask) << 4);
}

/// swizzleOffset for an address inside a pattern that starts BaseOffset *
/// 128 bytes past a repeat boundary (the wgmma descriptor's "matrix base
/// offset", (pattern start >> 7) & 7): the XOR uses the row within the
/// pattern rather than the raw address bits.
inline uint32_t swizzleAddress(uint32_t Address, Swizzle S,
                               uint32_t BaseOffset) {
  const uint32_t Mask = (1u << swizzleBits(S)) - 1;
  const uint32_t Row = (Address >> 7) - BaseOffset;
  return Address ^ ((Row & Mask) << 4);
}

} // namespace quilt::emu

#endif // QUILT_EMULATOR_SWIZZLE_H
