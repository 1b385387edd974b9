//===- Reconvergence.h - Where divergent lanes of a warp meet again -*- C++
//-*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_RECONVERGENCE_H
#define QUILT_EMULATOR_RECONVERGENCE_H

#include "Ptx.h"

#include <cstdint>
#include <vector>

namespace quilt::emu {

constexpr uint32_t kNoReconvergence = 0xffffffffu;

/// For each `bra` of `fn`, the instruction where the lanes that diverge
/// there reconverge: the first instruction of the branch's immediate
/// post-dominator. kNoReconvergence for other instructions and for
/// branches whose paths only meet at the kernel's exit.
std::vector<uint32_t> reconvergencePoints(const Function &fn);

} // namespace quilt::emu

#endif // QUILT_EMULATOR_RECONVERGENCE_H
