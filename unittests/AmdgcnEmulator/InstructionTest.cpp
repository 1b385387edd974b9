//===- InstructionTest.cpp - Instruction semantics from the ISA manuals ---===//
//
// Part of the Quilt project.
//
// Each case runs one instruction, as LLVM prints it, on a wave whose
// registers hold chosen values, and compares the result with what the
// CDNA3 / RDNA3 ISA manuals define: the operand order the decoder assumes
// and the semantics the handler implements, for the instructions whose
// definitions are easy to get subtly wrong (carries, byte permutes, bit
// fields, op_sel, mixed precision, EXEC manipulation, LDS offsets in
// elements, dual issue).
//
//===----------------------------------------------------------------------===//

#include "TestWave.h"

#include "VectorAlu.h"

#include "../../emulator/lib/DeviceMemory.h"

#include <cmath>
#include <cstring>

using namespace quilt::amdgcn;

namespace {

TEST(ScalarAlu, AddCarriesIntoAddc) {
  TestWave t;
  t.s(0) = 0xffffffffu, t.s(1) = 1, t.s(2) = 2, t.s(3) = 3;
  t.run("s_add_u32 s4, s0, s2"); // 0xffffffff + 2: carry out
  EXPECT_EQ(t.s(4), 1u);
  EXPECT_TRUE(t.wave.scc);
  t.run("s_addc_u32 s5, s1, s3"); // 1 + 3 + carry
  EXPECT_EQ(t.s(5), 5u);
  EXPECT_FALSE(t.wave.scc);
}

TEST(ScalarAlu, BitFieldExtractTakesOffsetAndWidthFromOneOperand) {
  TestWave t;
  t.s(0) = 0xabcd1234u;
  t.s(1) = (8u << 16) | 4; // width 8 at bit 4
  t.run("s_bfe_u32 s2, s0, s1");
  EXPECT_EQ(t.s(2), 0x23u);
  t.s(1) = (8u << 16) | 24; // 0xab, negative as i8
  t.run("s_bfe_i32 s3, s0, s1");
  EXPECT_EQ(t.s(3), 0xffffffabu);
}

TEST(ScalarAlu, SopkSignExtendsItsImmediate) {
  TestWave t;
  t.s(0) = 10;
  t.run("s_mulk_i32 s0, 0xfffe"); // * -2
  EXPECT_EQ(int32_t(t.s(0)), -20);
  t.run("s_movk_i32 s1, 0x8000");
  EXPECT_EQ(t.s(1), 0xffff8000u);
}

TEST(ScalarAlu, SaveExecSavesThenMasks) {
  TestWave t;
  t.wave.setExec(0x00000000ffff0000ull);
  t.s(2) = 0x00ff00ffu, t.s(3) = 0;
  t.run("s_and_saveexec_b64 s[0:1], s[2:3]");
  EXPECT_EQ(t.s(0), 0xffff0000u);
  EXPECT_EQ(t.wave.exec(), 0x00ff0000ull);
  EXPECT_TRUE(t.wave.scc);
  t.run("s_andn2_saveexec_b64 s[4:5], s[0:1]"); // S0 & ~EXEC
  EXPECT_EQ(t.wave.exec(), 0xff000000ull);
}

TEST(VectorAlu, MadU64U32WritesCarryMaskAndSkipsInactiveLanes) {
  TestWave t;
  t.wave.setExec(0b11);
  for (unsigned l = 0; l < 3; ++l) {
    t.v(0, l) = 0xffffffffu;
    t.v(2, l) = 0xffffffffu, t.v(3, l) = 0xffffffffu;
    t.v(6, l) = 0x1234;
  }
  t.s(10) = 0xffffffffu, t.s(11) = 0xffffffffu;
  t.v(1, 0) = 1;
  t.v(1, 1) = 2;
  // lane 0: 0xffffffff * 1 + 0xffff...ff: carries; lane 1 too.
  t.run("v_mad_u64_u32 v[4:5], s[8:9], v0, v1, v[2:3]");
  EXPECT_EQ(t.v(4, 0), 0xfffffffeu);
  EXPECT_EQ(t.v(5, 0), 0u);
  EXPECT_EQ(t.s(8), 0b11u);
  EXPECT_EQ(t.v(6, 2), 0x1234u); // untouched register
  EXPECT_EQ(t.v(4, 2), 0u);      // inactive lane keeps its value
}

TEST(VectorAlu, PermuteSelectsBytesOfBothSourcesAndSignReplicas) {
  TestWave t;
  t.v(0, 0) = 0x80112233u; // S0: bytes 4-7
  t.v(1, 0) = 0x44558066u; // S1: bytes 0-3
  t.s(0) = 0x0c0b0407u;    // 0x00, sign of S0[31], S0 byte 0, S0 byte 3
  t.run("v_perm_b32 v2, v0, v1, s0");
  EXPECT_EQ(t.v(2, 0), 0x00ff3380u);
}

TEST(VectorAlu, ShiftsReverseTheirOperands) {
  TestWave t;
  t.v(1, 0) = 3;
  t.run("v_lshlrev_b32_e32 v0, 4, v1");
  EXPECT_EQ(t.v(0, 0), 48u);
  t.v(2, 0) = 1, t.v(3, 0) = 0x10, t.v(4, 0) = 0, t.v(5, 0) = 0x100;
  t.run("v_lshl_add_u64 v[6:7], v[2:3], 3, v[4:5]");
  EXPECT_EQ(t.v(6, 0), 8u);
  EXPECT_EQ(t.v(7, 0), 0x180u);
}

TEST(VectorAlu, FmamkAndFmaakMultiplyTheirFirstTwoPrintedOperands) {
  // llvm-mc -show-inst: V_FMAMK_F32 vdst, src0, K, vsrc1 (D = src0 * K +
  // vsrc1); V_FMAAK_F32 vdst, src0, vsrc1, K (D = src0 * vsrc1 + K).
  TestWave t;
  t.v(4, 0) = bitsF32(3.0f), t.v(6, 0) = bitsF32(0.5f);
  t.run("v_fmamk_f32 v5, v4, 0x40000000, v6"); // 3 * 2 + 0.5
  EXPECT_EQ(asF32(t.v(5, 0)), 6.5f);
  t.run("v_fmaak_f32 v7, v4, v6, 0x40000000"); // 3 * 0.5 + 2
  EXPECT_EQ(asF32(t.v(7, 0)), 3.5f);
  // Their unfused forms (gfx90a, V_MADMK_F32_vi / V_MADAK_F32_vi), the
  // same operands: the product is rounded before the add.
  t.run("v_madmk_f32 v8, v4, 0x40000000, v6"); // 3 * 2 + 0.5
  EXPECT_EQ(asF32(t.v(8, 0)), 6.5f);
  t.run("v_madak_f32 v9, v4, v6, 0x40000000"); // 3 * 0.5 + 2
  EXPECT_EQ(asF32(t.v(9, 0)), 3.5f);
  // 1 + 2^-23 squared is 1 + 2^-22 + 2^-46: fused, minus 1 - 2^-22 leaves
  // 2^-46; rounded first, the product is 1 + 2^-22 and nothing is left.
  t.v(10, 0) = bitsF32(1.0f + 0x1p-23f),
          t.v(11, 0) = bitsF32(-(1.0f + 0x1p-22f));
  t.run("v_madak_f32 v12, v10, v10, 0x0"); // product only
  EXPECT_EQ(asF32(t.v(12, 0)), 1.0f + 0x1p-22f);
  t.run("v_mad_f32 v13, v10, v10, v11");
  EXPECT_EQ(asF32(t.v(13, 0)), 0.0f);
  t.run("v_fma_f32 v14, v10, v10, v11");
  EXPECT_EQ(asF32(t.v(14, 0)), 0x1p-46f);
}

// LLVM 22's fdiv expansions for gfx942 (llc -mcpu=gfx942 on `fdiv double
// %n, %d` and `fdiv float %n, %d`, the kernel arguments in s[2:3] and
// s[6:7], and in s2 and s3), run lane by lane on quotients inside the
// normal range and on those the scaling steps exist for: near the largest
// number, denormal, with a denormal or tiny numerator.
constexpr const char *kDivideF64[] = {
    "v_mov_b64_e32 v[0:1], s[2:3]",
    "v_div_scale_f64 v[2:3], s[4:5], s[6:7], s[6:7], v[0:1]",
    "v_rcp_f64_e32 v[4:5], v[2:3]",
    "v_mov_b64_e32 v[6:7], s[6:7]",
    "v_div_scale_f64 v[6:7], vcc, s[2:3], v[6:7], s[2:3]",
    "v_fma_f64 v[8:9], -v[2:3], v[4:5], 1.0",
    "v_fmac_f64_e32 v[4:5], v[4:5], v[8:9]",
    "v_fma_f64 v[8:9], -v[2:3], v[4:5], 1.0",
    "v_fmac_f64_e32 v[4:5], v[4:5], v[8:9]",
    "v_mul_f64 v[8:9], v[6:7], v[4:5]",
    "v_fma_f64 v[2:3], -v[2:3], v[8:9], v[6:7]",
    "v_div_fmas_f64 v[2:3], v[2:3], v[4:5], v[8:9]",
    "v_div_fixup_f64 v[0:1], v[2:3], s[6:7], v[0:1]",
};
constexpr const char *kDivideF32[] = {
    "v_mov_b32_e32 v1, s2",
    "v_div_scale_f32 v2, s[4:5], s3, s3, v1",
    "v_rcp_f32_e32 v3, v2",
    "v_mov_b32_e32 v4, s3",
    "v_div_scale_f32 v4, vcc, s2, v4, s2",
    "v_fma_f32 v5, -v2, v3, 1.0",
    "v_fmac_f32_e32 v3, v5, v3",
    "v_mul_f32_e32 v5, v4, v3",
    "v_fma_f32 v6, -v2, v5, v4",
    "v_fmac_f32_e32 v5, v6, v3",
    "v_fma_f32 v2, -v2, v5, v4",
    "v_div_fmas_f32 v2, v2, v3, v5",
    "v_div_fixup_f32 v1, v2, s3, v1",
};

TEST(VectorAlu, DivisionExpansionsGiveTheQuotientAcrossTheRange) {
  const double cases64[][2] = {
      {1, 3},         {-7.5, 0.25},     {0x1p1000, 0x1p-10},
      {0x1p-1000, 0x1p40}, {0x1p-1060, 3}, {3, 0x1p-1050},
      {1, 0},         {0, 0},           {5, INFINITY}};
  for (const auto &c : cases64) {
    TestWave t;
    std::memcpy(&t.s(2), &c[0], 8);
    std::memcpy(&t.s(6), &c[1], 8);
    for (const char *text : kDivideF64)
      t.run(text);
    double q;
    uint64_t bits = uint64_t(t.v(1, 0)) << 32 | t.v(0, 0);
    std::memcpy(&q, &bits, 8);
    double expected = c[0] / c[1];
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(q)) << c[0] << " / " << c[1];
    else
      EXPECT_EQ(q, expected) << c[0] << " / " << c[1];
  }
  const float cases32[][2] = {
      {1, 3},        {-7.5f, 0.25f}, {0x1p100f, 0x1p-20f}, {0x1p-110f, 0x1p30f},
      {0x1p-140f, 3}, {3, 0x1p-130f}, {1, 0},              {5, INFINITY}};
  for (const auto &c : cases32) {
    TestWave t;
    t.s(2) = bitsF32(c[0]), t.s(3) = bitsF32(c[1]);
    for (const char *text : kDivideF32)
      t.run(text);
    EXPECT_EQ(asF32(t.v(1, 0)), c[0] / c[1]) << c[0] << " / " << c[1];
  }
}

