/* Measurement shim for `quilt-bench --emulate` (docs/benchmarks.md, "On
 * the PTX emulator"): preloaded, it gives Quilt's generated code no
 * operand-copy buffer, so kernels read operands whose rows are not
 * 16-byte aligned as they are (element by element), as before such
 * operands were copied. Counters with and without it compare the two in
 * one build:
 *
 *   cc -shared -fPIC -Iruntime/include -o no-operand-copies.so \
 *     bench/emulator/no-operand-copies.c
 *   LD_PRELOAD=$PWD/no-operand-copies.so build/bin/quilt-bench --target h100 \
 *     --workloads W --emulate
 */
#include "QuiltGpuRuntime.h"

/* An empty buffer without an error status: the generated code then leaves
 * the operands as they are. */
void _mlir_ciface_quilt_gpu_operand_copies(quilt_gpu_byte_memref *result,
                                           int64_t bytes) {
  (void)bytes;
  result->allocated = result->aligned = 0;
  result->offset = result->size = 0;
  result->stride = 1;
}
