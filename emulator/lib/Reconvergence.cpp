//===- Reconvergence.cpp - Where divergent lanes of a warp meet again -----===//
//
// Part of the Quilt project.
//
// A warp whose lanes take different sides of a branch runs them apart until
// the branch's immediate post-dominator, then together again: what ptxas
// arranges with its reconvergence barriers (BSSY/BSYNC) and what a SIMT
// stack does in functional simulators (GPGPU-Sim). Running the lowest
// program counter first is not enough: LLVM lays a conditional block such as
// `if (tid == 0) { issue a TMA load }` out after the join point, and lanes
// that skipped it would reach a later `.aligned` instruction without lane 0.
//
// Post-dominators come from the Cooper-Harvey-Kennedy iterative algorithm on
// the reversed control-flow graph of basic blocks, rooted at a virtual exit.
//
//===----------------------------------------------------------------------===//

#include "Reconvergence.h"

#include <algorithm>
#include <functional>

namespace quilt::emu {
namespace {

bool endsBlock(const Instruction &inst) {
  return inst.op == Op::Bra || inst.op == Op::Ret || inst.op == Op::Exit ||
         inst.op == Op::Trap;
}

} // namespace

std::vector<uint32_t> reconvergencePoints(const Function &fn) {
  const std::vector<Instruction> &code = fn.code;
  const uint32_t n = uint32_t(code.size());
  std::vector<uint32_t> result(n, kNoReconvergence);
  if (n == 0)
    return result;

  // Basic blocks: leaders are the entry, branch targets and the
  // instructions after a block-ending one.
  std::vector<bool> leader(n + 1, false);
  leader[0] = true;
  for (uint32_t i = 0; i < n; ++i) {
    if (code[i].op == Op::Bra && !code[i].operands.empty() &&
        code[i].operands[0].imm < n)
      leader[code[i].operands[0].imm] = true;
    if (endsBlock(code[i]))
      leader[i + 1] = true;
  }
  std::vector<uint32_t> blockStart, blockOf(n);
  for (uint32_t i = 0; i < n; ++i) {
    if (leader[i])
      blockStart.push_back(i);
    blockOf[i] = uint32_t(blockStart.size() - 1);
  }
  const uint32_t blocks = uint32_t(blockStart.size());
  const uint32_t exitNode = blocks; // the virtual exit
  auto blockEnd = [&](uint32_t b) {
    return b + 1 < blocks ? blockStart[b + 1] : n;
  };

  // Successors of each block (exitNode for leaving the kernel).
  std::vector<std::vector<uint32_t>> succ(blocks + 1), pred(blocks + 1);
  for (uint32_t b = 0; b < blocks; ++b) {
    const Instruction &last = code[blockEnd(b) - 1];
    auto fallthrough = [&] {
      return blockEnd(b) < n ? blockOf[blockEnd(b)] : exitNode;
    };
    if (last.op == Op::Bra) {
      uint64_t target = last.operands.empty() ? n : last.operands[0].imm;
      succ[b].push_back(target < n ? blockOf[target] : exitNode);
      if (last.guarded)
        succ[b].push_back(fallthrough());
    } else if (last.op == Op::Ret || last.op == Op::Exit ||
               last.op == Op::Trap) {
      succ[b].push_back(exitNode);
      if (last.guarded)
        succ[b].push_back(fallthrough());
    } else {
      succ[b].push_back(fallthrough());
    }
    for (uint32_t s : succ[b])
      pred[s].push_back(b);
  }

  // Postorder of the reversed graph from the exit (walking predecessors).
  std::vector<uint32_t> order, number(blocks + 1, kNoReconvergence);
  std::vector<bool> seen(blocks + 1, false);
  std::vector<std::pair<uint32_t, size_t>> stack{{exitNode, 0}};
  seen[exitNode] = true;
  while (!stack.empty()) {
    auto &[node, next] = stack.back();
    if (next < pred[node].size()) {
      uint32_t p = pred[node][next++];
      if (!seen[p]) {
        seen[p] = true;
        stack.push_back({p, 0});
      }
      continue;
    }
    number[node] = uint32_t(order.size());
    order.push_back(node);
    stack.pop_back();
  }

  // Immediate post-dominators: dominators of the reversed graph.
  std::vector<uint32_t> ipdom(blocks + 1, kNoReconvergence);
  ipdom[exitNode] = exitNode;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (number[a] < number[b])
        a = ipdom[a];
      while (number[b] < number[a])
        b = ipdom[b];
    }
    return a;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    // Reverse postorder, skipping the root.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      uint32_t b = *it;
      if (b == exitNode)
        continue;
      uint32_t idom = kNoReconvergence;
      for (uint32_t s : succ[b]) {
        if (ipdom[s] == kNoReconvergence)
          continue;
        idom = idom == kNoReconvergence ? s : intersect(s, idom);
      }
      if (idom != kNoReconvergence && ipdom[b] != idom) {
        ipdom[b] = idom;
        changed = true;
      }
    }
  }

  for (uint32_t b = 0; b < blocks; ++b) {
    uint32_t last = blockEnd(b) - 1;
    if (code[last].op != Op::Bra || ipdom[b] == kNoReconvergence ||
        ipdom[b] == exitNode)
      continue;
    result[last] = blockStart[ipdom[b]];
  }
  return result;
}

} // namespace quilt::emu
