//===- PtxParser.h - PTX text to the emulator's decoded form ----*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_PTXPARSER_H
#define QUILT_EMULATOR_PTXPARSER_H

#include "Ptx.h"

#include <string>
#include <string_view>

namespace quilt::emu {

/// Parses a PTX module (what LLVM's NVPTX backend emits, with the inline
/// PTX MLIR's NVVM dialect writes: brace-scoped blocks with their own
/// registers and labels). On failure returns null and sets `error` to
/// "ptx:<line>: <what is wrong>". Module-scope global and const variables
/// get host storage in the returned module; shared variables get offsets.
std::unique_ptr<Module> parsePtx(std::string_view text, std::string &error);

} // namespace quilt::emu

#endif // QUILT_EMULATOR_PTXPARSER_H
