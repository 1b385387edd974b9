/*===- Dispatch.h - C ABI of the run-time kernel selection -------*- C -*-===*\
|*                                                                            *|
|* Part of the Quilt project. Generated host code (and any C caller) picks    *|
|* the micro-kernel for the actual dims through this entry point. It runs the *|
|* same code as `quiltc explain` and the compiler's cost report, on a table   *|
|* prepared once (quilt::prepareTable in CostModel.h), without allocating.    *|
|*                                                                            *|
|* Usage from C++:                                                            *|
|*   quilt::PreparedTable table;  // filled by quilt::prepareTable            *|
|*   quilt_selection sel;                                                     *|
|*   int status = quilt_select_kernel(quilt_table_handle(&table),             *|
|*                                    b, m, n, k, &sel);                      *|
|*   if (status != QUILT_STATUS_OK) puts(quilt_status_string(status));        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef QUILT_COSTMODEL_DISPATCH_H
#define QUILT_COSTMODEL_DISPATCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque: a quilt::PreparedTable. */
typedef struct quilt_prepared_table quilt_prepared_table;

enum quilt_status {
  QUILT_STATUS_OK = 0,
  QUILT_STATUS_NULL_ARGUMENT = 1,      /* table or out is NULL */
  QUILT_STATUS_NEGATIVE_DIMENSION = 2, /* b, m, n or k < 0 */
  QUILT_STATUS_SHAPE_OVERFLOW = 3,     /* an operand has > 2^62 elements */
  QUILT_STATUS_EMPTY_TABLE = 4,        /* no candidates */
  QUILT_STATUS_BAD_FIXED_INDEX = 5     /* policy fixed=<i> out of range */
};

enum quilt_patch_dim {
  QUILT_PATCH_NONE = 0,
  QUILT_PATCH_M = 1,
  QUILT_PATCH_N = 2
};

typedef struct quilt_selection {
  /* The kernel to launch, or a patch's main kernel (candidate index). */
  int32_t kernel;
  /* A patch's remainder kernel, or -1. */
  int32_t remainder_kernel;
  /* enum quilt_patch_dim: which dimension is split. */
  int32_t patch_dim;
  /* Non-zero when the operands must be padded to the kernel's tile. */
  int32_t padded;
  /* Rows (M) or columns (N) the main kernel covers; the remainder kernel
     covers the rest starting there. 0 when not patching. */
  int64_t main_extent;
  /* Predicted time of the whole choice, in microseconds. */
  double predicted_us;
} quilt_selection;

/* Applies the table's policy to a (batched) GEMM shape. Zero-size dims are
   valid: kernel 0, nothing to launch, predicted_us 0. Returns a
   quilt_status; `out` is written only on QUILT_STATUS_OK. */
int quilt_select_kernel(const quilt_prepared_table *table, int64_t b, int64_t m,
                        int64_t n, int64_t k, quilt_selection *out);

/* A static, human-readable description of a status code. */
const char *quilt_status_string(int status);

#ifdef __cplusplus
} /* extern "C" */

namespace quilt {
struct PreparedTable;
}
/* The C handle of a prepared table (the same object, viewed opaquely). */
inline const quilt_prepared_table *
quilt_table_handle(const quilt::PreparedTable *table) {
  return reinterpret_cast<const quilt_prepared_table *>(table);
}
#endif

#endif /* QUILT_COSTMODEL_DISPATCH_H */
