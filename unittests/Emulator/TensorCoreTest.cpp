//===- TensorCoreTest.cpp - mma.sync, ldmatrix and wgmma semantics --------===//
//
// Part of the Quilt project.
//
// Expected values come from the PTX ISA, written down here independently of
// TensorCore.cpp: the fragment tables of section 9.7.14.5 (mma), Figure 104
// (ldmatrix), Figures 148/149 (wgmma register fragments) and the exact
// layouts of the shared-memory examples of 9.7.15.5.1.2.1.3, evaluated by a
// small CuTe-style layout evaluator with CuTe's definition of Swizzle<B,M,S>.
//
//===----------------------------------------------------------------------===//

#include "FloatFormats.h"
#include "TensorCore.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <vector>

using namespace quilt::emu;

namespace {

//===----------------------------------------------------------------------===//
// Fragment positions against the ISA's tables
//===----------------------------------------------------------------------===//

struct Pos {
  int Row, Col;
  bool operator==(const Pos &O) const { return Row == O.Row && Col == O.Col; }
};

Pos position(MmaShape S, MmaType T, MmaOperand Op, int Lane, int Elem) {
  Pos P{-1, -1};
  EXPECT_TRUE(mmaFragmentPosition(S, T, Op, Lane, Elem, P.Row, P.Col));
  return P;
}

constexpr MmaShape K16{16, 8, 16}, K8{16, 8, 8}, K4{16, 8, 4};

TEST(MmaFragments, M16N8K16AFigure79) {
  // Figure 79, lane 0 (T0): a0,a1 at row 0 cols 0-1, a2,a3 row 8, a4,a5 row
  // 0 cols 8-9, a6,a7 row 8 cols 8-9.
  const Pos Lane0[8] = {{0, 0}, {0, 1}, {8, 0}, {8, 1},
                        {0, 8}, {0, 9}, {8, 8}, {8, 9}};
  // Lane 7 (T7): groupID 1, threadID_in_group 3.
  const Pos Lane7[8] = {{1, 6}, {1, 7}, {9, 6}, {9, 7},
                        {1, 14}, {1, 15}, {9, 14}, {9, 15}};
  for (int I = 0; I < 8; ++I) {
    EXPECT_EQ(position(K16, MmaType::F16, MmaOperand::A, 0, I), Lane0[I]);
    EXPECT_EQ(position(K16, MmaType::BF16, MmaOperand::A, 7, I), Lane7[I]);
  }
  // The formula of 9.7.14.5.8 for every lane.
  for (int Lane = 0; Lane < 32; ++Lane)
    for (int I = 0; I < 8; ++I) {
      int G = Lane >> 2, T = Lane % 4;
      int Row = (I < 2 || (I >= 4 && I < 6)) ? G : G + 8;
      int Col = I < 4 ? T * 2 + (I & 1) : T * 2 + (I & 1) + 8;
      EXPECT_EQ(position(K16, MmaType::F16, MmaOperand::A, Lane, I),
                (Pos{Row, Col}));
    }
}

TEST(MmaFragments, M16N8K16BAndC) {
  // B (Figure 81): row = T*2 + (i&1) (+8 for i >= 2), col = groupID.
  EXPECT_EQ(position(K16, MmaType::F16, MmaOperand::B, 0, 0), (Pos{0, 0}));
  EXPECT_EQ(position(K16, MmaType::F16, MmaOperand::B, 0, 3), (Pos{9, 0}));
  EXPECT_EQ(position(K16, MmaType::F16, MmaOperand::B, 31, 0), (Pos{6, 7}));
  EXPECT_EQ(position(K16, MmaType::F16, MmaOperand::B, 31, 3), (Pos{15, 7}));
  // C/D (Figure 83): row = groupID (+8 for c2,c3), col = T*2 + (i&1).
  EXPECT_EQ(position(K16, MmaType::F32, MmaOperand::C, 0, 0), (Pos{0, 0}));
  EXPECT_EQ(position(K16, MmaType::F32, MmaOperand::C, 5, 1), (Pos{1, 3}));
  EXPECT_EQ(position(K16, MmaType::F32, MmaOperand::C, 5, 2), (Pos{9, 2}));
  EXPECT_EQ(position(K16, MmaType::F16, MmaOperand::C, 31, 3), (Pos{15, 7}));
  for (int Lane = 0; Lane < 32; ++Lane)
    for (int I = 0; I < 4; ++I) {
      int G = Lane >> 2, T = Lane % 4;
      EXPECT_EQ(position(K16, MmaType::BF16, MmaOperand::B, Lane, I),
                (Pos{T * 2 + (I & 1) + (I >= 2 ? 8 : 0), G}));
      EXPECT_EQ(position(K16, MmaType::F32, MmaOperand::C, Lane, I),
                (Pos{I < 2 ? G : G + 8, T * 2 + (I & 1)}));
    }
}

TEST(MmaFragments, M16N8K8) {
  for (int Lane = 0; Lane < 32; ++Lane) {
    int G = Lane >> 2, T = Lane % 4;
    // tf32 A (Figure 72): row G for a0,a2, G+8 for a1,a3; col T for a0,a1,
    // T+4 for a2,a3. tf32 B (Figure 74): row T for b0, T+4 for b1; col G.
    const Pos TfA[4] = {{G, T}, {G + 8, T}, {G, T + 4}, {G + 8, T + 4}};
    for (int I = 0; I < 4; ++I)
      EXPECT_EQ(position(K8, MmaType::TF32, MmaOperand::A, Lane, I), TfA[I]);
    EXPECT_EQ(position(K8, MmaType::TF32, MmaOperand::B, Lane, 0), (Pos{T, G}));
    EXPECT_EQ(position(K8, MmaType::TF32, MmaOperand::B, Lane, 1),
              (Pos{T + 4, G}));
    // f16 A (Figure 71): row G for a0,a1, G+8 for a2,a3; col T*2 + (i&1).
    // f16 B: row T*2 + i, col G.
    for (int I = 0; I < 4; ++I)
      EXPECT_EQ(position(K8, MmaType::F16, MmaOperand::A, Lane, I),
                (Pos{I < 2 ? G : G + 8, T * 2 + (I & 1)}));
    for (int I = 0; I < 2; ++I)
      EXPECT_EQ(position(K8, MmaType::F16, MmaOperand::B, Lane, I),
                (Pos{T * 2 + I, G}));
  }
  EXPECT_EQ(mmaFragmentRegisters(K8, MmaType::F16, MmaOperand::A), 2);
  EXPECT_EQ(mmaFragmentRegisters(K8, MmaType::F16, MmaOperand::B), 1);
  EXPECT_EQ(mmaFragmentRegisters(K8, MmaType::TF32, MmaOperand::A), 4);
  EXPECT_EQ(mmaFragmentRegisters(K8, MmaType::TF32, MmaOperand::B), 2);
  EXPECT_EQ(mmaFragmentRegisters(K16, MmaType::F16, MmaOperand::A), 4);
  EXPECT_EQ(mmaFragmentRegisters(K16, MmaType::F16, MmaOperand::B), 2);
  EXPECT_EQ(mmaFragmentRegisters(K16, MmaType::F16, MmaOperand::C), 2);
  EXPECT_EQ(mmaFragmentRegisters(K16, MmaType::F32, MmaOperand::C), 4);
}

TEST(MmaFragments, M16N8K4Tf32) {
  // 9.7.14.5.6, Figure 65 (A, .tf32): a0 at (groupID, threadID_in_group),
  // a1 at (groupID + 8, threadID_in_group).
  EXPECT_EQ(position(K4, MmaType::TF32, MmaOperand::A, 0, 0), (Pos{0, 0}));
  EXPECT_EQ(position(K4, MmaType::TF32, MmaOperand::A, 0, 1), (Pos{8, 0}));
  EXPECT_EQ(position(K4, MmaType::TF32, MmaOperand::A, 6, 0), (Pos{1, 2}));
  EXPECT_EQ(position(K4, MmaType::TF32, MmaOperand::A, 6, 1), (Pos{9, 2}));
  EXPECT_EQ(position(K4, MmaType::TF32, MmaOperand::A, 31, 0), (Pos{7, 3}));
  EXPECT_EQ(position(K4, MmaType::TF32, MmaOperand::A, 31, 1), (Pos{15, 3}));
  // Figure 67 (B, .tf32): b0 at (threadID_in_group, groupID).
  EXPECT_EQ(position(K4, MmaType::TF32, MmaOperand::B, 0, 0), (Pos{0, 0}));
  EXPECT_EQ(position(K4, MmaType::TF32, MmaOperand::B, 6, 0), (Pos{2, 1}));
  EXPECT_EQ(position(K4, MmaType::TF32, MmaOperand::B, 31, 0), (Pos{3, 7}));
  // Figure 69 (C/D, .f32): as for m16n8k8/k16.
  EXPECT_EQ(position(K4, MmaType::F32, MmaOperand::C, 6, 0), (Pos{1, 4}));
  EXPECT_EQ(position(K4, MmaType::F32, MmaOperand::C, 6, 3), (Pos{9, 5}));
  for (int Lane = 0; Lane < 32; ++Lane) {
    int G = Lane >> 2, T = Lane % 4;
    EXPECT_EQ(position(K4, MmaType::TF32, MmaOperand::A, Lane, 0), (Pos{G, T}));
    EXPECT_EQ(position(K4, MmaType::TF32, MmaOperand::A, Lane, 1),
              (Pos{G + 8, T}));
    EXPECT_EQ(position(K4, MmaType::TF32, MmaOperand::B, Lane, 0), (Pos{T, G}));
    for (int I = 0; I < 4; ++I)
      EXPECT_EQ(position(K4, MmaType::F32, MmaOperand::C, Lane, I),
                (Pos{I < 2 ? G : G + 8, T * 2 + (I & 1)}));
  }
  EXPECT_EQ(mmaFragmentRegisters(K4, MmaType::TF32, MmaOperand::A), 2);
  EXPECT_EQ(mmaFragmentRegisters(K4, MmaType::TF32, MmaOperand::B), 1);
  EXPECT_EQ(mmaFragmentRegisters(K4, MmaType::F32, MmaOperand::C), 4);
  // Only .tf32 multiplicands and .f32 accumulators exist for this shape
  // (besides .f64, which the emulator does not model).
  EXPECT_EQ(mmaFragmentElements(K4, MmaType::F16, MmaOperand::A), 0);
  EXPECT_EQ(mmaFragmentElements(K4, MmaType::BF16, MmaOperand::B), 0);
  EXPECT_EQ(mmaFragmentElements(K4, MmaType::F16, MmaOperand::C), 0);
  int Row, Col;
  EXPECT_FALSE(mmaFragmentPosition(K4, MmaType::TF32, MmaOperand::A, 0, 2,
                                   Row, Col));
  EXPECT_FALSE(mmaFragmentPosition(K4, MmaType::TF32, MmaOperand::B, 0, 1,
                                   Row, Col));
}

TEST(MmaFragments, EveryElementOnce) {
  struct Case {
    MmaShape S;
    MmaType T;
    MmaOperand Op;
    int Rows, Cols;
  };
  const Case Cases[] = {
      {K16, MmaType::F16, MmaOperand::A, 16, 16},
      {K16, MmaType::F16, MmaOperand::B, 16, 8},
      {K16, MmaType::F32, MmaOperand::C, 16, 8},
      {K8, MmaType::TF32, MmaOperand::A, 16, 8},
      {K8, MmaType::TF32, MmaOperand::B, 8, 8},
      {K8, MmaType::F16, MmaOperand::A, 16, 8},
      {K8, MmaType::F16, MmaOperand::B, 8, 8},
      {K4, MmaType::TF32, MmaOperand::A, 16, 4},
      {K4, MmaType::TF32, MmaOperand::B, 4, 8},
      {K4, MmaType::F32, MmaOperand::C, 16, 8},
  };
  for (const Case &C : Cases) {
    std::set<std::pair<int, int>> Seen;
    int Elems = mmaFragmentElements(C.S, C.T, C.Op);
    for (int Lane = 0; Lane < 32; ++Lane)
      for (int I = 0; I < Elems; ++I) {
        Pos P = position(C.S, C.T, C.Op, Lane, I);
        EXPECT_TRUE(P.Row >= 0 && P.Row < C.Rows && P.Col >= 0 &&
                    P.Col < C.Cols);
        EXPECT_TRUE(Seen.insert({P.Row, P.Col}).second);
      }
    EXPECT_EQ(int(Seen.size()), C.Rows * C.Cols);
  }
}

//===----------------------------------------------------------------------===//
// mma.sync against a naive matmul
//===----------------------------------------------------------------------===//

/// Random values exactly representable in the type (small mantissas).
float randomValue(std::mt19937 &Rng, MmaType T) {
  // Magnitudes up to 16 keep a 64-deep f16 accumulation finite.
  std::uniform_int_distribution<int> Mant(-32, 32), Exp(-6, -1);
  float V = std::ldexp(float(Mant(Rng)), Exp(Rng));
  if (T == MmaType::F16)
    return f16ToF32(f32ToF16(V, Rounding::NearestEven));
  if (T == MmaType::BF16)
    return bf16ToF32(f32ToBf16(V, Rounding::NearestEven));
  return V;
}

uint32_t encode(MmaType T, float V) {
  switch (T) {
  case MmaType::F16:
    return f32ToF16(V, Rounding::NearestEven);
  case MmaType::BF16:
    return f32ToBf16(V, Rounding::NearestEven);
  case MmaType::TF32:
    return f32ToTf32(V, Rounding::NearestAway);
  case MmaType::F32: {
    uint32_t B;
    std::memcpy(&B, &V, 4);
    return B;
  }
  }
  return 0;
}

float decode(MmaType T, uint32_t Bits) {
  switch (T) {
  case MmaType::F16:
    return f16ToF32(uint16_t(Bits));
  case MmaType::BF16:
    return bf16ToF32(uint16_t(Bits));
  default: {
    float F;
    std::memcpy(&F, &Bits, 4);
    return F;
  }
  }
}

/// Packs Matrix (Rows x Cols, row-major) into per-lane registers following
/// the fragment positions (checked against the ISA above).
void pack(MmaShape S, MmaType T, MmaOperand Op, const std::vector<float> &Mat,
          int Cols, uint32_t Regs[32][4]) {
  std::memset(Regs, 0, sizeof(uint32_t) * 32 * 4);
  const int PerReg = mmaElementsPerRegister(T);
  for (int Lane = 0; Lane < 32; ++Lane)
    for (int I = 0; I < mmaFragmentElements(S, T, Op); ++I) {
      Pos P = position(S, T, Op, Lane, I);
      Regs[Lane][I / PerReg] |= encode(T, Mat[P.Row * Cols + P.Col])
                                << (PerReg == 2 ? 16 * (I % 2) : 0);
    }
}

void runMma(MmaShape S, MmaType AB, MmaType CD, unsigned Seed) {
  std::mt19937 Rng(Seed);
  const int M = S.m, N = S.n, K = S.k;
  std::vector<float> A(M * K), B(K * N), C(M * N);
  for (float &V : A)
    V = randomValue(Rng, AB);
  for (float &V : B)
    V = randomValue(Rng, AB);
  for (float &V : C)
    V = randomValue(Rng, CD);
  uint32_t RA[32][4], RB[32][4], RC[32][4], RD[32][4] = {};
  pack(S, AB, MmaOperand::A, A, K, RA);
  pack(S, AB, MmaOperand::B, B, N, RB);
  pack(S, CD, MmaOperand::C, C, N, RC);
  std::string Why;
  ASSERT_TRUE(mmaSync(S, AB, CD, true, true, RA, RB, RC, RD, &Why)) << Why;

  const int PerReg = mmaElementsPerRegister(CD);
  for (int Lane = 0; Lane < 32; ++Lane)
    for (int I = 0; I < 4; ++I) {
      Pos P = position(S, CD, MmaOperand::C, Lane, I);
      double Exact = C[P.Row * N + P.Col];
      double AbsSum = std::fabs(Exact);
      float Sequential = C[P.Row * N + P.Col];
      for (int Kk = 0; Kk < K; ++Kk) {
        Exact += double(A[P.Row * K + Kk]) * B[Kk * N + P.Col];
        AbsSum += std::fabs(double(A[P.Row * K + Kk]) * B[Kk * N + P.Col]);
        Sequential += A[P.Row * K + Kk] * B[Kk * N + P.Col];
      }
      uint32_t Bits = RD[Lane][I / PerReg];
      if (PerReg == 2)
        Bits = (Bits >> (16 * (I % 2))) & 0xffff;
      float Got = decode(CD, Bits);
      if (CD == MmaType::F16) {
        EXPECT_EQ(Got, f16ToF32(f32ToF16(Sequential, Rounding::NearestEven)));
        EXPECT_NEAR(Got, Exact, std::fabs(Exact) * 1e-3 + AbsSum * 1e-6 + 1e-4);
      } else {
        EXPECT_EQ(Got, Sequential);
        EXPECT_NEAR(Got, Exact, AbsSum * 1e-6 + 1e-6);
      }
    }
}

TEST(MmaSync, M16N8K16F16F32) { runMma(K16, MmaType::F16, MmaType::F32, 1); }
TEST(MmaSync, M16N8K16Bf16F32) { runMma(K16, MmaType::BF16, MmaType::F32, 2); }
TEST(MmaSync, M16N8K16F16F16) { runMma(K16, MmaType::F16, MmaType::F16, 3); }
TEST(MmaSync, M16N8K8Tf32F32) { runMma(K8, MmaType::TF32, MmaType::F32, 4); }
TEST(MmaSync, M16N8K8F16F32) { runMma(K8, MmaType::F16, MmaType::F32, 5); }
TEST(MmaSync, M16N8K8F16F16) { runMma(K8, MmaType::F16, MmaType::F16, 6); }
TEST(MmaSync, M16N8K8Bf16F32) { runMma(K8, MmaType::BF16, MmaType::F32, 7); }
TEST(MmaSync, M16N8K4Tf32F32) { runMma(K4, MmaType::TF32, MmaType::F32, 8); }

TEST(MmaSync, M16N8K4Tf32RegistersFromIsa) {
  // Registers filled straight from the formulas of 9.7.14.5.6 (not through
  // mmaFragmentPosition), D read back the same way, against a naive matmul.
  // Every A/B value carries junk in the 13 bits tf32 ignores.
  float A[16][4], B[4][8], C[16][8];
  for (int R = 0; R < 16; ++R)
    for (int K = 0; K < 4; ++K)
      A[R][K] = float(R * 4 + K + 1) / 8.0f;
  for (int K = 0; K < 4; ++K)
    for (int N = 0; N < 8; ++N)
      B[K][N] = float((K * 8 + N) * 5 % 13) - 6.0f;
  for (int R = 0; R < 16; ++R)
    for (int N = 0; N < 8; ++N)
      C[R][N] = float(R - N) * 0.25f;
  auto Bits = [](float F) {
    uint32_t U;
    std::memcpy(&U, &F, 4);
    return U;
  };
  uint32_t RA[32][4] = {}, RB[32][4] = {}, RC[32][4] = {}, RD[32][4] = {};
  for (int Lane = 0; Lane < 32; ++Lane) {
    int G = Lane >> 2, T = Lane % 4;
    RA[Lane][0] = Bits(A[G][T]) | 0x1fffu;
    RA[Lane][1] = Bits(A[G + 8][T]) | 0x0a5au;
    RB[Lane][0] = Bits(B[T][G]) | 0x1234u;
    RC[Lane][0] = Bits(C[G][2 * T]);
    RC[Lane][1] = Bits(C[G][2 * T + 1]);
    RC[Lane][2] = Bits(C[G + 8][2 * T]);
    RC[Lane][3] = Bits(C[G + 8][2 * T + 1]);
  }
  std::string Why;
  ASSERT_TRUE(mmaSync(K4, MmaType::TF32, MmaType::F32, true, true, RA, RB, RC,
                      RD, &Why))
      << Why;
  for (int Lane = 0; Lane < 32; ++Lane)
    for (int I = 0; I < 4; ++I) {
      int Row = (Lane >> 2) + (I < 2 ? 0 : 8), Col = (Lane % 4) * 2 + (I & 1);
      // All values here are small multiples of 1/32: every sum is exact.
      float Want = C[Row][Col];
      for (int K = 0; K < 4; ++K)
        Want += A[Row][K] * B[K][Col];
      float Got;
      std::memcpy(&Got, &RD[Lane][I], 4);
      EXPECT_EQ(Got, Want) << "lane " << Lane << " d" << I;
    }
}

TEST(MmaSync, IdentityPicksColumns) {
  // A = identity (16x16) with C = 0 makes D = B's rows 0..15 -> D(r, c) =
  // B(r, c): a direct check that A's and B's fragments agree on k.
  std::vector<float> A(256, 0), B(128), C(128, 0);
  for (int I = 0; I < 16; ++I)
    A[I * 16 + I] = 1;
  for (int I = 0; I < 128; ++I)
    B[I] = float(I);
  uint32_t RA[32][4], RB[32][4], RC[32][4], RD[32][4];
  pack(K16, MmaType::F16, MmaOperand::A, A, 16, RA);
  pack(K16, MmaType::F16, MmaOperand::B, B, 8, RB);
  pack(K16, MmaType::F32, MmaOperand::C, C, 8, RC);
  ASSERT_TRUE(
      mmaSync(K16, MmaType::F16, MmaType::F32, true, true, RA, RB, RC, RD,
              nullptr));
  // Lane 5 holds d0 = D(1, 2) = B(1, 2) = 10.
  float D0;
  std::memcpy(&D0, &RD[5][0], 4);
  EXPECT_EQ(D0, 10.0f);
}

TEST(MmaSync, Tf32IgnoresLowBits) {
  std::vector<float> A(128, 0), B(64, 0), C(128, 0);
  uint32_t RA[32][4], RB[32][4], RC[32][4], RD[32][4];
  pack(K8, MmaType::TF32, MmaOperand::A, A, 8, RA);
  pack(K8, MmaType::TF32, MmaOperand::B, B, 8, RB);
  pack(K8, MmaType::F32, MmaOperand::C, C, 8, RC);
  // Lane 0's a0 is A(0,0), b0 is B(0,0): 1 + 2^-20 has its extra bit in
  // the 13 bits tf32 drops.
  RA[0][0] = 0x3f800001;
  RB[0][0] = 0x40000000; // 2.0
  ASSERT_TRUE(mmaSync(K8, MmaType::TF32, MmaType::F32, true, true, RA, RB, RC,
                      RD, nullptr));
  float D0;
  std::memcpy(&D0, &RD[0][0], 4);
  EXPECT_EQ(D0, 2.0f);
}

TEST(MmaSync, Unsupported) {
  uint32_t R[32][4] = {}, D[32][4];
  std::string Why;
  EXPECT_FALSE(mmaSync(K16, MmaType::F16, MmaType::F32, false, true, R, R, R,
                       D, &Why));
  EXPECT_NE(Why.find(".row.col"), std::string::npos);
  EXPECT_FALSE(mmaSync(K16, MmaType::BF16, MmaType::F16, true, true, R, R, R,
                       D, &Why));
  EXPECT_FALSE(mmaSync(K16, MmaType::TF32, MmaType::F32, true, true, R, R, R,
                       D, &Why));
  EXPECT_FALSE(mmaSync(MmaShape{8, 8, 4}, MmaType::F16, MmaType::F32, true,
                       true, R, R, R, D, &Why));
  // m16n8k4 exists only with tf32 (and f64) multiplicands, f32 accumulators.
  EXPECT_FALSE(mmaSync(K4, MmaType::F16, MmaType::F32, true, true, R, R, R, D,
                       &Why));
  EXPECT_FALSE(mmaSync(K4, MmaType::BF16, MmaType::F32, true, true, R, R, R,
                       D, &Why));
  EXPECT_FALSE(mmaSync(K4, MmaType::TF32, MmaType::F16, true, true, R, R, R,
                       D, &Why));
  EXPECT_FALSE(mmaSync(K4, MmaType::TF32, MmaType::F32, false, true, R, R, R,
                       D, &Why));
  EXPECT_FALSE(Why.empty());
}

//===----------------------------------------------------------------------===//
// ldmatrix
//===----------------------------------------------------------------------===//

/// A shared memory of 16-bit cells whose value names matrix, row and column.
struct LdmatrixMemory {
  std::map<uint32_t, std::vector<uint16_t>> Rows; // Address -> 8 elements.
  std::set<uint32_t> Read;

