//===- DecoderTest.cpp - Machine code to handler-bound instructions -------===//
//
// Part of the Quilt project. The byte sequences are `llvm-mc -show-encoding`
// output for the instructions in the comments.
//
//===----------------------------------------------------------------------===//

#include "Decoder.h"

#include "gtest/gtest.h"

using namespace quilt::amdgcn;

namespace {

std::vector<uint8_t> bytes(std::initializer_list<uint8_t> list) { return list; }

TEST(Decoder, DecodesGfx942AndResolvesBranchTargets) {
  auto code = decodeKernel("gfx942", bytes({
                                         0x03, 0x00, 0xae, 0xbe, // s_mov_b32 s46, s3
                                         0x01, 0x00, 0x88, 0xbf, // s_cbranch_execz 1
                                         0x00, 0x00, 0x80, 0xbf, // s_nop 0
                                         0x00, 0x00, 0x81, 0xbf, // s_endpgm
                                     }));
  ASSERT_TRUE(bool(code)) << llvm::toString(code.takeError());
  ASSERT_EQ(code->size(), 4u);
  EXPECT_EQ((*code)[0].text, "s_mov_b32 s46, s3");
  EXPECT_EQ((*code)[0].ops[0].kind, OperandKind::Scalar);
  EXPECT_EQ((*code)[0].ops[0].index, 46);
  EXPECT_EQ((*code)[1].text, "s_cbranch_execz 1");
  EXPECT_EQ((*code)[1].target, 3u); // the s_endpgm after the skipped s_nop
  EXPECT_EQ((*code)[3].address, 12u);
}

TEST(Decoder, NamesEveryUnimplementedInstructionAtOnce) {
  auto code = decodeKernel("gfx942", bytes({
                                         0x01, 0x73, 0x00, 0x7e, // v_cvt_f16_u16_e32 v0, v1
                                         0x01, 0x93, 0x00, 0x7e, // v_sin_f16_e32 v0, v1
                                         0x00, 0x00, 0x81, 0xbf, // s_endpgm
                                     }));
  ASSERT_FALSE(bool(code));
  EXPECT_EQ(llvm::toString(code.takeError()),
            "instructions the emulator does not implement: v_cvt_f16_u16, "
            "v_sin_f16");
}

TEST(Decoder, RefusesABranchOutOfTheKernel) {
  auto code = decodeKernel("gfx942", bytes({
                                         0x05, 0x00, 0x82, 0xbf, // s_branch 5
                                         0x00, 0x00, 0x81, 0xbf, // s_endpgm
                                     }));
  ASSERT_FALSE(bool(code));
  EXPECT_NE(llvm::toString(code.takeError()).find("not an instruction of the kernel"),
            std::string::npos);
}

TEST(Decoder, DecodesGfx1100DualIssue) {
  auto code = decodeKernel(
      "gfx1100",
      bytes({0x01, 0x01, 0x20, 0xca, 0x81, 0x04, 0x02, 0x02, // v_dual_mov_b32 ...
             0x00, 0x00, 0xb0, 0xbf}));                       // s_endpgm
  ASSERT_TRUE(bool(code)) << llvm::toString(code.takeError());
  ASSERT_EQ(code->size(), 2u);
  const Instruction &dual = (*code)[0];
  EXPECT_EQ(dual.text, "v_dual_mov_b32 v2, v1 :: v_dual_add_nc_u32 v3, 1, v2");
  ASSERT_TRUE(dual.dualX && dual.dualY);
  EXPECT_EQ(dual.ops[0].index, 2); // X's real destination
  EXPECT_EQ(dual.dualY->ops[2].index, 2);
  EXPECT_EQ(dual.size, 8u);
}

TEST(Decoder, OperandsModifiersAndConstants) {
  auto in = parseInstruction(
      "global_load_dwordx4 v[4:7], v1, s[2:3] offset:-16 sc0 sc1");
  ASSERT_TRUE(bool(in)) << llvm::toString(in.takeError());
  EXPECT_EQ(in->numOperands, 3);
  EXPECT_EQ(in->ops[0].count, 4);
  EXPECT_EQ(in->ops[2].kind, OperandKind::Scalar);
  EXPECT_EQ(in->offset, -16);
  EXPECT_EQ(in->flags & (kGlc | kSlc), kGlc | kSlc);

  auto f16 = parseInstruction("v_add_f16_e32 v0, 1.0, v1");
  ASSERT_TRUE(bool(f16));
  EXPECT_EQ(f16->ops[1].bits, 0x3c00u);
  auto f64 = parseInstruction("v_fma_f64 v[0:1], v[2:3], 0x40080000, v[4:5]");
  ASSERT_TRUE(bool(f64));
  EXPECT_EQ(f64->ops[2].bits, 0x4008000000000000ull); // a literal's high half
  auto i64 = parseInstruction("s_mov_b64 s[0:1], -1");
  ASSERT_TRUE(bool(i64));
  EXPECT_EQ(i64->ops[1].bits, ~uint64_t(0));

  auto bad = parseInstruction("v_add_f32_e32 v0, v1, v2 frobnicate:3");
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()), "unsupported modifier 'frobnicate:3'");
}

} // namespace
