//===- WarpOps.cpp - shfl.sync, vote.sync, elect.sync, activemask ---------===//
//
// Part of the Quilt project.
//
// PTX ISA 9.7.8.6 (shfl.sync), 9.7.13.8 (vote.sync), 9.7.13.x (elect.sync),
// 9.7.13.3 (bar.warp.sync), 9.7.13.9 (activemask). Every live thread named in
// the membermask must execute the instruction together; the emulator checks
// that instead of leaving the result undefined.
//
//===----------------------------------------------------------------------===//

#include "Cta.h"

#include <cstdio>

namespace quilt::emu {

bool Cta::executeWarp(Warp &w, const Instruction &inst, uint32_t exec,
                      uint32_t active) {
  const std::vector<Operand> &ops = inst.operands;
  int lane0 = __builtin_ctz(exec);
  if (inst.op == Op::Activemask) {
    for (int lane = 0; lane < 32; ++lane)
      if (exec >> lane & 1)
        write(w, lane, ops[0], active, Type::B32);
    return true;
  }
  // The membermask is the last operand of every other one.
  uint32_t members = uint32_t(read(w, lane0, ops.back()));
  uint32_t required = members & w.liveMask;
  if ((exec & required) != required || (exec & ~members))
    return fail(kErrorLaunchFailed, "divergent warp-collective instruction",
                inst, w, lane0,
                "membermask " + laneMaskText(members) + " with live lanes " +
                    laneMaskText(w.liveMask) + ", but executed by lanes " +
                    laneMaskText(exec));
  switch (inst.op) {
  case Op::BarWarpSync:
    return true;
  case Op::ElectSync: {
    int leader = __builtin_ctz(exec);
    for (int lane = 0; lane < 32; ++lane) {
      if (!(exec >> lane & 1))
        continue;
      const Operand &dst = ops[0];
      if (dst.kind == Operand::Kind::Vector) {
        write(w, lane, dst.elements[0], uint64_t(leader), Type::B32);
        write(w, lane, dst.elements[1], lane == leader, Type::Pred);
      } else {
        write(w, lane, dst, lane == leader, Type::Pred);
      }
    }
    return true;
  }
  case Op::Vote: {
    uint32_t ballot = 0;
    for (int lane = 0; lane < 32; ++lane)
      if ((exec >> lane & 1) && (read(w, lane, ops[1]) & 1))
        ballot |= 1u << lane;
    for (int lane = 0; lane < 32; ++lane) {
      if (!(exec >> lane & 1))
        continue;
      switch (inst.vote) {
      case VoteMode::Ballot:
        write(w, lane, ops[0], ballot, Type::B32);
        break;
      case VoteMode::All:
        write(w, lane, ops[0], ballot == exec, Type::Pred);
        break;
      case VoteMode::Any:
        write(w, lane, ops[0], ballot != 0, Type::Pred);
        break;
      case VoteMode::Uni:
        write(w, lane, ops[0], ballot == 0 || ballot == exec, Type::Pred);
        break;
      }
    }
    return true;
  }
  case Op::Shfl: {
    // Read every source first: all lanes exchange at once.
    uint64_t values[32];
    for (int lane = 0; lane < 32; ++lane)
      values[lane] = (exec >> lane & 1) ? read(w, lane, ops[1]) : 0;
    for (int lane = 0; lane < 32; ++lane) {
      if (!(exec >> lane & 1))
        continue;
      uint32_t b = uint32_t(read(w, lane, ops[2])) & 0x1f;
      uint32_t c = uint32_t(read(w, lane, ops[3]));
      uint32_t segmask = (c >> 8) & 0x1f;
      int maxLane = int((uint32_t(lane) & segmask) | (c & 0x1f & ~segmask));
      int minLane = int(uint32_t(lane) & segmask);
      int j = lane;
      bool valid = false;
      switch (inst.shfl) {
      case ShflMode::Up:
        j = lane - int(b);
        valid = j >= maxLane;
        break;
      case ShflMode::Down:
        j = lane + int(b);
        valid = j <= maxLane;
        break;
      case ShflMode::Bfly:
        j = lane ^ int(b);
        valid = j <= maxLane;
        break;
      case ShflMode::Idx:
        j = minLane | int(b & ~segmask);
        valid = j <= maxLane;
        break;
      }
      if (!valid)
        j = lane;
      if (!(exec >> j & 1))
        return fail(kErrorLaunchFailed, "undefined shfl.sync source", inst, w,
                    lane,
                    "reads lane " + std::to_string(j) +
                        ", which does not execute the shuffle");
      const Operand &dst = ops[0];
      if (dst.kind == Operand::Kind::Vector) {
        write(w, lane, dst.elements[0], values[j] & 0xffffffffu, Type::B32);
        write(w, lane, dst.elements[1], valid, Type::Pred);
      } else {
        write(w, lane, dst, values[j] & 0xffffffffu, Type::B32);
      }
    }
    return true;
  }
  default:
    return true;
  }
}

} // namespace quilt::emu
