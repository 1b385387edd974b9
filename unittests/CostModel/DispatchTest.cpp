//===- DispatchTest.cpp - The C ABI of kernel selection -------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Dispatch.h"
#include "CostModel/Candidates.h"
#include "CostModel/CostModel.h"
#include "TestUtil.h"

#include <cstring>

using namespace quilt;

namespace {

TEST(Dispatch, MatchesTheCxxSelection) {
  const TargetDesc &t = builtinTarget("h100");
  PreparedTable table;
  std::string error;
  ASSERT_TRUE(prepareTable(generateCandidates(OpKind::Matmul, ElemType::F16, t),
                           ElemType::F16, t, t.calibration, table, error));
  for (GemmShape s : {GemmShape{1, 1000, 768, 3072},
                      GemmShape{1, 1040, 8192, 8192}, GemmShape{4, 0, 5, 5}}) {
    quilt_selection out;
    ASSERT_EQ(quilt_select_kernel(quilt_table_handle(&table), s.b, s.m, s.n,
                                  s.k, &out),
              QUILT_STATUS_OK);
    Selection sel;
    ASSERT_EQ(selectKernel(table, s, sel), SelectStatus::Ok);
    EXPECT_EQ(out.kernel, sel.candidate);
    EXPECT_EQ(out.remainder_kernel, sel.remainder);
    EXPECT_EQ(out.patch_dim, int(sel.patchDim));
    EXPECT_EQ(out.main_extent, sel.mainExtent);
    EXPECT_EQ(out.predicted_us, sel.predictedUs);
  }
}

TEST(Dispatch, ReportsErrorsAsStatusCodes) {
  PreparedTable table;
  quilt_selection out;
  EXPECT_EQ(quilt_select_kernel(nullptr, 1, 1, 1, 1, &out),
            QUILT_STATUS_NULL_ARGUMENT);
  EXPECT_EQ(
      quilt_select_kernel(quilt_table_handle(&table), 1, 1, 1, 1, nullptr),
      QUILT_STATUS_NULL_ARGUMENT);
  EXPECT_EQ(quilt_select_kernel(quilt_table_handle(&table), 1, 1, 1, 1, &out),
            QUILT_STATUS_EMPTY_TABLE);
  const TargetDesc &t = builtinTarget("host");
  std::string error;
  ASSERT_TRUE(prepareTable(generateCandidates(OpKind::Matmul, ElemType::F32, t),
                           ElemType::F32, t, t.calibration, table, error));
  EXPECT_EQ(quilt_select_kernel(quilt_table_handle(&table), 1, -5, 1, 1, &out),
            QUILT_STATUS_NEGATIVE_DIMENSION);
  EXPECT_STREQ(quilt_status_string(QUILT_STATUS_NEGATIVE_DIMENSION),
               "negative dimension");
  EXPECT_STREQ(quilt_status_string(99), "unknown status");
}

} // namespace
