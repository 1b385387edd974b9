/*===- quilt-gpu-probe.c - What the GPU runtime sees ----------------------===*\
|*                                                                            *|
|* Part of the Quilt project. Built once per GPU runtime (quilt-cuda-probe,   *|
|* quilt-hip-probe): opens the device the way compiled code does and prints   *|
|* its facts, or why it cannot. Exit status 0 when the device is usable; the  *|
|* test suite uses it to decide the cuda-gpu / hip-gpu lit features.          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "QuiltGpuRuntime.h"

#include <inttypes.h>
#include <stdio.h>

int main(void) {
  quilt_gpu_facts facts;
  if (quilt_gpu_device_facts(&facts) != QUILT_GPU_SUCCESS) {
    fprintf(stderr, "%s: %s\n", quilt_gpu_backend(), quilt_gpu_last_error());
    return 1;
  }
  printf("%s device %d: %s (%s)\n", quilt_gpu_backend(), facts.ordinal,
         facts.name, facts.arch);
  printf("  compute units        %" PRId64 " at %.3f GHz, warp %" PRId64 "\n",
         facts.compute_units, facts.clock_ghz, facts.warp_size);
  printf("  threads              %" PRId64 " per block, %" PRId64 " per CU\n",
         facts.max_threads_per_block, facts.max_threads_per_cu);
  printf("  registers            %" PRId64 " per block, %" PRId64 " per CU\n",
         facts.registers_per_block, facts.registers_per_cu);
  printf("  shared memory        %" PRId64 " per block (%" PRId64
         " opt-in), %" PRId64 " per CU\n",
         facts.shared_mem_per_block, facts.shared_mem_per_block_optin,
         facts.shared_mem_per_cu);
  printf("  L2, memory           %" PRId64 " bytes, %" PRId64
         " bytes at %.0f GB/s\n",
         facts.l2_bytes, facts.total_memory_bytes, facts.memory_bandwidth_gbs);
  return 0;
}
