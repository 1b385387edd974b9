//===- Dispatch.cpp - C ABI of the run-time kernel selection --------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Dispatch.h"
#include "CostModel/CostModel.h"

using namespace quilt;

extern "C" int quilt_select_kernel(const quilt_prepared_table *table, int64_t b,
                                   int64_t m, int64_t n, int64_t k,
                                   quilt_selection *out) {
  if (!table || !out)
    return QUILT_STATUS_NULL_ARGUMENT;
  const auto *prepared = reinterpret_cast<const PreparedTable *>(table);
  Selection sel;
  SelectStatus status = selectKernel(*prepared, GemmShape{b, m, n, k}, sel);
  if (status != SelectStatus::Ok)
    return static_cast<int>(status);
  out->kernel = sel.candidate;
  out->remainder_kernel = sel.remainder;
  out->patch_dim = sel.patchDim == PatchDim::M   ? QUILT_PATCH_M
                   : sel.patchDim == PatchDim::N ? QUILT_PATCH_N
                                                 : QUILT_PATCH_NONE;
  out->padded = sel.padded ? 1 : 0;
  out->main_extent = sel.mainExtent;
  out->predicted_us = sel.predictedUs;
  return QUILT_STATUS_OK;
}

extern "C" const char *quilt_status_string(int status) {
  switch (status) {
  case QUILT_STATUS_OK:
    return "ok";
  case QUILT_STATUS_NULL_ARGUMENT:
    return "null table or output pointer";
  case QUILT_STATUS_NEGATIVE_DIMENSION:
    return "negative dimension";
  case QUILT_STATUS_SHAPE_OVERFLOW:
    return "an operand has more than 2^62 elements";
  case QUILT_STATUS_EMPTY_TABLE:
    return "the prepared table has no candidates";
  case QUILT_STATUS_BAD_FIXED_INDEX:
    return "policy fixed=<index> is out of range";
  }
  return "unknown status";
}
