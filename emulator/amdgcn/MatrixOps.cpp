//===- MatrixOps.cpp - MFMA (CDNA) and WMMA (RDNA3) -----------------------===//
//
// Part of the Quilt project. Where each lane keeps which element of A, B,
// C and D is what AMD's matrix instruction calculator prints for these
// instructions; the unit tests (unittests/AmdgcnEmulator) check every lane
// and register against its tables, so the formulas here are not trusted
// on their own:
//
//   MFMA MxNxK, wave64, one block: lane l holds A[l % M][kl*(l / M) + e]
//   and B[kl*(l / N) + e][l % N], kl = K / (64 / M) elements e; result
//   register r of lane l is D[(r / 4) * (4 * 64 / N) + 4 * (l / N) + r % 4][l % N].
//
//   WMMA 16x16x16, wave32: lane l holds row l % 16 of A and column l % 16
//   of B, all 16 K elements (lanes 16-31 must repeat lanes 0-15); result
//   register r of lane l is D[2r + l / 16][l % 16] (f16 results in the
//   half op_sel[2] picks).
//
// Products and sums are exact in double and rounded once to the result
// type; the hardware's internal order is unspecified, so results agree
// with it to the rounding of the accumulation.
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"
#include "Semantics.h"
#include "VectorAlu.h"

namespace quilt::amdgcn {
namespace {

enum class Element { F16, BF16 };

inline float element(Element type, uint16_t bits) {
  return type == Element::F16 ? f16ToF32(bits) : asF32(uint32_t(bits) << 16);
}
inline uint16_t halfOf(const Wave &w, const Operand &o, unsigned lane,
                       unsigned e) {
  return uint16_t(read32(w, o, lane, e / 2) >> (16 * (e % 2)));
}

bool checkFullExec(Wave &w, const char *what) {
  if (w.exec() == w.laneMask())
    return true;
  fail(w, -1, kHipErrorLaunchFailure,
       std::string(what) + " with EXEC not all ones (its result is undefined)");
  return false;
}

template <unsigned M, unsigned N, unsigned K, Element Type>
void mfma(Wave &w, const Instruction &in) {
  if (in.cbsz || in.abid || in.blgp) {
    fail(w, -1, kHipErrorLaunchFailure,
         "MFMA broadcast controls (cbsz/abid/blgp) are not implemented");
    return;
  }
  if (!checkFullExec(w, "an MFMA"))
    return;
  constexpr unsigned perLane = K / (64 / M);
  constexpr unsigned groups = 64 / N;
  float a[M][K], b[K][N];
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned e = 0; e < perLane; ++e) {
      a[l % M][perLane * (l / M) + e] = element(Type, halfOf(w, in.ops[1], l, e));
      b[perLane * (l / N) + e][l % N] = element(Type, halfOf(w, in.ops[2], l, e));
    }
  constexpr unsigned results = M * N / 64;
  float d[64][results];
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned r = 0; r < results; ++r) {
      unsigned i = (r / 4) * (4 * groups) + 4 * (l / N) + r % 4, j = l % N;
      double sum = asF32(read32(w, in.ops[3], l, r));
      for (unsigned k = 0; k < K; ++k)
        sum += double(a[i][k]) * double(b[k][j]);
      d[l][r] = float(sum);
    }
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned r = 0; r < results; ++r)
      write32(w, in.ops[0], l, bitsF32(d[l][r]), r);
}

/// gfx11's rule: lanes 16-31 of A and B repeat lanes 0-15.
bool checkReplicated(Wave &w, const Operand &o, const char *which) {
  for (unsigned l = 0; l < 16; ++l)
    for (unsigned r = 0; r < 8; ++r)
      if (read32(w, o, l, r) != read32(w, o, l + 16, r)) {
        fail(w, int(l + 16), kHipErrorLaunchFailure,
             std::string("WMMA ") + which + " operand: lane " +
                 std::to_string(l + 16) + " register " + std::to_string(r) +
                 " differs from lane " + std::to_string(l) +
                 " (RDNA3 requires lanes 16-31 to repeat lanes 0-15)");
        return false;
      }
  return true;
}

template <Element Type, bool HalfResult>
void wmma(Wave &w, const Instruction &in) {
  if (w.width != 32) {
    fail(w, -1, kHipErrorLaunchFailure, "WMMA in a wave64 kernel is not implemented");
    return;
  }
  if (in.negLo || in.negHi) {
    fail(w, -1, kHipErrorLaunchFailure, "WMMA neg modifiers are not implemented");
    return;
  }
  if (!checkFullExec(w, "a WMMA") || !checkReplicated(w, in.ops[1], "A") ||
      !checkReplicated(w, in.ops[2], "B"))
    return;
  float a[16][16], b[16][16];
  for (unsigned l = 0; l < 16; ++l)
    for (unsigned k = 0; k < 16; ++k) {
      a[l][k] = element(Type, halfOf(w, in.ops[1], l, k));
      b[k][l] = element(Type, halfOf(w, in.ops[2], l, k));
    }
  bool high = (in.opSel >> 2) & 1;
  uint32_t d[32][8];
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned r = 0; r < 8; ++r) {
      unsigned i = 2 * r + l / 16, j = l % 16;
      uint32_t c = read32(w, in.ops[3], l, r);
      double sum = HalfResult ? double(f16ToF32(uint16_t(high ? c >> 16 : c)))
                              : double(asF32(c));
      for (unsigned k = 0; k < 16; ++k)
        sum += double(a[i][k]) * double(b[k][j]);
      if (HalfResult) {
        uint32_t h = emu::f64ToF16(sum, emu::Rounding::NearestEven);
        uint32_t old = read32(w, in.ops[0], l, r);
        d[l][r] = high ? (old & 0xffff) | (h << 16) : (old & 0xffff0000u) | h;
      } else {
        d[l][r] = bitsF32(float(sum));
      }
    }
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned r = 0; r < 8; ++r)
      write32(w, in.ops[0], l, d[l][r], r);
}

} // namespace

void registerMatrixOps(HandlerTable &t) {
  auto add = [&](const char *name, Handler h) { t[name] = {h, false}; };
  // CDNA3 names, and CDNA2's for the same operations.
  add("v_mfma_f32_32x32x8_f16", mfma<32, 32, 8, Element::F16>);
  add("v_mfma_f32_32x32x8f16", mfma<32, 32, 8, Element::F16>);
  add("v_mfma_f32_16x16x16_f16", mfma<16, 16, 16, Element::F16>);
  add("v_mfma_f32_16x16x16f16", mfma<16, 16, 16, Element::F16>);
  add("v_mfma_f32_32x32x8_bf16", mfma<32, 32, 8, Element::BF16>);
  add("v_mfma_f32_32x32x8bf16_1k", mfma<32, 32, 8, Element::BF16>);
  add("v_mfma_f32_16x16x16_bf16", mfma<16, 16, 16, Element::BF16>);
  add("v_mfma_f32_16x16x16bf16_1k", mfma<16, 16, 16, Element::BF16>);
  add("v_wmma_f32_16x16x16_f16", wmma<Element::F16, false>);
  add("v_wmma_f32_16x16x16_bf16", wmma<Element::BF16, false>);
  add("v_wmma_f16_16x16x16_f16", wmma<Element::F16, true>);
}

} // namespace quilt::amdgcn
