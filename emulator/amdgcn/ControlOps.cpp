//===- ControlOps.cpp - Program control: branches, barriers, the end ------===//
//
// Part of the Quilt project. SOPP instructions (CDNA3 ISA section 4.4,
// RDNA3 section 4.4). Waits and scheduling hints do nothing: every
// instruction completes before the next starts. Cache write-backs and
// invalidates (the memory model's fences: buffer_wbl2, buffer_inv,
// buffer_wbinvl1_vol, buffer_gl*_inv) do nothing either: the emulator has
// no caches, every access reaches memory.
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"
#include "Semantics.h"

namespace quilt::amdgcn {
namespace {

void nothing(Wave &, const Instruction &) {}

void endProgram(Wave &w, const Instruction &) {
  w.state = Wave::State::Ended;
}

void barrier(Wave &w, const Instruction &) {
  w.state = Wave::State::AtBarrier;
}

template <bool (*Taken)(const Wave &)>
void branchIf(Wave &w, const Instruction &in) {
  if (Taken(w))
    w.pc = in.target;
}

/// s_trap: the program asked to stop (LLVM emits it for llvm.trap, e.g.
/// on an impossible division); a GPU aborts the dispatch.
void trap(Wave &w, const Instruction &in) {
  fail(w, -1, kHipErrorLaunchFailure, "the kernel executed s_trap");
}

bool always(const Wave &) { return true; }
bool sccZero(const Wave &w) { return !w.scc; }
bool sccOne(const Wave &w) { return w.scc; }
bool execZero(const Wave &w) { return w.exec() == 0; }
bool execNonZero(const Wave &w) { return w.exec() != 0; }
bool vccZero(const Wave &w) {
  uint64_t vcc = w.width == 64 ? (uint64_t(w.s[kVccHi]) << 32) | w.s[kVccLo]
                               : w.s[kVccLo];
  return vcc == 0;
}
bool vccNonZero(const Wave &w) { return !vccZero(w); }

} // namespace

void registerControlOps(HandlerTable &t) {
  for (const char *name : {"s_waitcnt",
                           "s_waitcnt_vscnt",
                           "s_waitcnt_vmcnt",
                           "s_waitcnt_lgkmcnt",
                           "s_waitcnt_expcnt",
                           "s_waitcnt_depctr",
                           "s_delay_alu",
                           "s_clause",
                           "s_nop",
                           "s_sleep",
                           "s_setprio",
                           "s_code_end",
                           "s_inst_prefetch",
                           "s_icache_inv",
                           "s_dcache_wb",
                           "buffer_wbl2",
                           "buffer_inv",
                           "s_wait_idle",
                           "s_set_inst_prefetch_distance",
                           "s_sendmsg",
                           "buffer_gl0_inv",
                           "buffer_gl1_inv",
                           "buffer_wbinvl1_vol",
                           "buffer_wbinvl1"})
    t[name] = {nothing, false, true};
  t["s_endpgm"] = {endProgram, false, true};
  t["s_barrier"] = {barrier, false, true};
  t["s_trap"] = {trap, false};
  // What follows s_trap in LLVM's gfx11 code (the trap handler's fallback):
  // never reached, since s_trap ends the launch, but decodable.
  t["s_sethalt"] = {trap, false, true};
  t["s_sendmsg_rtn_b32"] = {trap, false, true};
  t["s_branch"] = {branchIf<always>, true};
  t["s_cbranch_scc0"] = {branchIf<sccZero>, true};
  t["s_cbranch_scc1"] = {branchIf<sccOne>, true};
  t["s_cbranch_execz"] = {branchIf<execZero>, true};
  t["s_cbranch_execnz"] = {branchIf<execNonZero>, true};
  t["s_cbranch_vccz"] = {branchIf<vccZero>, true};
  t["s_cbranch_vccnz"] = {branchIf<vccNonZero>, true};
}

const HandlerTable &handlers() {
  static const HandlerTable table = [] {
    HandlerTable t;
    registerControlOps(t);
    registerScalarOps(t);
    registerVectorOps(t);
    registerMemoryOps(t);
    registerMatrixOps(t);
    return t;
  }();
  return table;
}

} // namespace quilt::amdgcn
