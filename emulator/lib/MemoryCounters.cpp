//===- MemoryCounters.cpp - Instruction classes, bank conflicts, sectors --===//
//
// Part of the Quilt project.
//
// What QUILT_EMULATOR_PROFILE prints beside the byte counts, computed from
// the addresses each warp instruction's lanes touched: its class, the
// shared-memory wavefronts it took (bank conflicts: 32 banks of 4 bytes;
// a request is served in phases of 128 bytes, 16-byte accesses a quarter
// warp at a time, and each phase takes as many wavefronts as the largest
// number of distinct words one bank must deliver) and the global 32-byte
// sectors it touched. These are the CUDA programming guide's and Nsight
// Compute's models of the hardware, applied to emulated addresses.
//
//===----------------------------------------------------------------------===//

#include "Cta.h"

#include <algorithm>

namespace quilt::emu {
namespace {

bool isFloatArithmetic(const Instruction &inst) {
  switch (inst.op) {
  case Op::Add:
  case Op::Sub:
  case Op::Mul:
  case Op::Fma:
  case Op::Mad:
    return isFloat(inst.type);
  default:
    return false;
  }
}

} // namespace

const char *instructionClassName(InstructionClass c) {
  static const char *const names[kNumInstructionClasses] = {
      "tensor-core", "fma", "load", "store", "shared", "barrier", "other"};
  return names[static_cast<int>(c)];
}

void Cta::countInstruction(const Instruction &inst) {
  InstructionClass c = InstructionClass::Other;
  bool shared = !accesses_.empty() && accesses_[0].space == Space::Shared;
  switch (inst.op) {
  case Op::MmaSync:
  case Op::WgmmaMma:
    c = InstructionClass::TensorCore;
    break;
  case Op::Ld:
    c = shared ? InstructionClass::Shared : InstructionClass::Load;
    break;
  case Op::St:
  case Op::Atom:
  case Op::Red:
    c = shared ? InstructionClass::Shared : InstructionClass::Store;
    break;
  case Op::Ldmatrix:
    c = InstructionClass::Shared;
    break;
  case Op::CpAsync:
  case Op::CpAsyncBulkTensor:
    c = InstructionClass::Load;
    break;
  case Op::BarSync:
  case Op::BarArrive:
  case Op::BarWarpSync:
  case Op::MbarInit:
  case Op::MbarInval:
  case Op::MbarArrive:
  case Op::MbarArriveExpectTx:
  case Op::MbarExpectTx:
  case Op::MbarCompleteTx:
  case Op::MbarTestWait:
  case Op::MbarTryWait:
  case Op::WgmmaFence:
  case Op::WgmmaCommit:
  case Op::WgmmaWait:
  case Op::CpAsyncCommit:
  case Op::CpAsyncWait:
  case Op::CpAsyncWaitAll:
    c = InstructionClass::Barrier;
    break;
  default:
    if (isFloatArithmetic(inst))
      c = InstructionClass::Fma;
    break;
  }
  ++counters_.byClass[static_cast<int>(c)];
  if (accesses_.empty())
    return;

  if (shared) {
    // Phases of 128 bytes over the lanes in order; per phase, the most
    // distinct 4-byte words any bank serves (one word to many lanes is a
    // broadcast).
    uint32_t bytes = std::max<uint32_t>(accesses_[0].bytes, 4);
    size_t lanesPerPhase = std::max<size_t>(1, 128 / bytes);
    uint64_t wavefronts = 0, phases = 0;
    for (size_t start = 0; start < accesses_.size(); start += lanesPerPhase) {
      // The distinct words of the phase (a lane touches at most 4), then
      // how many fall in the busiest bank. No allocation: this runs for
      // every shared-memory instruction.
      uint64_t words[128];
      size_t count = 0;
      size_t end = std::min(accesses_.size(), start + lanesPerPhase);
      for (size_t i = start; i < end; ++i) {
        uint64_t first = accesses_[i].address / 4;
        uint64_t last = (accesses_[i].address + accesses_[i].bytes - 1) / 4;
        for (uint64_t word = first; word <= last && count < 128; ++word)
          words[count++] = word;
      }
      std::sort(words, words + count);
      count = size_t(std::unique(words, words + count) - words);
      uint32_t perBank[32] = {};
      uint32_t most = 1;
      for (size_t i = 0; i < count; ++i)
        most = std::max(most, ++perBank[words[i] % 32]);
      wavefronts += most;
      ++phases;
    }
    ++counters_.sharedRequests;
    counters_.sharedWavefronts += wavefronts;
    counters_.sharedIdealWavefronts += phases;
    return;
  }
  if (accesses_[0].space == Space::Global ||
      accesses_[0].space == Space::Const) {
    std::vector<uint64_t> sectors;
    std::vector<std::pair<uint64_t, uint32_t>> distinct;
    for (const Access &a : accesses_) {
      for (uint64_t s = a.address / 32; s <= (a.address + a.bytes - 1) / 32;
           ++s)
        sectors.push_back(s);
      distinct.push_back({a.address, a.bytes});
    }
    std::sort(sectors.begin(), sectors.end());
    sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()),
                   distinct.end());
    uint64_t bytes = 0;
    for (const auto &[address, size] : distinct)
      bytes += size;
    ++counters_.globalRequests;
    counters_.globalSectors += sectors.size();
    counters_.globalIdealSectors += (bytes + 31) / 32;
  }
}

} // namespace quilt::emu
