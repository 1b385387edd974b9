//===- OperandErrorTest.cpp - quilt_rt_report_operand_error and status ----===//
//
// Part of the Quilt project. The messages generated code gets for operands
// that fail their checks, and the sticky per-thread status.
//
//===----------------------------------------------------------------------===//

#include "QuiltRuntime.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace {

/// The message one report leaves, from a clear status.
std::string report(int32_t check, int64_t got, int64_t expected,
                   const char *dispatch = "@f dispatch 0 (matmul f32)") {
  quilt_rt_clear_status();
  EXPECT_EQ(quilt_rt_report_operand_error(dispatch, check, got, expected),
            QUILT_RT_STATUS_BAD_OPERAND);
  EXPECT_EQ(quilt_rt_status(), QUILT_RT_STATUS_BAD_OPERAND);
  std::string message = quilt_rt_last_error();
  quilt_rt_clear_status();
  return message;
}

TEST(OperandError, GemmSizes) {
  EXPECT_EQ(report(QUILT_RT_CHECK_K, 31, 32),
            "quilt: @f dispatch 0 (matmul f32): B has 31 rows, A has 32 "
            "columns (K)");
  EXPECT_EQ(report(QUILT_RT_CHECK_M, 1, 16),
            "quilt: @f dispatch 0 (matmul f32): C has 1 row, A has 16 rows "
            "(M)");
  EXPECT_EQ(report(QUILT_RT_CHECK_N, 63, 64),
            "quilt: @f dispatch 0 (matmul f32): C has 63 columns, B has 64 "
            "columns (N)");
  EXPECT_EQ(report(QUILT_RT_CHECK_BIAS, 10, 64),
            "quilt: @f dispatch 0 (matmul f32): the bias has 10 elements, C "
            "has 64 columns (N)");
  EXPECT_EQ(report(QUILT_RT_CHECK_BATCH_B, 3, 2, "@g dispatch 1 (x)"),
            "quilt: @g dispatch 1 (x): B has a batch of 3, A of 2");
  EXPECT_EQ(report(QUILT_RT_CHECK_BATCH_C, 1, 2, "d"),
            "quilt: d: C has a batch of 1, A of 2");
}

TEST(OperandError, TransposedOperandsNameTheirStoredDimensions) {
  // A stored K x M: its K is rows and its M columns; B stored N x K.
  EXPECT_EQ(report(QUILT_RT_CHECK_K | QUILT_RT_CHECK_TRANSPOSED_A |
                       QUILT_RT_CHECK_TRANSPOSED_B,
                   5, 6, "d"),
            "quilt: d: B has 5 columns, A has 6 rows (K)");
  EXPECT_EQ(report(QUILT_RT_CHECK_M | QUILT_RT_CHECK_TRANSPOSED_A, 5, 6, "d"),
            "quilt: d: C has 5 rows, A has 6 columns (M)");
  EXPECT_EQ(report(QUILT_RT_CHECK_N | QUILT_RT_CHECK_TRANSPOSED_B, 5, 6, "d"),
            "quilt: d: C has 5 columns, B has 6 rows (N)");
}

TEST(OperandError, NullPointers) {
  EXPECT_EQ(report(QUILT_RT_CHECK_NULL_B, 0, 544, "d"),
            "quilt: d: B is a null pointer but has 544 elements");
  EXPECT_EQ(report(QUILT_RT_CHECK_NULL_BIAS, 0, 1, "d"),
            "quilt: d: the bias is a null pointer but has 1 element");
  EXPECT_EQ(report(QUILT_RT_CHECK_NULL_FILTER, 0, 27, "d"),
            "quilt: d: the filter is a null pointer but has 27 elements");
}

TEST(OperandError, Convolutions) {
  EXPECT_EQ(report(QUILT_RT_CHECK_CONV_IMAGES, 2, 1, "d"),
            "quilt: d: the output has 2 images, the input has 1");
  EXPECT_EQ(report(QUILT_RT_CHECK_CONV_CHANNELS, 4, 3, "d"),
            "quilt: d: the filter has 4 channels, the input has 3");
  EXPECT_EQ(report(QUILT_RT_CHECK_CONV_FILTERS, 8, 7, "d"),
            "quilt: d: the output has 8 channels, the filter has 7 filters");
  EXPECT_EQ(report(QUILT_RT_CHECK_CONV_BIAS, 7, 8, "d"),
            "quilt: d: the bias has 7 elements, the output has 8 channels");
  EXPECT_EQ(report(QUILT_RT_CHECK_CONV_HEIGHT, 5, 6, "d"),
            "quilt: d: the output's height is 5, but the input's height, the "
            "filter's, the stride and the dilation give 6");
  EXPECT_EQ(report(QUILT_RT_CHECK_CONV_WIDTH, 0, 1, "d"),
            "quilt: d: the output's width is 0, but the input's width, the "
            "filter's, the stride and the dilation give 1");
}

