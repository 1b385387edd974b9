//===- Ptx.cpp - Facts about PTX types ------------------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Ptx.h"

namespace quilt::emu {

const char *typeName(Type type) {
  static const char *const names[] = {
      "none",  "pred", "b8",     "b16",  "b32", "b64", "b128", "u8",
      "u16",   "u32",  "u64",    "s8",   "s16", "s32", "s64",  "f16",
      "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64"};
  return names[static_cast<int>(type)];
}

} // namespace quilt::emu