TEST(VectorAlu, SubDwordAddressingSelectsSourcesAndPlacesTheResult) {
  TestWave t;
  t.v(4, 0) = 0x000000c3u; // byte 0: 195
  t.s(2) = 0xcd;
  // 195 * 205 = 39975, a u16 in the whole dword.
  t.run("v_mul_lo_u16_sdwa v5, v4, s2 dst_sel:DWORD dst_unused:UNUSED_PAD "
        "src0_sel:BYTE_0 src1_sel:DWORD");
  EXPECT_EQ(t.v(5, 0), 39975u);
  // Byte 1 of v1 and word 1 of v2, sign-extended; the sum into word 1 of
  // v3, whose word 0 is kept.
  t.v(1, 0) = 0x0000fe00u; // byte 1: -2
  t.v(2, 0) = 0xfff90000u; // word 1: -7
  t.v(3, 0) = 0x12345678u;
  t.run("v_add_u32_sdwa v3, sext(v1), sext(v2) dst_sel:WORD_1 "
        "dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 src1_sel:WORD_1");
  EXPECT_EQ(t.v(3, 0), 0xfff75678u);
  // A byte result sign-extended above its field, zeros below.
  t.v(6, 0) = 0x80;
  t.run("v_mov_b32_sdwa v7, v6 dst_sel:BYTE_1 dst_unused:UNUSED_SEXT "
        "src0_sel:BYTE_0");
  EXPECT_EQ(t.v(7, 0), 0xffff8000u);
}

