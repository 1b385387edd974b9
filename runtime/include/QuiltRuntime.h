/*===- QuiltRuntime.h - Quilt's run-time library, C ABI -----------*- C -*-===*\
|*                                                                            *|
|* Part of the Quilt project. What compiled Quilt code calls at run time.     *|
|* Errors are statuses and messages, never aborts.                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef QUILT_RUNTIME_H
#define QUILT_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Selects the micro-kernel(s) for one call of a compiled dispatch, with the
   same cost model and policy as `quiltc explain`.

   `spec` is the NUL-terminated selection spec the compiler embeds next to
   the dispatch (quilt::formatSelectionSpec: the target, the element type,
   the policy and the candidate list). `cache` points to a pointer-sized,
   zero-initialized slot the compiler emits once per dispatch; the runtime
   parses the spec and prepares the table on the first call and keeps it
   there (thread-safe) until quilt_rt_release.

   On return out[0] is the kernel (a candidate index), out[1] the remainder
   kernel of a patch (equal to out[0] without one), and the main kernel
   covers rows [0, out[2]) and columns [0, out[3]); the remainder covers the
   rest (a patch splits only one dimension). b, m, n, k are the GEMM view's
   sizes; zero sizes are valid and select kernel 0 with nothing to run.

   Returns 0 on success, else a quilt_status (see CostModel/Dispatch.h) or
   QUILT_RT_STATUS_BAD_SPEC. On failure `out` still holds a valid choice,
   kernel 0 over the whole problem: every candidate computes the right
   result, so a failed selection costs speed, never correctness. */
int32_t quilt_rt_select(const char *spec, void **cache, int64_t b, int64_t m,
                        int64_t n, int64_t k, int64_t *out);

/* Frees the table quilt_rt_select prepared in `cache` and zeroes the
   slot. Compiled code calls it for each of its slots from a destructor
   when its library is unloaded (or the program exits), so that loading and
   unloading a library does not leak; a later quilt_rt_select on the slot
   prepares the table again. Not to be called while a select on the same
   slot runs. */
void quilt_rt_release(void **cache);

/* The spec could not be parsed (a compiler/runtime version mismatch). */
#define QUILT_RT_STATUS_BAD_SPEC 100

/* For benchmarks and debugging: makes every later quilt_rt_select in the
   process choose candidate `kernel` over the whole problem (no patch), as
   if compiled with policy fixed=<kernel>; a negative value restores normal
   selection. A kernel index beyond a dispatch's candidate list falls back
   to normal selection for that dispatch, and a dispatch compiled with
   policy fixed keeps its kernel: it is the only one compiled. */
void quilt_rt_force_kernel(int32_t kernel);

/* Vendors, as quilt::Vendor numbers them. */
#define QUILT_RT_VENDOR_NVIDIA 0
#define QUILT_RT_VENDOR_AMD 1

/* Hardware facts of the device the program runs on (the GPU runtime,
   QuiltGpuRuntime.h, calls this when it opens the device). From then on,
   every dispatch whose selection spec targets `vendor` is modeled with
   these compute units (SMs/CUs), clock, and shared memory per block (the
   opt-in maximum) and per compute unit instead of its database entry's;
   the instruction peaks scale with compute units x clock
   (quilt::applyDeviceFacts). A value <= 0 keeps the entry's; a dispatch
   with a candidate that would not fit the device keeps its entry. Applies to
   tables prepared after the call (each dispatch prepares its table on its
   first quilt_rt_select); a vendor other than the two above forgets the
   facts. Thread-safe. */
void quilt_rt_set_device_facts(int32_t vendor, int64_t compute_units,
                               double clock_ghz, int64_t shared_mem_per_block,
                               int64_t shared_mem_per_cu);

/* The message of the last failed call on this thread, or "" when none.
   After a failed operand check (below) it is that check's message until
   quilt_rt_clear_status. */
const char *quilt_rt_last_error(void);

/*===----------------------------------------------------------------------===*
 * Operand checks
 *
 * Every compiled dispatch checks its operands before it selects a kernel:
 * the sizes that must agree (a matmul's K in A and B, C's M and N, batch
 * sizes, the bias's length, a convolution's images, channels, filters and
 * output size for its strides and dilations) and, for every operand with
 * elements, a non-null data pointer (a null pointer with a size-0 dimension
 * is valid). When a check fails the dispatch does nothing: no kernel runs
 * and its output is left as it was. The generated code compares and, on
 * the first failed check, calls quilt_rt_report_operand_error, which sets
 * the calling thread's status. Compiled functions return nothing extra, so
 * a caller reads the status after a call:
 *
 *   _mlir_ciface_matmul(&a, &b, &c);
 *   if (quilt_rt_status() != 0) {
 *     fprintf(stderr, "%s\n", quilt_rt_last_error());
 *     quilt_rt_clear_status();
 *   }
 *===----------------------------------------------------------------------===*/

/* quilt_rt_status() after a failed operand check. */
#define QUILT_RT_STATUS_BAD_OPERAND 101

/* What failed (quilt_rt_report_operand_error's `check`); `got` is the
   offending size, `expected` the size it must equal. A, B, C are the GEMM
   operands (lhs, rhs, init); a convolution's are its input, filter and
   output. */
