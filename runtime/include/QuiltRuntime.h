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
   there (thread-safe, never freed).

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

/* The spec could not be parsed (a compiler/runtime version mismatch). */
#define QUILT_RT_STATUS_BAD_SPEC 100

/* For benchmarks and debugging: makes every later quilt_rt_select in the
   process choose candidate `kernel` over the whole problem (no patch), as
   if compiled with policy fixed=<kernel>; a negative value restores normal
   selection. A kernel index beyond a dispatch's candidate list falls back
   to normal selection for that dispatch. */
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

/* The message of the last failed call on this thread, or "" when none. */
const char *quilt_rt_last_error(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QUILT_RUNTIME_H */
