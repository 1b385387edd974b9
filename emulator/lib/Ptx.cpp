//===- Ptx.cpp - Facts about PTX types ------------------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Ptx.h"

namespace quilt::emu {

unsigned bitsOf(Type type) {
  switch (type) {
  case Type::None:
    return 0;
  case Type::Pred:
    return 1;
  case Type::B8:
  case Type::U8:
  case Type::S8:
    return 8;
  case Type::B16:
  case Type::U16:
  case Type::S16:
  case Type::F16:
  case Type::BF16:
    return 16;
  case Type::B32:
  case Type::U32:
  case Type::S32:
  case Type::F32:
  case Type::F16x2:
  case Type::BF16x2:
  case Type::TF32:
    return 32;
  case Type::B64:
  case Type::U64:
  case Type::S64:
  case Type::F64:
    return 64;
  case Type::B128:
    return 128;
  }
  return 0;
}

bool isSigned(Type type) {
  return type == Type::S8 || type == Type::S16 || type == Type::S32 ||
         type == Type::S64;
}

bool isFloat(Type type) {
  return type == Type::F16 || type == Type::F16x2 || type == Type::BF16 ||
         type == Type::BF16x2 || type == Type::F32 || type == Type::F64;
}

const char *typeName(Type type) {
  static const char *const names[] = {
      "none",  "pred", "b8",     "b16",  "b32", "b64", "b128", "u8",
      "u16",   "u32",  "u64",    "s8",   "s16", "s32", "s64",  "f16",
      "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64"};
  return names[static_cast<int>(type)];
}

} // namespace quilt::emu