TEST(VectorAlu, FirstBitFromTheSignAndSixteenBitResults) {
  TestWave t;
  t.v(1, 0) = 1, t.v(1, 1) = 0xfffffffeu, t.v(1, 2) = 0, t.v(1, 3) = ~0u;
  t.v(1, 4) = 0x40000000u;
  t.run("v_ffbh_i32_e32 v2, v1");
  EXPECT_EQ(t.v(2, 0), 31u);
  EXPECT_EQ(t.v(2, 1), 31u);
  EXPECT_EQ(t.v(2, 2), ~0u);
  EXPECT_EQ(t.v(2, 3), ~0u);
  EXPECT_EQ(t.v(2, 4), 1u);
  t.v(3, 0) = 3, t.v(4, 0) = 5;
  t.run("v_sub_u16_e32 v5, v3, v4"); // wraps in 16 bits, high half zero
  EXPECT_EQ(t.v(5, 0), 0xfffeu);
  t.v(6, 0) = 0xffff;
  t.run("v_lshlrev_b16_e32 v7, 4, v6");
  EXPECT_EQ(t.v(7, 0), 0xfff0u);
}

TEST(VectorAlu, SixteenBitHalvesReadAndWriteOneHalf) {
  TestWave t(32);
  t.v(7, 0) = 0x12c3abcdu;
  t.v(2, 0) = 0xffff0000u;
  // As LLVM prints them (llvm-mc -mcpu=gfx1100 -mattr=+real-true16): VOP3
  // forms name the halves twice, as .h and as op_sel.
  t.run("v_and_b16 v2.l, 0xff, v7.h op_sel:[0,1,0]"); // 0x12c3 & 0xff
  EXPECT_EQ(t.v(2, 0), 0xffff00c3u);
  t.run("v_sub_nc_u16 v2.h, v7.l, v2.l op_sel:[0,0,1]"); // 0xabcd - 0xc3
  EXPECT_EQ(t.v(2, 0), 0xab0a00c3u);
  t.run("v_mov_b16_e32 v3.h, v2.h");
  EXPECT_EQ(t.v(3, 0) >> 16, 0xab0au);
  t.v(4, 0) = 0x3c00u << 16; // 1.0 in the high half
  t.v(5, 0) = 0x4000u;       // 2.0 in the low half
  t.run("v_add_f16_e32 v6.h, v4.h, v5.l");
  EXPECT_EQ(t.v(6, 0) >> 16, 0x4200u); // 3.0
  t.run("v_fma_f16 v6.l, v4.h, v5.l, v4.h op_sel:[1,0,1,0]"); // 1 * 2 + 1
  EXPECT_EQ(t.v(6, 0), 0x42004200u);
}