TEST(OperandError, GpuConvolutionsTooLargeForTheirIndexMaps) {
  const char *conv = "@c dispatch 0 (conv2d_nhwc f16)";
  EXPECT_EQ(report(QUILT_RT_CHECK_GPU_CONV_PIXELS, 4294967296, 4294967296,
                   conv),
            "quilt: @c dispatch 0 (conv2d_nhwc f16): the output has "
            "4294967296 pixels in all, too many for the GPU kernels' 32-bit "
            "index maps (at most 4294967295)");
  EXPECT_EQ(report(QUILT_RT_CHECK_GPU_CONV_TAPS, 5000000000, 4294967296,
                   conv),
            "quilt: @c dispatch 0 (conv2d_nhwc f16): the filter has "
            "5000000000 taps in all, too many for the GPU kernels' 32-bit "
            "index maps (at most 4294967295)");
}

TEST(OperandError, GpuMatmulsTooTallForTheirTileMap) {
  EXPECT_EQ(report(QUILT_RT_CHECK_GPU_ROWS, 4294967296, 4294967296,
                   "@m dispatch 0 (matmul f16)"),
            "quilt: @m dispatch 0 (matmul f16): C has 4294967296 rows, too "
            "many for the GPU kernels' 32-bit tile map (at most "
            "4294967295)");
}

TEST(OperandError, NegativeSizesNameTheOperandAndDimension) {
  auto negative = [](int32_t nullCheck, int32_t dim) {
    return QUILT_RT_CHECK_NEGATIVE_SIZE |
           (nullCheck & 0xff) << QUILT_RT_CHECK_ROLE_SHIFT |
           (nullCheck & ~0xff) | dim << QUILT_RT_CHECK_DIM_SHIFT;
  };
  EXPECT_EQ(report(negative(QUILT_RT_CHECK_NULL_A, 0), -3, 0, "d"),
            "quilt: d: A has size -3 along dimension 0");
  EXPECT_EQ(report(negative(QUILT_RT_CHECK_NULL_FILTER, 3), -1, 0, "d"),
            "quilt: d: the filter has size -1 along dimension 3");
  int32_t secondFused =
      QUILT_RT_CHECK_NULL_EPILOGUE | 2 << QUILT_RT_CHECK_OPERAND_SHIFT;
  EXPECT_EQ(report(negative(secondFused, 1), -7, 0, "d"),
            "quilt: d: fused epilogue operand #2 has size -7 along "
            "dimension 1");
  // An operand this runtime does not know: the generic message.
  EXPECT_EQ(report(negative(99, 0), -1, 0, "d"),
            "quilt: d: operand check 1660944412 failed (got -1, expected 0; "
            "is the runtime older than the compiler?)");
}

TEST(OperandError, NewBuffersOfNegativeOrWrappingSize) {
  const char *buffer = "@f: a new memref<?x?xf32>";
  EXPECT_EQ(report(QUILT_RT_CHECK_BUFFER_NEGATIVE_SIZE |
                       1 << QUILT_RT_CHECK_DIM_SHIFT,
                   -4, 0, buffer),
            "quilt: @f: a new memref<?x?xf32>: size -4 along dimension 1");
  EXPECT_EQ(report(QUILT_RT_CHECK_BUFFER_TOO_LARGE, 4294967296,
                   int64_t(1) << 62, buffer),
            "quilt: @f: a new memref<?x?xf32>: its sizes make more than "
            "4611686018427387904 bytes (dimension 0 has size 4294967296)");
}

TEST(OperandError, UnknownCheckAndNullDescriptionStillGiveAMessage) {
  EXPECT_EQ(report(99, 1, 2, nullptr),
            "quilt: a dispatch: operand check 99 failed (got 1, expected 2; "
            "is the runtime older than the compiler?)");
}

TEST(OperandError, StatusIsStickyKeepsTheFirstFailureAndClears) {
  quilt_rt_clear_status();
  EXPECT_EQ(quilt_rt_status(), 0);
  EXPECT_STREQ(quilt_rt_last_error(), "");
  quilt_rt_report_operand_error("first", QUILT_RT_CHECK_K, 1, 2);
  quilt_rt_report_operand_error("second", QUILT_RT_CHECK_M, 1, 2);
  // A selection failure does not replace the operand error either.
  int64_t out[4];
  quilt_rt_select(nullptr, nullptr, 1, 1, 1, 1, out);
  EXPECT_EQ(quilt_rt_status(), QUILT_RT_STATUS_BAD_OPERAND);
  EXPECT_EQ(std::string(quilt_rt_last_error()),
            "quilt: first: B has 1 row, A has 2 columns (K)");
  quilt_rt_clear_status();
  EXPECT_EQ(quilt_rt_status(), 0);
  EXPECT_STREQ(quilt_rt_last_error(), "");
}

TEST(OperandError, StatusIsPerThread) {
  quilt_rt_clear_status();
  std::thread([] {
    quilt_rt_report_operand_error("other thread", QUILT_RT_CHECK_K, 1, 2);
    EXPECT_EQ(quilt_rt_status(), QUILT_RT_STATUS_BAD_OPERAND);
  }).join();
  EXPECT_EQ(quilt_rt_status(), 0);
  EXPECT_STREQ(quilt_rt_last_error(), "");
}

} // namespace
