//===- MatrixOps.cpp - ldmatrix, mma.sync and wgmma on warps --------------===//
//
// Part of the Quilt project.
//
// Gathers each lane's registers into the arrays TensorCore.h works on
// (whose fragment layouts follow PTX ISA 9.7.14.5 and 9.7.15.5) and
// scatters the results back. These instructions are `.aligned`: every
// live lane of the warp (for wgmma, of the warpgroup) must execute them
// together, or the launch fails.
//
// wgmma.mma_async runs when the whole warpgroup has reached it and its
// result is in the accumulators at once; commit_group and wait_group keep
// the books by which WgmmaHazards.cpp reports every access that would see
// the difference on a GPU, where it runs on until its wait_group.
//
//===----------------------------------------------------------------------===//

#include "Cta.h"
#include "DeviceMemory.h"
#include "FloatFormats.h"
#include "TensorCore.h"

#include <cstdio>

namespace quilt::emu {
namespace {

bool toMmaType(Type t, MmaType &m) {
  switch (t) {
  case Type::F16:
    m = MmaType::F16;
    return true;
  case Type::BF16:
    m = MmaType::BF16;
    return true;
  case Type::TF32:
    m = MmaType::TF32;
    return true;
  case Type::F32:
    m = MmaType::F32;
    return true;
  default:
    return false;
  }
}

} // namespace

bool Cta::executeMatrix(Warp &w, const Instruction &inst, uint32_t exec) {
  int lane0 = __builtin_ctz(exec);
  if (exec != w.liveMask)
    return fail(kErrorLaunchFailed, "divergent warp-collective instruction",
                inst, w, lane0,
                "executed by lanes " + laneMaskText(exec) +
                    " of the live lanes " + laneMaskText(w.liveMask) +
                    "; .aligned instructions need the whole warp");
  const std::vector<Operand> &ops = inst.operands;
  switch (inst.op) {
  case Op::WgmmaFence:
    return true;
  case Op::WgmmaCommit:
    commitWgmmaGroup(w);
    return true;
  case Op::WgmmaWait:
    if (ops.empty())
      return fail(kErrorLaunchFailed, "invalid wgmma operands", inst, w, lane0,
                  "wgmma.wait_group needs its group count");
    waitWgmmaGroups(w, size_t(read(w, lane0, ops[0])));
    return true;
  case Op::Ldmatrix: {
    uint32_t rows[32] = {0};
    for (int lane = 0; lane < 32; ++lane)
      if (exec >> lane & 1) {
        uint64_t a = addressOf(w, lane, ops[1]);
        if (inst.space != Space::Shared && inSharedWindow(a))
          a -= kSharedWindow;
        rows[lane] = uint32_t(a);
      }
    // Which lanes' addresses the instruction reads: 8 per matrix.
    int used = 8 * inst.count;
    for (int lane = 0; lane < used; ++lane) {
      if (rows[lane] % 16)
        return fail(kErrorMisalignedAddress, "misaligned address", inst, w,
                    lane,
                    "ldmatrix row at shared offset " +
                        std::to_string(rows[lane]) + " is not 16-byte aligned");
      if (!sharedBytesAt(rows[lane], 16))
        return fail(kErrorIllegalAddress, "out-of-bounds shared load", inst, w,
                    lane,
                    "ldmatrix row at shared offset " +
                        std::to_string(rows[lane]) + ", outside the CTA's " +
                        std::to_string(shared_.size()) + " bytes");
      std::string hazard =
          checker_.read(threadId(w, lane), rows[lane], 16, barrierEpoch,
                        w.lanes[lane].observedPhases);
      if (!hazard.empty())
        return fail(kErrorLaunchFailed, "shared-memory hazard", inst, w, lane,
                    hazard);
    }
    uint32_t out[32][4] = {};
    ldmatrix(
        inst.count, inst.trans, rows,
        [&](uint32_t addr, uint8_t bytes[16]) {
          std::memcpy(bytes, shared_.data() + addr, 16);
        },
        out);
    counters_.sharedLoadBytes += 16u * used;
    for (int lane = 0; lane < used; ++lane)
      noteAccess(rows[lane], 16, Space::Shared);
    const Operand &dst = ops[0];
    for (int lane = 0; lane < 32; ++lane)
      for (int j = 0; j < inst.count; ++j)
        write(w, lane,
              dst.kind == Operand::Kind::Vector ? dst.elements[j] : dst,
              out[lane][j], Type::B32);
    return true;
  }
  case Op::MmaSync: {
    MmaType d, a, b, c;
    if (!toMmaType(inst.mmaTypes[0], d) || !toMmaType(inst.mmaTypes[1], a) ||
        !toMmaType(inst.mmaTypes[2], b) || !toMmaType(inst.mmaTypes[3], c) ||
        a != b || c != d)
      return fail(kErrorLaunchFailed, "unsupported instruction", inst, w, lane0,
                  "mma.sync with these types");
    uint32_t A[32][4] = {}, B[32][4] = {}, C[32][4] = {}, D[32][4] = {};
    auto gather = [&](const Operand &op, uint32_t(*regs)[4]) {
      for (int lane = 0; lane < 32; ++lane)
        for (size_t i = 0; i < op.elements.size() && i < 4; ++i)
          regs[lane][i] = uint32_t(read(w, lane, op.elements[i]));
    };
    gather(ops[1], A);
    gather(ops[2], B);
    gather(ops[3], C);
    std::string why;
    if (!mmaSync(MmaShape{inst.shapeM, inst.shapeN, inst.shapeK}, a, d,
                 inst.aRowMajor, inst.bColMajor, A, B, C, D, &why))
      return fail(kErrorLaunchFailed, "unsupported instruction", inst, w, lane0,
                  why);
    for (int lane = 0; lane < 32; ++lane)
      for (size_t i = 0; i < ops[0].elements.size() && i < 4; ++i)
        write(w, lane, ops[0].elements[i], D[lane][i], Type::B32);
    ++counters_.tensorInstructions;
    return true;
  }
  default:
    return true;
  }
}

bool Cta::executeWarpgroupMma(const Instruction &inst, Warp *group[4]) {
  const std::vector<Operand> &ops = inst.operands;
  Warp &w0 = *group[0];
  MmaType d, ab;
  if (!toMmaType(inst.mmaTypes[0], d) || !toMmaType(inst.mmaTypes[1], ab) ||
      inst.mmaTypes[1] != inst.mmaTypes[2])
    return fail(kErrorLaunchFailed, "unsupported instruction", inst, w0, 0,
                "wgmma.mma_async with these types");
  int n = inst.shapeN;
  bool aFromRegisters = ops[1].kind == Operand::Kind::Vector;
  // d, a, b, scale-d, imm-scale-a, imm-scale-b[, imm-trans-a], imm-trans-b
  size_t expected = aFromRegisters ? 7 : 8;
  if (ops.size() != expected)
    return fail(kErrorLaunchFailed, "invalid wgmma operands", inst, w0, 0,
                std::to_string(ops.size()) + " operands, expected " +
                    std::to_string(expected));
  bool f16Accumulator = d == MmaType::F16;
  size_t accRegs = f16Accumulator ? size_t(n) / 4 : size_t(n) / 2;
  if (ops[0].elements.size() != accRegs)
    return fail(kErrorLaunchFailed, "invalid wgmma operands", inst, w0, 0,
                std::to_string(ops[0].elements.size()) +
                    " accumulator registers, m64n" + std::to_string(n) +
                    " needs " + std::to_string(accRegs));
  std::vector<float> acc(size_t(128) * (n / 2));
  uint32_t aRegs[128][4] = {};
  for (int t = 0; t < 128; ++t) {
    Warp &w = *group[t / 32];
    int lane = t % 32;
    for (size_t r = 0; r < accRegs; ++r) {
      uint64_t v = read(w, lane, ops[0].elements[r]);
      if (f16Accumulator) {
        acc[t * (n / 2) + 2 * r] = f16ToF32(uint16_t(v));
        acc[t * (n / 2) + 2 * r + 1] = f16ToF32(uint16_t(v >> 16));
      } else {
        acc[t * (n / 2) + r] = asF32(v);
      }
    }
    if (aFromRegisters)
      for (size_t i = 0; i < 4 && i < ops[1].elements.size(); ++i)
        aRegs[t][i] = uint32_t(read(w, lane, ops[1].elements[i]));
  }
  uint64_t descA = aFromRegisters ? 0 : read(w0, 0, ops[1]);
  uint64_t descB = read(w0, 0, ops[2]);
  bool scaleD = read(w0, 0, ops[3]) & 1;
  int scaleA = int(int64_t(read(w0, 0, ops[4])));
  int scaleB = int(int64_t(read(w0, 0, ops[5])));
  bool transA = aFromRegisters ? false : read(w0, 0, ops[6]) & 1;
  bool transB = read(w0, 0, ops[aFromRegisters ? 6 : 7]) & 1;

  std::string readFailure;
  uint32_t groupThread = threadId(w0, 0);
  uint32_t warpgroup = w0.index / 4;
  uint32_t number = issueWgmma(inst, group, ops[0]);
  auto readShared = [&](uint32_t addr, void *dst, unsigned bytes) {
    if (!readFailure.empty() || !sharedBytesAt(addr, bytes)) {
      if (readFailure.empty())
        readFailure = "reads shared offset " + std::to_string(addr) +
                      ", outside the CTA's " + std::to_string(shared_.size()) +
                      " bytes";
      std::memset(dst, 0, bytes);
      return;
    }
    std::string hazard = checker_.read(groupThread, addr, bytes, barrierEpoch,
                                       w0.lanes[0].observedPhases,
                                       /*recordReader=*/false);
    if (!hazard.empty())
      readFailure = hazard;
    checker_.wgmmaRead(warpgroup, number, addr, bytes);
    std::memcpy(dst, shared_.data() + addr, bytes);
    counters_.sharedLoadBytes += bytes;
  };
  std::string why;
  if (!wgmma(n, ab, d, aFromRegisters, aRegs, descA, descB, transA, transB,
             scaleA, scaleB, scaleD, readShared, acc.data(), &why))
    return fail(kErrorLaunchFailed, "unsupported instruction", inst, w0, 0,
                why);
  if (!readFailure.empty())
    return fail(kErrorIllegalAddress, "wgmma operand fault", inst, w0, 0,
                readFailure);
  for (int t = 0; t < 128; ++t) {
    Warp &w = *group[t / 32];
    int lane = t % 32;
    for (size_t r = 0; r < accRegs; ++r) {
      uint64_t v;
      if (f16Accumulator)
        v = uint64_t(
                f32ToF16(acc[t * (n / 2) + 2 * r], Rounding::NearestEven)) |
            uint64_t(
                f32ToF16(acc[t * (n / 2) + 2 * r + 1], Rounding::NearestEven))
                << 16;
      else
        v = fromF32(acc[t * (n / 2) + r]);
      write(w, lane, ops[0].elements[r], v, Type::B32);
    }
  }
  counters_.tensorInstructions += 4;
  return true;
}

} // namespace quilt::emu