TEST(VectorAlu, CompareWritesZeroForInactiveLanes) {
  TestWave t;
  t.wave.setExec(0b0101);
  for (unsigned l = 0; l < 4; ++l)
    t.v(0, l) = l;
  t.s(4) = 0xffffffffu, t.s(5) = 0xffffffffu;
  t.run("v_cmp_gt_u32_e64 s[4:5], 3, v0");
  EXPECT_EQ(t.s(4), 0b0101u);
  EXPECT_EQ(t.s(5), 0u);
}

TEST(VectorAlu, CndmaskPicksSecondSourceWhereMaskIsSet) {
  TestWave t;
  t.s(kVccLo) = 0b10;
  t.v(1, 0) = 1, t.v(1, 1) = 1, t.v(2, 0) = 2, t.v(2, 1) = 2;
  t.run("v_cndmask_b32_e32 v0, v1, v2, vcc");
  EXPECT_EQ(t.v(0, 0), 1u);
  EXPECT_EQ(t.v(0, 1), 2u);
}

TEST(VectorAlu, FloatConstantsTakeTheInstructionsType) {
  TestWave t;
  t.v(1, 0) = bitsF32(2.0f);
  t.run("v_add_f32_e32 v0, 0.5, v1");
  EXPECT_EQ(asF32(t.v(0, 0)), 2.5f);
  t.v(2, 0) = 0, t.v(3, 0) = 0;
  t.run("v_add_f64 v[4:5], v[2:3], 1.0");
  EXPECT_EQ(asF64(t.v(4, 0) | (uint64_t(t.v(5, 0)) << 32)), 1.0);
  t.run("v_add_f64 v[4:5], v[2:3], -4.0");
  EXPECT_EQ(asF64(t.v(4, 0) | (uint64_t(t.v(5, 0)) << 32)), -4.0);
}

