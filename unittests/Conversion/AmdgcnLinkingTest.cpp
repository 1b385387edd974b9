//===- AmdgcnLinkingTest.cpp - Joining kernels' AMDGCN assembly -----------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Utils/AmdgcnLinking.h"

#include "llvm/ADT/StringRef.h"

#include <gtest/gtest.h>

using quilt::linkAmdgcnAssembly;

namespace {

/// The number of times `needle` occurs in `text`.
size_t count(llvm::StringRef text, llvm::StringRef needle) {
  size_t found = 0;
  for (size_t at = text.find(needle); at != llvm::StringRef::npos;
       at = text.find(needle, at + needle.size()))
    ++found;
  return found;
}

/// A file as the AMDGPU backend writes one for `kernel` calling `helper`
/// (a function of its own): header, the helper and the kernel with labels,
/// descriptor and register counts, the code-end padding, the module's
/// register maximums and the metadata block.
std::string part(const std::string &kernel, const std::string &helper,
                 int maxVgpr, const std::string &chip = "gfx942",
                 const std::string &version = "  - 1\n  - 2\n") {
  return "\t.amdgcn_target \"amdgcn-amd-amdhsa--" + chip +
         "\"\n"
         "\t.amdhsa_code_object_version 6\n"
         "\t.text\n"
         "\t.globl\t" +
         helper + "\n\t.type\t" + helper + ",@function\n" + helper +
         ":\n"
         "\ts_setpc_b64 s[30:31]\n"
         ".Lfunc_end0:\n"
         "\t.size\t" +
         helper + ", .Lfunc_end0-" + helper + "\n\t.set " + helper +
         ".num_vgpr, 3\n"
         "\t.globl\t" +
         kernel + "\n\t.type\t" + kernel + ",@function\n" + kernel +
         ":\n"
         "\ts_cbranch_execz .LBB1_2\n"
         "\ts_add_u32 s2, s2, " +
         helper +
         "@gotpcrel32@lo+4\n"
         ".LBB1_2:\n"
         "\ts_endpgm\n"
         "\t.section\t.rodata,\"a\",@progbits\n"
         "\t.amdhsa_kernel " +
         kernel +
         "\n"
         "\t\t.amdhsa_next_free_vgpr 8\n"
         "\t.end_amdhsa_kernel\n"
         "\t.text\n"
         ".Lfunc_end1:\n"
         "\t.size\t" +
         kernel + ", .Lfunc_end1-" + kernel + "\n\t.set " + kernel +
         ".num_vgpr, max(8, " + helper +
         ".num_vgpr)\n"
         "\t.p2alignl 6, 3212836864\n"
         "\t.fill 256, 4, 3212836864\n"
         "\t.section\t.AMDGPU.gpr_maximums,\"\",@progbits\n"
         "\t.set amdgpu.max_num_vgpr, " +
         std::to_string(maxVgpr) +
         "\n"
         "\t.set amdgpu.max_num_sgpr, 4\n"
         "\t.text\n"
         "\t.amdgpu_metadata\n"
         "---\n"
         "amdhsa.kernels:\n"
         "  - .name:           " +
         kernel + "\n    .symbol:         " + kernel +
         ".kd\n"
         "amdhsa.target:   amdgcn-amd-amdhsa--" +
         chip + "\namdhsa.version:\n" + version +
         "...\n"
         "\n"
         "\t.end_amdgpu_metadata\n";
}

TEST(AmdgcnLinking, OnePartIsKeptAsIs) {
  std::string error;
  std::string only = part("k", "helper", 3);
  EXPECT_EQ(linkAmdgcnAssembly({only}, error), only);
  EXPECT_FALSE(linkAmdgcnAssembly({}, error));
  EXPECT_EQ(error, "no assembly to link");
}

TEST(AmdgcnLinking, JoinsHeadersCodeAndMetadata) {
  std::string error;
  std::optional<std::string> linked = linkAmdgcnAssembly(
      {part("first", "helper_a", 3), part("second", "helper_b", 7)}, error);
  ASSERT_TRUE(linked) << error;
  EXPECT_EQ(count(*linked, ".amdgcn_target"), 1u);
  EXPECT_EQ(count(*linked, ".amdhsa_code_object_version"), 1u);
  EXPECT_EQ(linked->find(".amdgcn_target"), 1u) << "the header comes first";
  // Both kernels, in order, each with its descriptor.
  size_t first = linked->find("\nfirst:"), second = linked->find("\nsecond:");
  ASSERT_NE(first, std::string::npos);
  ASSERT_NE(second, std::string::npos);
  EXPECT_LT(first, second);
  EXPECT_EQ(count(*linked, ".amdhsa_kernel first\n"), 1u);
  EXPECT_EQ(count(*linked, ".amdhsa_kernel second\n"), 1u);
  // The second part's local labels are its own.
  EXPECT_EQ(count(*linked, "\n.LBB1_2:"), 1u);
  EXPECT_EQ(count(*linked, "\n.Lpart1_BB1_2:"), 1u);
  EXPECT_EQ(count(*linked, "s_cbranch_execz .Lpart1_BB1_2\n"), 1u);
  EXPECT_EQ(count(*linked, ".Lpart1_func_end1-second\n"), 1u);
  // One metadata block listing both kernels, the other keys once.
  EXPECT_EQ(count(*linked, ".amdgpu_metadata\n"), 1u);
  EXPECT_EQ(count(*linked, ".end_amdgpu_metadata\n"), 1u);
  EXPECT_NE(linked->find("amdhsa.kernels:\n"
                         "  - .name:           first\n"
                         "    .symbol:         first.kd\n"
                         "  - .name:           second\n"
                         "    .symbol:         second.kd\n"
                         "amdhsa.target:   amdgcn-amd-amdhsa--gfx942\n"
                         "amdhsa.version:\n"
                         "  - 1\n"
                         "  - 2\n"
                         "...\n"),
            std::string::npos)
      << *linked;
  // The module's register maximums, the largest of each, once; the padding
  // after the code once, at the end.
  EXPECT_EQ(count(*linked, ".set amdgpu.max_num_vgpr"), 1u);
  EXPECT_EQ(count(*linked, ".set amdgpu.max_num_vgpr, 7\n"), 1u);
  EXPECT_EQ(count(*linked, ".set amdgpu.max_num_sgpr, 4\n"), 1u);
  EXPECT_EQ(count(*linked, ".fill 256, 4, 3212836864"), 1u);
  EXPECT_GT(linked->find(".fill 256"), second);
}

TEST(AmdgcnLinking, RenamesASymbolTwoPartsDefine) {
  std::string error;
  std::optional<std::string> linked = linkAmdgcnAssembly(
      {part("first", "helper", 3), part("second", "helper", 3)}, error);
  ASSERT_TRUE(linked) << error;
  // The first part keeps the name; the second's definition, call, size and
  // the register counts named after it are renamed together.
  EXPECT_EQ(count(*linked, "\nhelper:"), 1u);
  EXPECT_EQ(count(*linked, "\nhelper__part1:"), 1u);
  EXPECT_EQ(count(*linked, "helper@gotpcrel32@lo"), 1u);
  EXPECT_EQ(count(*linked, "helper__part1@gotpcrel32@lo"), 1u);
  EXPECT_EQ(count(*linked, ".set helper__part1.num_vgpr, 3\n"), 1u);
  EXPECT_EQ(count(*linked, "max(8, helper__part1.num_vgpr)"), 1u);
  EXPECT_EQ(count(*linked, "max(8, helper.num_vgpr)"), 1u);
  EXPECT_EQ(count(*linked, ".size\thelper__part1, .Lpart1_func_end0-"
                           "helper__part1\n"),
            1u);
}

TEST(AmdgcnLinking, RenamesCommonStorageTwoPartsDefine) {
  std::string error;
  std::string storage = "\t.local\tscratch\n\t.comm\tscratch,4,2\n";
  std::optional<std::string> linked = linkAmdgcnAssembly(
      {part("first", "a", 3) + storage, part("second", "b", 3) + storage},
      error);
  ASSERT_TRUE(linked) << error;
  EXPECT_EQ(count(*linked, ".comm\tscratch,4,2\n"), 1u);
  EXPECT_EQ(count(*linked, ".comm\tscratch__part1,4,2\n"), 1u);
}

TEST(AmdgcnLinking, RefusesPartsForDifferentChips) {
  std::string error;
  EXPECT_FALSE(linkAmdgcnAssembly(
      {part("first", "a", 3), part("second", "b", 3, "gfx1100")}, error));
  EXPECT_NE(error.find("compiled for different targets"), std::string::npos)
      << error;
  EXPECT_NE(error.find("gfx1100"), std::string::npos) << error;
}

TEST(AmdgcnLinking, RefusesAKernelTwoPartsDefine) {
  std::string error;
  EXPECT_FALSE(linkAmdgcnAssembly(
      {part("same", "a", 3), part("same", "b", 3)}, error));
  EXPECT_EQ(error, "two parts define the kernel 'same'");
}

TEST(AmdgcnLinking, RefusesMetadataThatDisagrees) {
  std::string error;
  EXPECT_FALSE(linkAmdgcnAssembly(
      {part("first", "a", 3), part("second", "b", 3, "gfx942", "  - 1\n  - 1\n")},
      error));
  EXPECT_EQ(error, "the parts' metadata disagree on 'amdhsa.version'");
}

TEST(AmdgcnLinking, RefusesARegisterMaximumThatIsNotANumber) {
  std::string error;
  std::string second = part("second", "b", 3);
  size_t at = second.find("max_num_sgpr, 4");
  second.replace(at, 15, "max_num_sgpr, b.numbered_sgpr");
  EXPECT_FALSE(linkAmdgcnAssembly({part("first", "a", 3), second}, error));
  EXPECT_EQ(error, "cannot join the parts' 'amdgpu.max_num_sgpr' "
                   "(b.numbered_sgpr is not a number)");
}

} // namespace
