//===- WorkloadTest.cpp - Workload lines and files ------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Workload.h"

#include "gtest/gtest.h"

#include <filesystem>

using namespace quilt;

namespace {

std::string errorOf(const std::string &line) {
  Workload w;
  std::string error;
  EXPECT_FALSE(parseWorkload(line, w, error)) << line;
  return error;
}

TEST(Workload, AcceptsEveryLineOfTheSharedSuites) {
  std::filesystem::path dir = QUILT_WORKLOADS_DIR;
  if (!std::filesystem::is_directory(dir))
    GTEST_SKIP() << "no workload directory at " << dir;
  int files = 0;
  for (const auto &entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".txt")
      continue;
    std::vector<Workload> ws;
    std::string error;
    EXPECT_TRUE(parseWorkloadFile(entry.path().string(), ws, error)) << error;
    EXPECT_FALSE(ws.empty()) << entry.path();
    for (const Workload &w : ws) {
      Workload again;
      ASSERT_TRUE(parseWorkload(w.str(), again, error)) << w.str();
      EXPECT_EQ(again.gemm, w.gemm);
    }
    ++files;
  }
  EXPECT_GT(files, 0);
}

TEST(Workload, ParsesEachOp) {
  Workload w;
  std::string error;
  ASSERT_TRUE(parseWorkload("matmul f16 M=1000 N=768 K=3072", w, error));
  EXPECT_EQ(w.op, OpKind::Matmul);
  EXPECT_EQ(w.elem, ElemType::F16);
  EXPECT_EQ(w.gemm, (GemmShape{1, 1000, 768, 3072}));
  ASSERT_TRUE(parseWorkload("batch_matmul f32 B=192 M=43 N=64 K=43", w, error));
  EXPECT_EQ(w.gemm, (GemmShape{192, 43, 64, 43}));
  ASSERT_TRUE(parseWorkload(
      "conv2d_nhwc f32 N=16 H=339 W=339 C=128 F=64 R=3 S=3 stride=1 pad=1", w,
      error));
  EXPECT_EQ(w.gemm, (GemmShape{1, 16 * 339 * 339, 64, 128 * 9}));
  ASSERT_TRUE(parseWorkload(
      "conv2d_nchw bf16 N=2 H=10 W=12 C=3 F=8 R=3 S=3 stride=2", w, error));
  EXPECT_EQ(w.op, OpKind::Conv2dNchwFchw);
  EXPECT_EQ(w.conv->outH, 4); // (10 - 3) / 2 + 1
  EXPECT_EQ(w.conv->outW, 5);
  EXPECT_EQ(w.gemm, (GemmShape{1, 2 * 4 * 5, 8, 27}));
  EXPECT_EQ(w.str(),
            "conv2d_nchw bf16 N=2 H=10 W=12 C=3 F=8 R=3 S=3 stride=2 pad=0");
  ASSERT_TRUE(parseWorkload("matmul f32 M=0 N=16 K=16", w, error));
  EXPECT_EQ(w.gemm.m, 0);
}

TEST(Workload, RejectsBadLinesPrecisely) {
  EXPECT_EQ(errorOf("matmull f16 M=1 N=1 K=1"),
            "unknown op 'matmull' (expected matmul, batch_matmul, conv2d_nhwc "
            "or conv2d_nchw)");
  EXPECT_EQ(errorOf("matmul f16 M=1 N=1"), "missing K=");
  EXPECT_EQ(errorOf("batch_matmul f16 M=1 N=1 K=1"), "missing B=");
  EXPECT_EQ(errorOf("matmul f16 M=-3 N=1 K=1"), "negative dimension M=-3");
  EXPECT_EQ(errorOf("matmul i8 M=1 N=1 K=1"),
            "unknown element type 'i8' (expected f32, f16, bf16 or f64)");
  EXPECT_EQ(errorOf("matmul"), "missing element type after 'matmul'");
  EXPECT_EQ(errorOf("matmul f16 M1 N=1 K=1"),
            "malformed 'M1' (expected KEY=VALUE)");
  EXPECT_EQ(errorOf("matmul f16 M=1 M=2 N=1 K=1"), "duplicate key 'M='");
  EXPECT_EQ(errorOf("matmul f16 M=x N=1 K=1"),
            "bad value 'M=x' (expected an integer)");
  EXPECT_EQ(errorOf("matmul f16 M=99999999999999999999 N=1 K=1"),
            "dimension M=99999999999999999999 is out of range");
  EXPECT_EQ(errorOf("matmul f16 M=1 N=1 K=1 B=2"),
            "unknown key 'B=' for matmul");
  EXPECT_EQ(errorOf("matmul f16 M=4611686018427387904 N=1 K=2"),
            "operand A (B x M x K) has more than 2^62 elements");
  EXPECT_EQ(errorOf("conv2d_nhwc f32 N=1 H=2 W=2 C=1 F=1 R=5 S=1"),
            "filter R=5 is larger than the padded input H+2*pad=2");
  EXPECT_EQ(errorOf("conv2d_nhwc f32 N=1 H=8 W=8 C=1 F=1 R=3 S=3 stride=0"),
            "stride must be positive (got 0)");
  EXPECT_EQ(errorOf("conv2d_nhwc f32 N=1 H=8 W=8 C=1 F=1 R=3 S=3 pad=-1"),
            "negative padding pad=-1");
}

TEST(Workload, FileErrorsCarryLineNumbers) {
  std::vector<Workload> ws;
  std::string error;
  EXPECT_FALSE(
      parseWorkloads("# header\n\nmatmull f16 M=1 N=1 K=1\n", ws, error));
  EXPECT_EQ(error, "line 3: unknown op 'matmull' (expected matmul, "
                   "batch_matmul, conv2d_nhwc or conv2d_nchw)");
  ASSERT_TRUE(parseWorkloads("matmul f16 M=1 N=2 K=3  # trailing comment\n", ws,
                             error));
  EXPECT_EQ(ws.size(), 1u);
  EXPECT_FALSE(parseWorkloadFile("/nonexistent/w.txt", ws, error));
  EXPECT_EQ(error, "/nonexistent/w.txt: cannot open for reading");
}

TEST(Workload, ShapeChecks) {
  EXPECT_EQ(checkGemmShape({1, 2, 3, 4}), "");
  EXPECT_EQ(checkGemmShape({1, 2, -3, 4}), "negative dimension N=-3");
  EXPECT_EQ(checkGemmShape({int64_t(1) << 30, int64_t(1) << 30, 1, 16}),
            "operand A (B x M x K) has more than 2^62 elements");
}

} // namespace
