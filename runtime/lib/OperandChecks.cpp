//===- OperandChecks.cpp - Messages of failed operand checks --------------===//
//
// Part of the Quilt project. Generated code compares a dispatch's sizes and
// pointers itself and passes what failed as a check number and two sizes
// (QuiltRuntime.h); the words are here, once, rather than a format string
// per dispatch in every compiled program.
//
//===----------------------------------------------------------------------===//

#include "Status.h"

#include "QuiltRuntime.h"

using namespace quilt::rt;

namespace {

/// "1 row", "31 rows".
std::string count(int64_t n, const char *noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

const char *rowsOrColumns(bool rows) { return rows ? "row" : "column"; }

std::string nullMessage(const char *operand, int64_t elements) {
  return std::string(operand) + " is a null pointer but has " +
         count(elements, "element");
}

/// The dimension a check names (QUILT_RT_CHECK_DIM_SHIFT), as text.
std::string dimensionOf(int32_t check) {
  return std::to_string((check >> QUILT_RT_CHECK_DIM_SHIFT) & 0xf);
}

/// "fused epilogue operand #N", N from the check's operand bits.
std::string fusedOperandOf(int32_t check) {
  return "fused epilogue operand #" +
         std::to_string((check >> QUILT_RT_CHECK_OPERAND_SHIFT) & 0xff);
}

/// The operand a null check names ("A", "fused epilogue operand #1"); empty
/// for another check.
std::string operandOfNullCheck(int32_t check) {
  switch (check & 0xff) {
  case QUILT_RT_CHECK_NULL_A:
    return "A";
  case QUILT_RT_CHECK_NULL_B:
    return "B";
  case QUILT_RT_CHECK_NULL_C:
    return "C";
  case QUILT_RT_CHECK_NULL_BIAS:
    return "the bias";
  case QUILT_RT_CHECK_NULL_INPUT:
    return "the input";
  case QUILT_RT_CHECK_NULL_FILTER:
    return "the filter";
  case QUILT_RT_CHECK_NULL_OUTPUT:
    return "the output";
  case QUILT_RT_CHECK_NULL_EPILOGUE:
    return fusedOperandOf(check);
  default:
    return "";
  }
}

/// The operand check's words, without the dispatch; empty for an unknown
/// check.
std::string describeCheck(int32_t check, int64_t got, int64_t expected) {
  bool ta = check & QUILT_RT_CHECK_TRANSPOSED_A;
  bool tb = check & QUILT_RT_CHECK_TRANSPOSED_B;
  std::string fused = fusedOperandOf(check);
  switch (check & 0xff) {
  case QUILT_RT_CHECK_NULL_EPILOGUE:
    return nullMessage(operandOfNullCheck(check).c_str(), expected);
  case QUILT_RT_CHECK_EPILOGUE_COLUMNS:
    return fused + " has " + count(got, "element") + ", C has " +
           count(expected, "column") + " (N)";
  case QUILT_RT_CHECK_EPILOGUE_ROWS:
    return fused + " has " + count(got, "element") + ", C has " +
           count(expected, "row") + " (M)";
  case QUILT_RT_CHECK_EPILOGUE_SHAPE:
    return fused + " has size " + std::to_string(got) + " along dimension " +
           dimensionOf(check) + ", C has " + std::to_string(expected);
  case QUILT_RT_CHECK_NULL_A:
  case QUILT_RT_CHECK_NULL_B:
  case QUILT_RT_CHECK_NULL_C:
  case QUILT_RT_CHECK_NULL_BIAS:
  case QUILT_RT_CHECK_NULL_INPUT:
  case QUILT_RT_CHECK_NULL_FILTER:
  case QUILT_RT_CHECK_NULL_OUTPUT:
    return nullMessage(operandOfNullCheck(check).c_str(), expected);
  case QUILT_RT_CHECK_NEGATIVE_SIZE: {
    std::string operand = operandOfNullCheck(
        (check >> QUILT_RT_CHECK_ROLE_SHIFT) |
        (check & (0xff << QUILT_RT_CHECK_OPERAND_SHIFT)));
    if (operand.empty())
      return "";
    return operand + " has size " + std::to_string(got) +
           " along dimension " + dimensionOf(check);
  }
  case QUILT_RT_CHECK_BATCH_B:
    return "B has a batch of " + std::to_string(got) + ", A of " +
           std::to_string(expected);
  case QUILT_RT_CHECK_BATCH_C:
    return "C has a batch of " + std::to_string(got) + ", A of " +
           std::to_string(expected);
  case QUILT_RT_CHECK_K:
    return "B has " + count(got, rowsOrColumns(!tb)) + ", A has " +
           count(expected, rowsOrColumns(ta)) + " (K)";
  case QUILT_RT_CHECK_M:
    return "C has " + count(got, "row") + ", A has " +
           count(expected, rowsOrColumns(!ta)) + " (M)";
  case QUILT_RT_CHECK_N:
    return "C has " + count(got, "column") + ", B has " +
           count(expected, rowsOrColumns(tb)) + " (N)";
  case QUILT_RT_CHECK_BIAS:
    return "the bias has " + count(got, "element") + ", C has " +
           count(expected, "column") + " (N)";
  case QUILT_RT_CHECK_CONV_BIAS:
    return "the bias has " + count(got, "element") + ", the output has " +
           count(expected, "channel");
  case QUILT_RT_CHECK_CONV_IMAGES:
    return "the output has " + count(got, "image") + ", the input has " +
           std::to_string(expected);
  case QUILT_RT_CHECK_CONV_CHANNELS:
    return "the filter has " + count(got, "channel") + ", the input has " +
           std::to_string(expected);
  case QUILT_RT_CHECK_CONV_FILTERS:
    return "the output has " + count(got, "channel") + ", the filter has " +
           count(expected, "filter");
  case QUILT_RT_CHECK_CONV_HEIGHT:
  case QUILT_RT_CHECK_CONV_WIDTH: {
    const char *what =
        (check & 0xff) == QUILT_RT_CHECK_CONV_HEIGHT ? "height" : "width";
    return std::string("the output's ") + what + " is " + std::to_string(got) +
           ", but the input's " + what + ", the filter's, the stride and " +
           "the dilation give " + std::to_string(expected);
  }
  case QUILT_RT_CHECK_GPU_CONV_PIXELS:
  case QUILT_RT_CHECK_GPU_CONV_TAPS: {
    bool pixels = (check & 0xff) == QUILT_RT_CHECK_GPU_CONV_PIXELS;
    return std::string(pixels ? "the output has " : "the filter has ") +
           count(got, pixels ? "pixel" : "tap") +
           " in all, too many for the GPU kernels' 32-bit index maps "
           "(at most " +
           std::to_string(expected - 1) + ")";
  }
  case QUILT_RT_CHECK_GPU_ROWS:
    return "C has " + count(got, "row") +
           ", too many for the GPU kernels' 32-bit tile map (at most " +
           std::to_string(expected - 1) + ")";
  case QUILT_RT_CHECK_BUFFER_NEGATIVE_SIZE:
    return "size " + std::to_string(got) + " along dimension " +
           dimensionOf(check);
  case QUILT_RT_CHECK_BUFFER_TOO_LARGE:
    return "its sizes make more than " + std::to_string(expected) +
           " bytes (dimension " + dimensionOf(check) + " has size " +
           std::to_string(got) + ")";
  default:
    return "";
  }
}

} // namespace

std::string quilt::rt::formatOperandError(const char *dispatch, int32_t check,
                                          int64_t got, int64_t expected) {
  std::string words = describeCheck(check, got, expected);
  if (words.empty())
    words = "operand check " + std::to_string(check) + " failed (got " +
            std::to_string(got) + ", expected " + std::to_string(expected) +
            "; is the runtime older than the compiler?)";
  return std::string("quilt: ") + (dispatch ? dispatch : "a dispatch") + ": " +
         words;
}

extern "C" QUILT_RT_EXPORT int32_t quilt_rt_report_operand_error(
    const char *dispatch, int32_t check, int64_t got, int64_t expected) {
  recordStatus(QUILT_RT_STATUS_BAD_OPERAND,
               formatOperandError(dispatch, check, got, expected));
  return QUILT_RT_STATUS_BAD_OPERAND;
}
