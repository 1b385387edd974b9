//===- BlockOrder.h - The order an emulator runs a launch's blocks --------===//
//
// Part of the Quilt project. A GPU promises no order among the blocks of a
// launch, and the emulators run them one at a time: a kernel whose blocks
// communicate through global memory (split-K's arrival counters: the last
// block of a tile to arrive finishes it) is only tested if the order
// varies. QUILT_EMULATOR_BLOCK_ORDER=reverse runs the grid from its last
// block to its first; the default is x fastest, then y, then z.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_LIB_BLOCKORDER_H
#define QUILT_EMULATOR_LIB_BLOCKORDER_H

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace quilt::emu {

/// Whether QUILT_EMULATOR_BLOCK_ORDER asks for the reverse order. Read at
/// every launch, so that one process can run both orders.
inline bool reverseBlockOrder() {
  const char *order = std::getenv("QUILT_EMULATOR_BLOCK_ORDER");
  return order && std::strcmp(order, "reverse") == 0;
}

/// Calls `run(x, y, z)` for every block of `grid` in the order the
/// environment asks for, until it returns false; returns whether every
/// call returned true.
template <typename Run> bool forEachBlock(const uint32_t grid[3], Run &&run) {
  uint64_t count = uint64_t(grid[0]) * grid[1] * grid[2];
  bool reverse = reverseBlockOrder();
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t linear = reverse ? count - 1 - i : i;
    uint32_t x = uint32_t(linear % grid[0]);
    uint32_t y = uint32_t(linear / grid[0] % grid[1]);
    uint32_t z = uint32_t(linear / grid[0] / grid[1]);
    if (!run(x, y, z))
      return false;
  }
  return true;
}

} // namespace quilt::emu

#endif // QUILT_EMULATOR_LIB_BLOCKORDER_H