enum quilt_rt_operand_check {
  QUILT_RT_CHECK_NULL_A = 1, /* expected: A's element count (got: 0) */
  QUILT_RT_CHECK_NULL_B = 2,
  QUILT_RT_CHECK_NULL_C = 3,
  QUILT_RT_CHECK_NULL_BIAS = 4,
  QUILT_RT_CHECK_BATCH_B = 5,        /* B's batch size vs A's */
  QUILT_RT_CHECK_BATCH_C = 6,        /* C's batch size vs A's */
  QUILT_RT_CHECK_K = 7,              /* B's K (rows) vs A's K (columns) */
  QUILT_RT_CHECK_M = 8,              /* C's rows vs A's M (rows) */
  QUILT_RT_CHECK_N = 9,              /* C's columns vs B's N (columns) */
  QUILT_RT_CHECK_BIAS = 10,          /* the bias's length vs C's columns */
  QUILT_RT_CHECK_CONV_IMAGES = 11,   /* the output's images vs the input's */
  QUILT_RT_CHECK_CONV_CHANNELS = 12, /* the filter's channels vs the input's */
  QUILT_RT_CHECK_CONV_FILTERS = 13,  /* the output's channels vs the filters */
  QUILT_RT_CHECK_CONV_HEIGHT = 14,   /* the output's height vs the one the
                                        input, filter, stride and dilation
                                        give: floor((H - d*(R-1) - 1)/s) + 1,
                                        0 when negative */
  QUILT_RT_CHECK_CONV_WIDTH = 15,    /* likewise for the width */
  QUILT_RT_CHECK_NULL_INPUT = 16,    /* a convolution's null operands */
  QUILT_RT_CHECK_NULL_FILTER = 17,
  QUILT_RT_CHECK_NULL_OUTPUT = 18,
  QUILT_RT_CHECK_CONV_BIAS = 19,       /* the bias's length vs the output's
                                          channels */
  QUILT_RT_CHECK_GPU_CONV_PIXELS = 20, /* GPU targets: N*OH*OW (got) must be
                                          below `expected` (2^32), the
                                          kernels' 32-bit image maps */
  QUILT_RT_CHECK_GPU_CONV_TAPS = 21,   /* likewise R*S*C */
  /* A fused epilogue's operands; their index is or'ed in, shifted by
     QUILT_RT_CHECK_OPERAND_SHIFT. */
  QUILT_RT_CHECK_NULL_EPILOGUE = 22,    /* a null operand */
  QUILT_RT_CHECK_EPILOGUE_COLUMNS = 23, /* a per_column operand's length vs
                                           C's columns (N) */
  QUILT_RT_CHECK_EPILOGUE_ROWS = 24,    /* a per_row operand's length vs
                                           C's rows (M) */
  QUILT_RT_CHECK_EPILOGUE_SHAPE = 25,   /* a per_element operand's size vs
                                           C's along the dimension or'ed in,
                                           shifted by
                                           QUILT_RT_CHECK_DIM_SHIFT */
  /* A buffer the compiled code allocates (a returned tensor, a temporary)
     with sizes it takes from the caller's operands; the `dispatch` text
     names the function and the buffer's type. Either check leaves the
     buffer empty (every dynamic size 0), so nothing writes it. */
  QUILT_RT_CHECK_BUFFER_NEGATIVE_SIZE = 26, /* got: the size along the
                                               dimension or'ed in (shifted by
                                               QUILT_RT_CHECK_DIM_SHIFT) */
  QUILT_RT_CHECK_BUFFER_TOO_LARGE = 27,     /* the sizes make more than
                                               `expected` bytes; got: the
                                               size, along the dimension
                                               or'ed in, that took the
                                               product past it */
  QUILT_RT_CHECK_NEGATIVE_SIZE = 28, /* a dispatch operand's size (got) along
                                       the dimension or'ed in is negative;
                                       the operand is the null check's code
                                       shifted by QUILT_RT_CHECK_ROLE_SHIFT
                                       (with a fused epilogue operand's
                                       index as in that check) */
  QUILT_RT_CHECK_GPU_ROWS = 29 /* GPU targets: a matmul's or batch matmul's
                                  rows M (got) must be below `expected`
                                  (2^32), the kernels' 32-bit tile map */
};
#define QUILT_RT_CHECK_ROLE_SHIFT 24
#define QUILT_RT_CHECK_DIM_SHIFT 12
#define QUILT_RT_CHECK_OPERAND_SHIFT 16
/* Flags or'ed into the K, M and N checks: A is stored K x M, B N x K. */
#define QUILT_RT_CHECK_TRANSPOSED_A 0x100
#define QUILT_RT_CHECK_TRANSPOSED_B 0x200

/* Called by generated code when an operand check fails. `dispatch` is the
   NUL-terminated description the compiler embeds per dispatch ("@f
   dispatch 0 (matmul f32)"); the runtime formats the message from it and
   the check, e.g. "quilt: @f dispatch 0 (matmul f32): B has 31 rows, A has
   32 columns (K)". Unless the thread's status is already set (the first
   failure is kept: later ones are usually its consequences), sets it to
   QUILT_RT_STATUS_BAD_OPERAND and the message to quilt_rt_last_error's.
   Returns QUILT_RT_STATUS_BAD_OPERAND. Never aborts; an unknown check
   still gives a message with both sizes. */
int32_t quilt_rt_report_operand_error(const char *dispatch, int32_t check,
                                      int64_t got, int64_t expected);

/* The calling thread's status: 0, or QUILT_RT_STATUS_BAD_OPERAND after a
   failed operand check since the thread started or last cleared it
   (sticky: later successful calls leave it set). */
int32_t quilt_rt_status(void);

/* Clears the calling thread's status and last error. */
void quilt_rt_clear_status(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QUILT_RUNTIME_H */
