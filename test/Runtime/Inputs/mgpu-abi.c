/* The mgpu* ABI, one pair per symbol: the declaration LLVM 22 emits
   (checked by ../mgpu-abi.mlir with the IR prefix) and the C type
   QuiltGpuRuntime.h must give the function (checked by compiling this file
   with -Werror). Linked against a GPU runtime (../gpu-runtime-link.test),
   it also shows that the library defines every one and loads without a
   driver. */

#include "QuiltGpuRuntime.h"

#include <stdio.h>

/* External linkage: kept in the object, so the linker must resolve each.
   The IR lines are FileCheck patterns and must stay on one line. */
/* clang-format off */
#define PIN(name, result, params) result(*const pin_##name) params = &name

// IR-DAG: declare ptr @mgpuModuleLoad(ptr, i64)
PIN(mgpuModuleLoad, void *, (void *, size_t));
// IR-DAG: declare ptr @mgpuModuleLoadJIT(ptr, i32)
PIN(mgpuModuleLoadJIT, void *, (void *, int));
// IR-DAG: declare void @mgpuModuleUnload(ptr)
PIN(mgpuModuleUnload, void, (void *));
// IR-DAG: declare ptr @mgpuModuleGetFunction(ptr, ptr)
PIN(mgpuModuleGetFunction, void *, (void *, const char *));
// IR-DAG: declare void @mgpuLaunchKernel(ptr, i64, i64, i64, i64, i64, i64, i32, ptr, ptr, ptr, i64)
PIN(mgpuLaunchKernel, void,
    (void *, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t,
     int32_t, void *, void **, void **, size_t));
// IR-DAG: declare ptr @mgpuStreamCreate()
PIN(mgpuStreamCreate, void *, (void));
// IR-DAG: declare void @mgpuStreamDestroy(ptr)
PIN(mgpuStreamDestroy, void, (void *));
// IR-DAG: declare void @mgpuStreamSynchronize(ptr)
PIN(mgpuStreamSynchronize, void, (void *));
// IR-DAG: declare void @mgpuStreamWaitEvent(ptr, ptr)
PIN(mgpuStreamWaitEvent, void, (void *, void *));
// IR-DAG: declare ptr @mgpuEventCreate()
PIN(mgpuEventCreate, void *, (void));
// IR-DAG: declare void @mgpuEventDestroy(ptr)
PIN(mgpuEventDestroy, void, (void *));
// IR-DAG: declare void @mgpuEventSynchronize(ptr)
PIN(mgpuEventSynchronize, void, (void *));
// IR-DAG: declare void @mgpuEventRecord(ptr, ptr)
PIN(mgpuEventRecord, void, (void *, void *));
// i8 is a C bool (the callee reads its low byte).
// IR-DAG: declare ptr @mgpuMemAlloc(i64, ptr, i8)
PIN(mgpuMemAlloc, void *, (uint64_t, void *, bool));
// IR-DAG: declare void @mgpuMemFree(ptr, ptr)
PIN(mgpuMemFree, void, (void *, void *));
// IR-DAG: declare void @mgpuMemcpy(ptr, ptr, i64, ptr)
PIN(mgpuMemcpy, void, (void *, void *, size_t, void *));
// IR-DAG: declare void @mgpuMemset32(ptr, i32, i64, ptr)
PIN(mgpuMemset32, void, (void *, int32_t, size_t, void *));
// IR-DAG: declare void @mgpuMemset16(ptr, i16, i64, ptr)
PIN(mgpuMemset16, void, (void *, int16_t, size_t, void *));
// IR-DAG: declare void @mgpuMemHostRegisterMemRef(i64, ptr, i64)
PIN(mgpuMemHostRegisterMemRef, void, (int64_t, void *, int64_t));
// IR-DAG: declare void @mgpuMemHostUnregisterMemRef(i64, ptr, i64)
PIN(mgpuMemHostUnregisterMemRef, void, (int64_t, void *, int64_t));
// IR-DAG: declare void @mgpuSetDefaultDevice(i32)
PIN(mgpuSetDefaultDevice, void, (int32_t));
// IR-DAG: declare ptr @mgpuTensorMapEncodeTiledMemref(i64, ptr, i64, i64, i64, i64, i64, ptr)
PIN(mgpuTensorMapEncodeTiledMemref, void *,
    (int64_t, void *, int64_t, int64_t, int64_t, int64_t, int64_t, void *));

/* What Quilt's TMA launches call (convert-ukernel-to-gpu declares it;
   checked with the TILE-MAP prefix by ../../Integration/GPU/host-code.test). */
// TILE-MAP: declare i32 @quilt_gpu_tile_map(ptr, ptr, i64, i64, i64, i64, i64, i64, i64, i64)
PIN(quilt_gpu_tile_map, int32_t,
    (void *, const void *, int64_t, int64_t, int64_t, int64_t, int64_t,
     int64_t, int64_t, int64_t));

/* clang-format on */

/* Quilt's own queries. */
PIN(quilt_gpu_last_status, int32_t, (void));
PIN(quilt_gpu_last_error, const char *, (void));
PIN(quilt_gpu_status, int32_t, (void));
PIN(quilt_gpu_first_error, const char *, (void));
PIN(quilt_gpu_reset_status, void, (void));
PIN(quilt_gpu_device_facts, int32_t, (quilt_gpu_facts *));
PIN(quilt_gpu_backend, const char *, (void));

int main(void) {
  /* The pins have external linkage, so linking this file resolves every
     symbol; running it shows the library loads without a driver. */
  printf("%s runtime loaded\n", pin_quilt_gpu_backend());
  return 0;
}
