//===- OpcodeDecoder.h - A PTX opcode and its modifiers, decoded -*- C++
//-*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_OPCODEDECODER_H
#define QUILT_EMULATOR_OPCODEDECODER_H

#include "Ptx.h"

#include <string>
#include <string_view>

namespace quilt::emu {

/// Fills `inst`'s op, types, space and modifiers from a dotted opcode such
/// as `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`. Returns false and
/// sets `error` for an opcode or modifier the emulator does not implement.
bool decodeOpcode(std::string_view opcode, Instruction &inst,
                  std::string &error);

/// The type a type token names (`f32`, `b16`, ...), Type::None otherwise.
Type parseTypeName(std::string_view token);

} // namespace quilt::emu

#endif // QUILT_EMULATOR_OPCODEDECODER_H
