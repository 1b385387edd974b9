//===- Decoder.h - AMDGCN machine code to Instructions ----------*- C++ -*-===//
//
// Part of the Quilt project.
//
// Decodes a kernel's machine code with LLVM's AMDGPU MC disassembler (no
// instruction encoding is written here), prints each instruction in the
// ISA manuals' syntax with LLVM's instruction printer, and resolves that
// text once into an Instruction: handler, register indices, constants as
// bits of the instruction's source type, modifiers and branch targets.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_AMDGCN_DECODER_H
#define QUILT_EMULATOR_AMDGCN_DECODER_H

#include "Isa.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace quilt::amdgcn {

/// Decodes `code` for `processor` (gfx942, gfx90a, gfx1100, ...).
llvm::Expected<std::vector<Instruction>>
decodeKernel(const std::string &processor, const std::vector<uint8_t> &code);

/// Resolves one instruction as LLVM prints it ("v_add_f32_e32 v1, 1.0, v2").
/// Exposed for the unit tests that pin operand orders.
llvm::Expected<Instruction> parseInstruction(const std::string &text);

/// The mnemonic without its encoding suffix (_e32, _e64): the handler key.
std::string baseMnemonic(const std::string &mnemonic);

/// The unit that executes a mnemonic (Isa.h), for the counters.
Unit unitOf(llvm::StringRef mnemonic);

} // namespace quilt::amdgcn

#endif // QUILT_EMULATOR_AMDGCN_DECODER_H