TEST(VectorAlu, SourceAndOutputModifiers) {
  TestWave t;
  t.v(1, 0) = bitsF32(-3.0f), t.v(2, 0) = bitsF32(0.25f);
  t.run("v_mul_f32_e64 v0, -|v1|, v2 mul:2");
  EXPECT_EQ(asF32(t.v(0, 0)), -1.5f);
  t.run("v_mul_f32_e64 v0, v1, v2 clamp");
  EXPECT_EQ(asF32(t.v(0, 0)), 0.0f);
}

TEST(VectorAlu, PackedFmaSelectsHalvesWithOpSel) {
  TestWave t;
  t.v(0, 0) = bitsF32(1), t.v(1, 0) = bitsF32(2);   // a = (1, 2)
  t.v(2, 0) = bitsF32(10), t.v(3, 0) = bitsF32(20); // b = (10, 20)
  t.v(4, 0) = bitsF32(0), t.v(5, 0) = bitsF32(100); // c = (0, 100)
  t.run("v_pk_fma_f32 v[6:7], v[0:1], v[2:3], v[4:5]");
  EXPECT_EQ(asF32(t.v(6, 0)), 10.0f);
  EXPECT_EQ(asF32(t.v(7, 0)), 140.0f);
  // Low result from a.hi * b.lo + c.lo, high from a.lo * b.hi + c.hi.
  t.run("v_pk_fma_f32 v[6:7], v[0:1], v[2:3], v[4:5] op_sel:[1,0,0] op_sel_hi:[0,1,1]");
  EXPECT_EQ(asF32(t.v(6, 0)), 20.0f);
  EXPECT_EQ(asF32(t.v(7, 0)), 120.0f);
}

