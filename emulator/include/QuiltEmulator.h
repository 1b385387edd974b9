/*===- QuiltEmulator.h - What the PTX emulator counted, for tools -*- C -*-===*
 *
 * Part of the Quilt project.
 *
 * libquilt_cuda_emulator.so exports the CUDA driver API and these two
 * functions, which tools (quilt-bench --emulate, the Python module) find
 * with dlsym in the library QUILT_GPU_DRIVER names. The counters add up
 * every launch since the last reset; docs/gpu-emulator.md defines them.
 *
 *===----------------------------------------------------------------------===*/

#ifndef QUILT_EMULATOR_H
#define QUILT_EMULATOR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Instruction classes, in by_class order. */
enum {
  QUILT_EMU_CLASS_TENSOR_CORE,
  QUILT_EMU_CLASS_FMA,
  QUILT_EMU_CLASS_LOAD,
  QUILT_EMU_CLASS_STORE,
  QUILT_EMU_CLASS_SHARED,
  QUILT_EMU_CLASS_BARRIER,
  QUILT_EMU_CLASS_OTHER,
  QUILT_EMU_NUM_CLASSES
};

typedef struct quilt_emulator_counters {
  uint64_t launches, ctas;
  uint64_t warp_instructions, thread_instructions;
  uint64_t by_class[QUILT_EMU_NUM_CLASSES];
  uint64_t global_load_bytes, global_store_bytes;
  uint64_t shared_load_bytes, shared_store_bytes;
  uint64_t async_copy_bytes; /* cp.async and TMA, global to shared */
  uint64_t shared_requests, shared_wavefronts, shared_ideal_wavefronts;
  uint64_t global_requests, global_sectors, global_ideal_sectors;
  uint64_t barriers;
  double seconds; /* host time spent emulating */
} quilt_emulator_counters;

void quilt_emulator_read_counters(quilt_emulator_counters *out);
void quilt_emulator_reset_counters(void);

#ifdef __cplusplus
}
#endif

#endif /* QUILT_EMULATOR_H */
