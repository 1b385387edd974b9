//===- Semantics.h - What each AMDGCN instruction does ----------*- C++ -*-===//
//
// Part of the Quilt project.
//
// Handlers implement instructions as the CDNA3 and RDNA3 ISA manuals
// describe them, one file per family (scalar ALU, vector ALU, memory,
// matrix, program control). The decoder binds each decoded instruction to
// its handler once, by mnemonic; an instruction without one is refused at
// load time with its name, so a kernel never half-runs.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_AMDGCN_SEMANTICS_H
#define QUILT_EMULATOR_AMDGCN_SEMANTICS_H

#include "Isa.h"

#include <string>
#include <unordered_map>

namespace quilt::amdgcn {

/// How an instruction's constants are typed, and what it is for counters.
struct OpcodeInfo {
  Handler handler = nullptr;
  bool isBranch = false; ///< its first operand is a simm16 word offset
  /// Its operands say nothing the emulator needs (waits, hints, messages,
  /// cache controls): the decoder does not read them.
  bool ignoresOperands = false;
};

using HandlerTable = std::unordered_map<std::string, OpcodeInfo>;

/// The table of every implemented mnemonic (as LLVM prints it, without
/// an _e32/_e64 encoding suffix).
const HandlerTable &handlers();

void registerScalarOps(HandlerTable &table);
void registerVectorOps(HandlerTable &table);
void registerMemoryOps(HandlerTable &table);
void registerMatrixOps(HandlerTable &table);
void registerControlOps(HandlerTable &table);

} // namespace quilt::amdgcn

#endif // QUILT_EMULATOR_AMDGCN_SEMANTICS_H