TEST(VectorAlu, MixedPrecisionFmaReadsF32UnlessOpSelHiSaysF16) {
  TestWave t;
  t.v(1, 0) = bitsF32(1.5f);
  t.v(2, 0) = uint32_t(f32ToF16(4.0f)) << 16; // f16 in the high half
  t.v(3, 0) = bitsF32(0.5f);
  t.v(0, 0) = 0xabcd0000u;
  t.run("v_fma_mixlo_f16 v0, v1, v2, v3 op_sel:[0,1,0] op_sel_hi:[0,1,0]");
  EXPECT_EQ(t.v(0, 0) >> 16, 0xabcdu); // high half kept
  EXPECT_EQ(f16ToF32(uint16_t(t.v(0, 0))), 6.5f);
}

TEST(VectorAlu, CarryChainsThroughAddcCo) {
  TestWave t;
  t.v(0, 0) = 0xffffffffu, t.v(1, 0) = 1, t.v(2, 0) = 0, t.v(3, 0) = 0;
  t.run("v_add_co_u32_e32 v4, vcc, v0, v1");
  t.run("v_addc_co_u32_e32 v5, vcc, v2, v3, vcc");
  EXPECT_EQ(t.v(4, 0), 0u);
  EXPECT_EQ(t.v(5, 0), 1u);
}

TEST(VectorAlu, DualIssueReadsBothSourcesBeforeWriting) {
  TestWave t(32);
  t.v(1, 0) = 7, t.v(2, 0) = 9;
  // X writes v2, which Y reads: Y must see the old 9.
  t.run("v_dual_mov_b32 v2, v1 :: v_dual_add_nc_u32 v3, 1, v2");
  EXPECT_EQ(t.v(2, 0), 7u);
  EXPECT_EQ(t.v(3, 0), 10u);
  t.v(4, 0) = bitsF32(1), t.v(5, 0) = bitsF32(2), t.v(6, 0) = bitsF32(3);
  t.run("v_dual_fmac_f32 v6, v4, v5 :: v_dual_mov_b32 v4, 0");
  EXPECT_EQ(asF32(t.v(6, 0)), 5.0f);
  EXPECT_EQ(t.v(4, 0), 0u);
}

TEST(VectorAlu, SixteenBitHalvesOfGfx11) {
  TestWave t(32);
  t.v(1, 0) = 0x1111aaaau;
  t.run("v_mov_b16_e32 v1.l, v1.h");
  EXPECT_EQ(t.v(1, 0), 0x11111111u);
  t.run("v_mov_b16_e32 v1.h, 0");
  EXPECT_EQ(t.v(1, 0), 0x00001111u);
}

TEST(Memory, LdsTwoAddressOffsetsCountElements) {
  TestWave t(64, 64 * 8 * 4);
  for (unsigned i = 0; i < 64 * 8; ++i)
    reinterpret_cast<uint32_t *>(t.group.lds.data())[i] = i;
  t.wave.setExec(1);
  t.v(0, 0) = 8; // byte address
  t.run("ds_read2_b32 v[2:3], v0 offset0:1 offset1:5");
  EXPECT_EQ(t.v(2, 0), 3u); // (8 + 1*4) / 4
  EXPECT_EQ(t.v(3, 0), 7u); // (8 + 5*4) / 4
  t.run("ds_read2st64_b32 v[2:3], v0 offset1:2");
  EXPECT_EQ(t.v(2, 0), 2u);
  EXPECT_EQ(t.v(3, 0), 2u + 128u);
}