  void readRow(uint32_t Addr, uint8_t Bytes[16]) {
    auto It = Rows.find(Addr);
    ASSERT_NE(It, Rows.end()) << "read of an address no lane gave: " << Addr;
    Read.insert(Addr);
    std::memcpy(Bytes, It->second.data(), 16);
  }
};

uint16_t cell(int Matrix, int Row, int Col) {
  return uint16_t(Matrix * 64 + Row * 8 + Col);
}

void checkLdmatrix(int Num, bool Trans) {
  LdmatrixMemory Mem;
  uint32_t Addr[32];
  for (int Lane = 0; Lane < 32; ++Lane) {
    // Rows scattered over memory, not contiguous: lane l's row at 1000 +
    // 48 * (31 - l). Lanes beyond 8 * Num point nowhere.
    Addr[Lane] = 1000 + 48 * (31 - Lane);
    if (Lane >= 8 * Num) {
      Addr[Lane] = 0xdead0000;
      continue;
    }
    std::vector<uint16_t> Row(8);
    for (int C = 0; C < 8; ++C)
      Row[C] = cell(Lane / 8, Lane % 8, C);
    Mem.Rows[Addr[Lane]] = Row;
  }
  uint32_t Out[32][4] = {};
  ldmatrix(Num, Trans, Addr,
           [&](uint32_t A, uint8_t B[16]) { Mem.readRow(A, B); }, Out);
  EXPECT_EQ(int(Mem.Read.size()), 8 * Num);
  // Figure 104: lane l receives row l / 4, columns 2 * (l % 4) and + 1 of
  // each matrix, lower column in the lower half. With .trans the matrix's
  // column c is the memory row of lane 8j + c, so (r, c) = memory row c,
  // element r.
  for (int Lane = 0; Lane < 32; ++Lane)
    for (int J = 0; J < Num; ++J) {
      int R = Lane / 4, C0 = 2 * (Lane % 4);
      uint16_t Lo = Trans ? cell(J, C0, R) : cell(J, R, C0);
      uint16_t Hi = Trans ? cell(J, C0 + 1, R) : cell(J, R, C0 + 1);
      EXPECT_EQ(Out[Lane][J], uint32_t(Lo) | (uint32_t(Hi) << 16))
          << "lane " << Lane << " matrix " << J;
    }
}

TEST(Ldmatrix, X1) { checkLdmatrix(1, false); }
TEST(Ldmatrix, X2) { checkLdmatrix(2, false); }
TEST(Ldmatrix, X4) { checkLdmatrix(4, false); }
TEST(Ldmatrix, X1Trans) { checkLdmatrix(1, true); }
TEST(Ldmatrix, X2Trans) { checkLdmatrix(2, true); }
TEST(Ldmatrix, X4Trans) { checkLdmatrix(4, true); }

TEST(Ldmatrix, X4FeedsMmaAFragment) {
  // The usual use: a 16x16 row-major A tile in shared memory, lane l
  // addressing row l % 16 at column 8 * (l / 16); the four registers are
  // then a0..a7 of mma.m16n8k16's A fragment.
  std::vector<uint16_t> Tile(256);
  for (int I = 0; I < 256; ++I)
    Tile[I] = uint16_t(I);
  uint32_t Addr[32], Out[32][4];
  for (int Lane = 0; Lane < 32; ++Lane)
    Addr[Lane] = uint32_t(2 * ((Lane % 16) * 16 + 8 * (Lane / 16)));
  ldmatrix(4, false, Addr,
           [&](uint32_t A, uint8_t B[16]) {
             std::memcpy(B, reinterpret_cast<uint8_t *>(Tile.data()) + A, 16);
           },
           Out);
  for (int Lane = 0; Lane < 32; ++Lane)
    for (int I = 0; I < 8; ++I) {
      Pos P = position(K16, MmaType::F16, MmaOperand::A, Lane, I);
      EXPECT_EQ((Out[Lane][I / 2] >> (16 * (I % 2))) & 0xffff,
                uint32_t(P.Row * 16 + P.Col));
    }
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

TEST(Wgmma, DescriptorDecode) {
  // start 0x1230 (encoded 0x123), LBO 16 (1), SBO 1024 (64), base offset 5,
  // 128B swizzle (1).
  uint64_t Desc = 0x123ull | (1ull << 16) | (64ull << 32) | (5ull << 49) |
                  (1ull << 62);
  WgmmaDescriptor D = decodeWgmmaDescriptor(Desc);
  EXPECT_EQ(D.startAddress, 0x1230u);
  EXPECT_EQ(D.leadingByteOffset, 16u);
  EXPECT_EQ(D.strideByteOffset, 1024u);
  EXPECT_EQ(D.baseOffset, 5u);
  EXPECT_EQ(D.swizzle, Swizzle::B128);
  EXPECT_EQ(decodeWgmmaDescriptor(2ull << 62).swizzle, Swizzle::B64);
  EXPECT_EQ(decodeWgmmaDescriptor(3ull << 62).swizzle, Swizzle::B32);
  EXPECT_EQ(decodeWgmmaDescriptor(0).swizzle, Swizzle::None);
  EXPECT_EQ(encodeWgmmaDescriptor(D), Desc);
}

TEST(Wgmma, AccumulatorFigure149) {
  int Row, Col;
  // Thread 0: d0,d1 at (0,0),(0,1), d2,d3 at (8,0),(8,1), d4 at (0,8).
  const Pos T0[6] = {{0, 0}, {0, 1}, {8, 0}, {8, 1}, {0, 8}, {0, 9}};
  for (int I = 0; I < 6; ++I) {
    wgmmaAccumulatorPosition(0, I, Row, Col);
    EXPECT_EQ((Pos{Row, Col}), T0[I]);
  }
  wgmmaAccumulatorPosition(1, 0, Row, Col); // T1 starts at column 2.
  EXPECT_EQ((Pos{Row, Col}), (Pos{0, 2}));
  wgmmaAccumulatorPosition(4, 0, Row, Col); // T4 is row 1.
  EXPECT_EQ((Pos{Row, Col}), (Pos{1, 0}));
  wgmmaAccumulatorPosition(32, 0, Row, Col); // Warp 1 starts at row 16.
  EXPECT_EQ((Pos{Row, Col}), (Pos{16, 0}));
  wgmmaAccumulatorPosition(127, 127, Row, Col); // Last element of N=256.
  EXPECT_EQ((Pos{Row, Col}), (Pos{63, 255}));
  // Every element of a 64x256 D exactly once.
  std::set<std::pair<int, int>> Seen;
  for (int T = 0; T < 128; ++T)
    for (int I = 0; I < 128; ++I) {
      wgmmaAccumulatorPosition(T, I, Row, Col);
      int W = T / 32, L = T % 32;
      EXPECT_EQ(Row, 16 * W + L / 4 + 8 * ((I / 2) % 2));
      EXPECT_EQ(Col, 8 * (I / 4) + 2 * (L % 4) + I % 2);
      Seen.insert({Row, Col});
    }
  EXPECT_EQ(Seen.size(), 64u * 256u);
}

TEST(Wgmma, AFragmentFigure148) {
  int Row, Col;
  wgmmaAFragmentPosition(0, 0, Row, Col);
  EXPECT_EQ((Pos{Row, Col}), (Pos{0, 0}));
  wgmmaAFragmentPosition(0, 7, Row, Col);
  EXPECT_EQ((Pos{Row, Col}), (Pos{8, 9}));
  wgmmaAFragmentPosition(97, 4, Row, Col); // Warp 3, lane 1.
  EXPECT_EQ((Pos{Row, Col}), (Pos{48, 10}));
}

/// A hierarchical CuTe layout mode: (shape, stride) pairs, first fastest.
struct Mode {
  std::vector<std::pair<int, int>> Parts;
  int operator()(int Coord) const {
    int Offset = 0;
    for (auto [Shape, Stride] : Parts) {
      Offset += (Coord % Shape) * Stride;
      Coord /= Shape;
    }
    return Offset;
  }
};

/// CuTe's Swizzle<B,M,S>: offset ^ ((offset & (((1<<B)-1) << (M+S))) >> S),
/// applied to byte addresses as the ISA's canonical-layout table does.
uint32_t cuteSwizzle(int B, uint32_t Offset) {
  uint32_t YMask = ((1u << B) - 1) << (4 + 3);
  return Offset ^ ((Offset & YMask) >> 3);
}

/// A shared-memory operand: a (MN x KTotal) matrix written through the
/// exact layout (MNMode, KMode) in elements, swizzled with SwizzleBits, at
/// Base, and the descriptor fields that describe it.
struct SmemOperand {
  Mode MN, K;
  int SwizzleBits;
  uint32_t LBO, SBO;
  bool MNMajor;
  int KTotal = 16;
  uint32_t KSliceBytes; ///< Start-address advance per 16 K.
};

uint64_t descriptorFor(const SmemOperand &Op, uint32_t Start) {
  static const uint64_t ModeOf[4] = {0, 3, 2, 1}; // Bits -> 0/32B/64B/128B.
  return uint64_t((Start & 0x3ffff) >> 4) | (uint64_t(Op.LBO >> 4) << 16) |
         (uint64_t(Op.SBO >> 4) << 32) | (ModeOf[Op.SwizzleBits] << 62);
}

void writeOperand(const SmemOperand &Op, uint32_t Base, int Rows,
                  const std::vector<float> &Mat, MmaType T,
                  std::vector<uint8_t> &Smem) {
  std::set<uint32_t> Used;
  for (int R = 0; R < Rows; ++R)
    for (int K = 0; K < Op.KTotal; ++K) {
      uint32_t Addr = cuteSwizzle(Op.SwizzleBits,
                                  Base + 2 * uint32_t(Op.MN(R) + Op.K(K)));
      ASSERT_TRUE(Used.insert(Addr).second) << "layout overlaps itself";
      ASSERT_LT(Addr + 1, Smem.size());
      uint16_t Bits = uint16_t(encode(T, Mat[R * Op.KTotal + K]));
      std::memcpy(&Smem[Addr], &Bits, 2);
    }
}

// The exact layouts of the ISA's examples (9.7.15.5.1.2.1.3) for 16-bit
// types (T = 8), generalised to Rows along MN and KTotal along K where the
// example has fewer, plus the 128B and K-major cases of the canonical table.
SmemOperand layoutFor(bool MNMajor, int SwizzleBits, int Rows, int KTotal) {
  SmemOperand Op;
  Op.MNMajor = MNMajor;
  Op.SwizzleBits = SwizzleBits;
  Op.KTotal = KTotal;
  const int W = 1 << SwizzleBits; // 16-byte chunks per swizzle row.
  if (!MNMajor) {
    if (SwizzleBits == 0) {
      // ((8,m),(8,2k)):((8,SBO),(1,LBO)): core matrices of 8 rows x 16 B;
      // K-adjacent ones 128 B apart, MN-adjacent ones KTotal/8 * 128 B.
      Op.LBO = 128;
      Op.SBO = 128 * (KTotal / 8);
      Op.MN = Mode{{{8, 8}, {Rows / 8, int(Op.SBO / 2)}}};
      Op.K = Mode{{{8, 1}, {KTotal / 8, int(Op.LBO / 2)}}};
      Op.KSliceBytes = 2 * Op.LBO;
    } else {
      // ((8,m),(8,KTotal/8)):((8W,SBO),(1,8)): rows of W*16 bytes.
      Op.LBO = 16; // "Not used, assumed to be 1".
      Op.SBO = 8 * W * 16;
      Op.MN = Mode{{{8, 8 * W}, {Rows / 8, int(Op.SBO / 2)}}};
      Op.K = Mode{{{8, 1}, {KTotal / 8, 8}}};
      Op.KSliceBytes = 32;
    }
  } else {
    if (SwizzleBits == 0) {
      // ((8,1,m),(8,k)):((1,8,SBO),(8,LBO)); the ISA's bf16 example has
      // SBO = 64 elements and LBO = 128 elements for 16 x 16.
      Op.SBO = 128;
      Op.LBO = 128 * (Rows / 8);
      Op.MN = Mode{{{8, 1}, {Rows / 8, int(Op.SBO / 2)}}};
      Op.K = Mode{{{8, 8}, {KTotal / 8, int(Op.LBO / 2)}}};
      Op.KSliceBytes = 2 * Op.LBO;
    } else {
      // ((8,W,m),(8,k)):((1,8,LBO),(8W,SBO)); as in the ISA's 64B bf16
      // example ((8,4,2),(8,2)):((1,8,256),(32,512)), the swizzle atoms (8
      // K rows of W*16 bytes) of successive MN spans are adjacent (LBO) and
      // groups of 8 K rows come after all spans (SBO).
      Op.LBO = 8 * W * 16;
      Op.SBO = Op.LBO * (Rows / (8 * W));
      Op.MN = Mode{{{8, 1}, {W, 8}, {Rows / (8 * W), int(Op.LBO / 2)}}};
      Op.K = Mode{{{8, 8 * W}, {KTotal / 8, int(Op.SBO / 2)}}};
      Op.KSliceBytes = 2 * Op.SBO;
    }
  }
  return Op;
}

TEST(Wgmma, IsaExampleLayouts) {
  // The generalised layouts reproduce the ISA's exact examples.
  SmemOperand Mn64 = layoutFor(true, 2, 64, 16);
  EXPECT_EQ(Mn64.LBO, 256u * 2); // "LBO 256*sizeof(bf16)"
  EXPECT_EQ(Mn64.SBO, 512u * 2); // "SBO 512*sizeof(bf16)"
  SmemOperand Mn32 = layoutFor(true, 1, 32, 16);
  EXPECT_EQ(Mn32.LBO, 128u * 2); // "LBO 128*sizeof(bf16)"
  EXPECT_EQ(Mn32.SBO, 256u * 2); // "SBO 256*sizeof(bf16)"
  SmemOperand MnNone = layoutFor(true, 0, 16, 16);
  EXPECT_EQ(MnNone.LBO, 128u * 2); // "LBO 128*sizeof(bf16)"
  EXPECT_EQ(MnNone.SBO, 64u * 2);  // "SBO 64*sizeof(bf16)"
  // The 32B example's exact layout ((8,2,2),(8,2)):((1,8,128),(16,256)).
  EXPECT_EQ(Mn32.MN(8 + 16), 8 + 128);
  EXPECT_EQ(Mn32.K(9), 16 + 256);
}

struct WgmmaCase {
  int N;
  MmaType AB, D;
  bool TransA, TransB;
  int SwizzleA, SwizzleB;
  int KTotal; ///< K extent of the tiles; wgmma runs on each 16-slice.
  bool AFromRegisters = false;
  int ScaleA = 1, ScaleB = 1;
  bool ScaleD = true;
};

void runWgmma(const WgmmaCase &C, unsigned Seed) {
  std::mt19937 Rng(Seed);
  const int M = 64, N = C.N, KT = C.KTotal;
  std::vector<float> A(M * KT), Bt(N * KT); // Bt is B transposed: N x K.
  for (float &V : A)
    V = randomValue(Rng, C.AB);
  for (float &V : Bt)
    V = randomValue(Rng, C.AB);

  // Poison: 0xff bytes are f16/bf16 NaNs, so a misplaced read shows.
  std::vector<uint8_t> Smem(1 << 17, 0xff);
  const uint32_t BaseA = 0x0400 * 4, BaseB = 0x8000;
  SmemOperand LA = layoutFor(C.TransA, C.SwizzleA, M, KT);
  SmemOperand LB = layoutFor(C.TransB, C.SwizzleB, N, KT);
  writeOperand(LA, BaseA, M, A, C.AB, Smem);
  writeOperand(LB, BaseB, N, Bt, C.AB, Smem);
  auto Read = [&](uint32_t Addr, void *Dst, unsigned Bytes) {
    ASSERT_LE(Addr + Bytes, Smem.size());
    std::memcpy(Dst, &Smem[Addr], Bytes);
  };

  std::vector<float> Acc(128 * (N / 2));
  std::vector<float> Init(Acc.size());
  for (float &V : Init)
    V = C.ScaleD ? randomValue(Rng, C.D) : NAN;
  Acc = Init;
  std::vector<double> Expected(M * N);
  for (int Slice = 0; Slice < KT / 16; ++Slice) {
    uint32_t ARegs[128][4] = {};
    if (C.AFromRegisters)
      for (int T = 0; T < 128; ++T)
        for (int I = 0; I < 8; ++I) {
          int Row, Col;
          wgmmaAFragmentPosition(T, I, Row, Col);
          ARegs[T][I / 2] |= encode(C.AB, A[Row * KT + 16 * Slice + Col])
                             << (16 * (I % 2));
        }
    std::string Why;
    bool ScaleD = C.ScaleD || Slice > 0;
    ASSERT_TRUE(wgmma(N, C.AB, C.D, C.AFromRegisters, ARegs,
                      descriptorFor(LA, BaseA + Slice * LA.KSliceBytes),
                      descriptorFor(LB, BaseB + Slice * LB.KSliceBytes),
                      C.TransA, C.TransB, C.ScaleA, C.ScaleB, ScaleD, Read,
                      Acc.data(), &Why))
        << Why;
  }
  for (int T = 0; T < 128; ++T)
    for (int I = 0; I < N / 2; ++I) {
      int Row, Col;
      wgmmaAccumulatorPosition(T, I, Row, Col);
      double Sum = C.ScaleD ? Init[T * (N / 2) + I] : 0.0;
      double AbsSum = std::fabs(Sum);
      for (int K = 0; K < KT; ++K) {
        double Term = double(C.ScaleA) * A[Row * KT + K] * C.ScaleB *
                      Bt[Col * KT + K];
        Sum += Term;
        AbsSum += std::fabs(Term);
      }
      float Got = Acc[T * (N / 2) + I];
      // f32: float summation error; f16: a rounding per 16-slice as well.
      double Tolerance = C.D == MmaType::F16
                             ? (std::fabs(Sum) + AbsSum) * 2e-3 + 1e-3
                             : AbsSum * 1e-6 + 1e-6;
      ASSERT_NEAR(Got, Sum, Tolerance) << "thread " << T << " reg " << I;
    }
}

TEST(Wgmma, KMajorEverySwizzle) {
  // K-major A and B (the TN GEMM layout), K tiles as wide as the swizzle
  // span so that 128B runs four 16-slices off one 64-wide tile.
  runWgmma({64, MmaType::F16, MmaType::F32, false, false, 0, 0, 32}, 11);
  runWgmma({64, MmaType::F16, MmaType::F32, false, false, 1, 1, 16}, 12);
  runWgmma({64, MmaType::BF16, MmaType::F32, false, false, 2, 2, 32}, 13);
  runWgmma({128, MmaType::F16, MmaType::F32, false, false, 3, 3, 64}, 14);
}

TEST(Wgmma, MNMajorEverySwizzle) {
  runWgmma({64, MmaType::F16, MmaType::F32, true, true, 0, 0, 32}, 21);
  runWgmma({64, MmaType::BF16, MmaType::F32, true, true, 1, 1, 16}, 22);
  runWgmma({128, MmaType::F16, MmaType::F32, true, true, 2, 2, 32}, 23);
  runWgmma({128, MmaType::BF16, MmaType::F32, true, true, 3, 3, 32}, 24);
}

TEST(Wgmma, MixedMajorness) {
  runWgmma({32, MmaType::F16, MmaType::F32, false, true, 3, 1, 64}, 31);
  runWgmma({256, MmaType::BF16, MmaType::F32, true, false, 3, 3, 16}, 32);
  runWgmma({8, MmaType::F16, MmaType::F32, false, false, 3, 0, 16}, 33);
}

TEST(Wgmma, ARegistersScalesAndF16) {
  WgmmaCase C{64, MmaType::F16, MmaType::F32, false, true, 0, 3, 32};
  C.AFromRegisters = true;
  runWgmma(C, 41);
  C.ScaleA = -1;
  C.ScaleD = false;
  runWgmma(C, 42);
  WgmmaCase H{64, MmaType::F16, MmaType::F16, false, false, 3, 3, 16};
  H.ScaleB = -1;
  runWgmma(H, 43);
}

TEST(Wgmma, Unsupported) {
  std::vector<float> Acc(128 * 4);
  uint32_t ARegs[128][4] = {};
  auto Read = [](uint32_t, void *Dst, unsigned Bytes) {
    std::memset(Dst, 0, Bytes);
  };
  std::string Why;
  EXPECT_FALSE(wgmma(12, MmaType::F16, MmaType::F32, false, ARegs, 0, 0,
                     false, false, 1, 1, true, Read, Acc.data(), &Why));
  EXPECT_FALSE(wgmma(8, MmaType::BF16, MmaType::F16, false, ARegs, 0, 0,
                     false, false, 1, 1, true, Read, Acc.data(), &Why));
  EXPECT_FALSE(wgmma(8, MmaType::F16, MmaType::F32, true, ARegs, 0, 0, true,
                     false, 1, 1, true, Read, Acc.data(), &Why));
  EXPECT_FALSE(wgmma(8, MmaType::TF32, MmaType::F32, false, ARegs, 0, 0,
                     false, false, 1, 1, true, Read, Acc.data(), &Why));
  EXPECT_FALSE(Why.empty());
}

TEST(Wgmma, BaseOffsetShiftsThePattern) {
  // A 128B-swizzled pattern that starts 3 rows (384 bytes) past a 1024-byte
  // boundary: with base offset 3, logical row r of the pattern XORs its
  // chunk with r, wherever the pattern starts.
  WgmmaDescriptor D{1024 + 384, 16, 1024, 3, Swizzle::B128};
  for (int Row = 0; Row < 8; ++Row)
    for (int K = 0; K < 16; ++K) {
      uint32_t Expected = 1024 + 384 + Row * 128 +
                          (((K / 8) ^ Row) * 16) + (K % 8) * 2;
      EXPECT_EQ(wgmmaElementAddress(D, false, 2, Row, K), Expected);
    }
}

} // namespace