TEST(Memory, BufferAccessesOutsideTheRecordsLoadZerosAndStoreNothing) {
  TestWave t;
  static float data[4] = {1, 2, 3, 4};
  quilt::emu::deviceMemory().add(reinterpret_cast<uint64_t>(data), sizeof(data),
                          quilt::emu::DeviceMemory::Kind::HostRegistered);
  uint64_t base = reinterpret_cast<uint64_t>(data);
  t.s(4) = uint32_t(base), t.s(5) = uint32_t(base >> 32) & 0xffff;
  t.s(6) = 12; // three floats are records
  t.s(7) = 0x27000;
  t.wave.setExec(0b1111);
  for (unsigned l = 0; l < 4; ++l)
    t.v(0, l) = 4 * l;
  t.run("buffer_load_dword v1, v0, s[4:7], 0 offen");
  EXPECT_EQ(asF32(t.v(1, 2)), 3.0f);
  EXPECT_EQ(t.v(1, 3), 0u); // byte 12: past the records
  for (unsigned l = 0; l < 4; ++l)
    t.v(2, l) = bitsF32(10.0f + l);
  t.run("buffer_store_dword v2, v0, s[4:7], 0 offen");
  EXPECT_EQ(data[2], 12.0f);
  EXPECT_EQ(data[3], 4.0f); // lane 3's store fell outside: dropped
  EXPECT_FALSE(t.dispatch.failed);
  t.run("buffer_load_dword v1, off, s[4:7], 0 offset:4");
  EXPECT_EQ(asF32(t.v(1, 0)), 11.0f);
  quilt::emu::deviceMemory().remove(reinterpret_cast<uint64_t>(data));
}

TEST(Memory, GlobalAtomicsReturnTheOldValueOnlyWithGlc) {
  TestWave t;
  static uint32_t counters[2] = {5, 0};
  static uint64_t wide = 7;
  quilt::emu::deviceMemory().add(
      reinterpret_cast<uint64_t>(counters), sizeof(counters),
      quilt::emu::DeviceMemory::Kind::HostRegistered);
  quilt::emu::deviceMemory().add(
      reinterpret_cast<uint64_t>(&wide), sizeof(wide),
      quilt::emu::DeviceMemory::Kind::HostRegistered);
  uint64_t base = reinterpret_cast<uint64_t>(counters);
  t.wave.setExec(0b111);
  for (unsigned l = 0; l < 3; ++l) {
    t.v(0, l) = uint32_t(base), t.v(1, l) = uint32_t(base >> 32);
    t.v(2, l) = 1;
    t.v(3, l) = 99;
  }
  // Three lanes add 1 to one counter, in lane order: each sees the sum of
  // the lanes before it (gfx942 spells the return bit sc0).
  t.run("global_atomic_add v3, v[0:1], v2, off sc0");
  EXPECT_EQ(counters[0], 8u);
  EXPECT_EQ(t.v(3, 0), 5u);
  EXPECT_EQ(t.v(3, 2), 7u);
  // Without it nothing is returned.
  t.run("global_atomic_add_u32 v[0:1], v2, off");
  EXPECT_EQ(counters[0], 11u);
  EXPECT_EQ(t.v(3, 0), 5u);
  // saddr + a 32-bit offset, gfx11's name, the return bit spelled glc.
  t.wave.setExec(1);
  t.s(4) = uint32_t(base), t.s(5) = uint32_t(base >> 32);
  t.v(4, 0) = 4;                 // counters[1]
  t.v(2, 0) = 42, t.v(5, 0) = 0; // cmpswap: new value, then the compare
  t.run("global_atomic_cmpswap_b32 v3, v4, v[2:3], s[4:5] glc");
  // v[2:3] is (42, 5): counters[1] (0) differs from 5, so it stays.
  EXPECT_EQ(counters[1], 0u);
  t.v(3, 0) = 0;
  t.run("global_atomic_cmpswap_b32 v6, v4, v[2:3], s[4:5] glc");
  EXPECT_EQ(counters[1], 42u);
  EXPECT_EQ(t.v(6, 0), 0u);
  // 64 bits.
  uint64_t wideAt = reinterpret_cast<uint64_t>(&wide);
  t.v(0, 0) = uint32_t(wideAt), t.v(1, 0) = uint32_t(wideAt >> 32);
  t.v(8, 0) = 0xffffffffu, t.v(9, 0) = 1;
  t.run("global_atomic_add_x2 v[10:11], v[0:1], v[8:9], off glc");
  EXPECT_EQ(wide, 7u + 0x1ffffffffull);
  EXPECT_EQ(t.v(10, 0), 7u);
  EXPECT_EQ(t.v(11, 0), 0u);
  EXPECT_FALSE(t.dispatch.failed);
  quilt::emu::deviceMemory().remove(base);
  quilt::emu::deviceMemory().remove(wideAt);
}

TEST(Decoder, LiteralsSpelledLit) {
  TestWave t;
  t.s(1) = 5;
  t.run("s_add_u32 s0, s1, lit(0xffffffff)");
  EXPECT_EQ(t.s(0), 4u);
  EXPECT_TRUE(t.wave.scc);
}

TEST(Memory, LdsOutOfRangeStopsTheLaunchWithAReport) {
  TestWave t(64, 256);
  t.wave.setExec(0b100);
  t.v(0, 2) = 256;
  t.run("ds_write_b32 v0, v1");
  ASSERT_TRUE(t.dispatch.failed);
  EXPECT_NE(t.dispatch.failure.report.find("out-of-bounds LDS store of 4 bytes "
                                           "at LDS offset 256"),
            std::string::npos)
      << t.dispatch.failure.report;
  EXPECT_NE(t.dispatch.failure.report.find("lane 2"), std::string::npos);
}

TEST(Matrix, WmmaRefusesInputsWhoseUpperLanesDiffer) {
  TestWave t(32);
  t.v(0, 17) = 1; // lane 17 of A differs from lane 1
  t.run("v_wmma_f32_16x16x16_f16 v[32:39], v[0:7], v[8:15], v[16:23]");
  ASSERT_TRUE(t.dispatch.failed);
  EXPECT_NE(t.dispatch.failure.report.find("lanes 16-31 to repeat lanes 0-15"),
            std::string::npos)
      << t.dispatch.failure.report;
}

TEST(Matrix, MfmaRefusesAPartialExec) {
  TestWave t;
  t.wave.setExec(1);
  t.run("v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]");
  ASSERT_TRUE(t.dispatch.failed);
  EXPECT_NE(t.dispatch.failure.report.find("EXEC not all ones"), std::string::npos);
}

} // namespace

namespace {

TEST(Counters, LdsBankConflictsCountCyclesOverTheIdeal) {
  Counters c;
  uint32_t consecutive[32], sameBank[32], broadcast[32];
  for (unsigned i = 0; i < 32; ++i) {
    consecutive[i] = 4 * i;
    sameBank[i] = 128 * i; // every dword in bank 0
    broadcast[i] = 64;
  }
  countLdsBankConflicts(c, consecutive, 32, 4);
  countLdsBankConflicts(c, broadcast, 32, 4);
  EXPECT_EQ(c.ldsBankConflictCycles(), 0u);
  EXPECT_EQ(c.ldsIdealCycles, 2u); // one cycle each, the broadcast included
  countLdsBankConflicts(c, sameBank, 32, 4);
  EXPECT_EQ(c.ldsBankConflictCycles(), 31u);
  EXPECT_EQ(c.ldsRequests, 3u);
  EXPECT_EQ(c.ldsCycles, 2u + 32u);
}

TEST(Counters, GlobalSegmentsAgainstTheFewest) {
  Counters c;
  uint64_t rows[64], strided[64];
  for (unsigned i = 0; i < 64; ++i) {
    rows[i] = 0x1000 + 4 * i;
    strided[i] = 0x1000 + 256 * i;
  }
  countGlobalSegments(c, rows, 64, 4);
  EXPECT_EQ(c.globalSegments, 4u);
  EXPECT_EQ(c.globalMinimumSegments, 4u);
  countGlobalSegments(c, strided, 64, 4);
  EXPECT_EQ(c.globalSegments, 4u + 64u);
  EXPECT_EQ(c.globalMinimumSegments, 8u);
  EXPECT_EQ(c.globalRequests, 2u);
}

} // namespace
