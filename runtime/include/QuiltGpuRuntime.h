/*===- QuiltGpuRuntime.h - Quilt's GPU runtime, C ABI -------------*- C -*-===*\
|*                                                                            *|
|* Part of the Quilt project. What the host code MLIR's gpu-to-llvm emits     *|
|* calls (the mgpu* functions, LLVM 22's ABI) plus Quilt's own queries, in    *|
|* libquilt_cuda_runtime.so (CUDA driver API) and libquilt_hip_runtime.so     *|
|* (HIP). A process loads one of the two; both export the same symbols.       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef QUILT_GPU_RUNTIME_H
#define QUILT_GPU_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===*
 * Errors
 *
 * No function here aborts, asserts or exits. The driver library
 * (libcuda.so.1, libamdhip64.so) is opened with dlopen on the first call
 * that needs the device, so a program linked against this runtime starts on
 * a machine without a driver or GPU; every call then fails cleanly.
 *
 * Each mgpu* and quilt_gpu_* call (other than the queries below) sets the
 * calling thread's last status: QUILT_GPU_SUCCESS, or the status and message
 * of its failure. The first failure in the process is also kept ("sticky")
 * until quilt_gpu_reset_status: generated code calls mgpu* functions that
 * return nothing, so a host program checks quilt_gpu_status() after a
 * sequence of them. Set QUILT_GPU_VERBOSE=1 to have every failure printed
 * to stderr as it happens.
 *===----------------------------------------------------------------------===*/

#define QUILT_GPU_SUCCESS 0
/* The driver library could not be opened, lacks a function this runtime
   needs, or is a stub; the message names the library. */
#define QUILT_GPU_ERROR_NO_DRIVER 1
/* The driver works but has no device, or not the one QUILT_GPU_DEVICE or
   mgpuSetDefaultDevice asks for. */
#define QUILT_GPU_ERROR_NO_DEVICE 2
/* A null handle, an out-of-range size, or a malformed descriptor. */
#define QUILT_GPU_ERROR_INVALID_ARGUMENT 3
/* A driver call failed; the message names the call and the driver's error
   (e.g. "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE: invalid
   argument"). */
#define QUILT_GPU_ERROR_DRIVER 4
/* This backend cannot do what was asked (PTX JIT or tensor maps on HIP, a
   second device in one process). */
#define QUILT_GPU_ERROR_UNSUPPORTED 5

/* Status of the calling thread's last runtime call (0 when it succeeded). */
int32_t quilt_gpu_last_status(void);
/* Message of the calling thread's last runtime call, "" when it succeeded
   (cut at 2047 characters). Valid until the thread's next runtime call. */
const char *quilt_gpu_last_error(void);
/* Status of the first failure in the process since start or the last
   quilt_gpu_reset_status, 0 when none. Thread-safe. */
int32_t quilt_gpu_status(void);
/* Message of that first failure, "" when none. Valid until the next
   quilt_gpu_reset_status. */
const char *quilt_gpu_first_error(void);
/* Forgets the first failure and the calling thread's last one. A driver
   that could not be opened stays unusable: the next call fails again with
   the same message. */
void quilt_gpu_reset_status(void);

/*===----------------------------------------------------------------------===*
 * Device facts
 *
 * Queried once, when the device is opened (the first mgpu* call, usually
 * mgpuModuleLoad in the generated global constructor). Opening the device
 * also hands the compute-unit count, clock and shared-memory sizes to
 * quilt_rt_set_device_facts (QuiltRuntime.h), so that run-time kernel
 * selection models the GPU the program runs on (an H100 PCIe rather than
 * the SXM the compiler's target describes).
 *===----------------------------------------------------------------------===*/

#define QUILT_GPU_VENDOR_NVIDIA 0 /* = QUILT_RT_VENDOR_NVIDIA */
#define QUILT_GPU_VENDOR_AMD 1    /* = QUILT_RT_VENDOR_AMD */

typedef struct quilt_gpu_facts {
  int32_t vendor;     /* QUILT_GPU_VENDOR_* */
  int32_t ordinal;    /* the device's index in the driver */
  char name[256];     /* "NVIDIA H100 PCIe", "AMD Instinct MI300X" */
  char arch[64];      /* "sm_90", "gfx942" (features dropped) */
  int32_t arch_major; /* compute capability (HIP: its equivalent) */
  int32_t arch_minor;
  int64_t compute_units; /* SMs or CUs */
  int64_t warp_size;     /* 32, or 64 (AMD CDNA wavefront) */
  int64_t max_threads_per_block;
  int64_t max_threads_per_cu;
  int64_t registers_per_block;
  int64_t registers_per_cu;
  /* Shared memory (LDS) a block gets without opting in (48 KiB on
     NVIDIA), the most it may opt in to (launches ask for it themselves),
     and what one SM/CU has. */
  int64_t shared_mem_per_block;
  int64_t shared_mem_per_block_optin;
  int64_t shared_mem_per_cu;
  int64_t l2_bytes;
  int64_t total_memory_bytes;
  double clock_ghz;            /* the driver's (maximum) SM/CU clock */
  double memory_bandwidth_gbs; /* from memory clock and bus width, 0 if
                                  the driver does not say */
} quilt_gpu_facts;

/* Opens the device if needed and copies its facts to *out. Returns 0, or a
   QUILT_GPU_ERROR_* status (then *out is zeroed). */
int32_t quilt_gpu_device_facts(quilt_gpu_facts *out);

/* "CUDA" or "HIP": the backend this library was built for. */
const char *quilt_gpu_backend(void);

/* Bytes (and alignment) of a CUtensorMap. */
#define QUILT_GPU_TENSOR_MAP_BYTES 128

/* Encodes into `map` (QUILT_GPU_TENSOR_MAP_BYTES bytes the caller owns,
   aligned to as many, as cuda.h aligns a CUtensorMap) a TMA descriptor
   (CUtensorMap) for the operand tiles of Quilt's sm_90a kernels: `batch`
   matrices of `rows` x `cols` elements of CUtensorMapDataType `dtype` (6 f16, 9
   bf16) at `address`, rows `row_stride` and matrices `batch_stride` elements
   apart (unit inner stride), read in boxes of one matrix x `box_rows` x
   `box_cols` with the 128-byte swizzle; elements outside the matrices read as
   zero. The generated code encodes the maps of every launch this way, on the
   host (no device memory, no copy), and passes them by value as the kernel's
   `__grid_constant__` parameters.
   Returns 1 when `map` holds the descriptor. Returns 0 without an error
   when the view cannot be described by one (a null address, a size of 0
   or of 2^31 or more, a box larger than 256 rows or not 16 to 128 bytes
   wide in steps of 16, an address or stride that is not a multiple of 16
   bytes, rows or matrices that overlap), or when this runtime or the
   driver has no tensor maps (CUDA before 12): the generated code then
   launches the kernel that stages its tiles with cp.async. Returns 0 with
   an error status when `map` is null or misaligned or the driver fails
   otherwise. */
int32_t quilt_gpu_tile_map(void *map, const void *address, int64_t dtype,
                           int64_t batch, int64_t rows, int64_t cols,
                           int64_t batch_stride, int64_t row_stride,
                           int64_t box_rows, int64_t box_cols);

/* Device memory of at least `bytes` that the calling thread may use as
   scratch (the partial sums of Quilt's split-K kernels): the runtime keeps
   one buffer per thread, grows it when a request is larger (freeing the
   old one) and frees it when the thread exits. It is valid until the
   thread's next call of this function: work on it must be complete by
   then, as it is after Quilt's generated launches, which wait for their
   kernels. Null for 0 bytes (without an error) or on failure. */
void *quilt_gpu_workspace(uint64_t bytes);

/* A memref<?xi8> descriptor (MLIR's layout: allocated, aligned, offset,
   size, stride). */
typedef struct {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
} quilt_gpu_byte_memref;

/* quilt_gpu_workspace for generated code, as MLIR's C interface calls a
   function `quilt_gpu_workspace(i64) -> memref<?xi8>` declared with
   llvm.emit_c_interface: the buffer as a descriptor of `bytes` bytes (size
   0 and null pointers on failure). */
void _mlir_ciface_quilt_gpu_workspace(quilt_gpu_byte_memref *result,
                                      int64_t bytes);

/* Device memory of at least `bytes` for the aligned copies of operands
   whose rows do not start on 16-byte boundaries (Quilt's generated code
   copies such an A or B there before its kernels read it): a second
   per-thread buffer, apart from quilt_gpu_workspace's as one call uses
   both, with the same lifetime and growth. Null for 0 bytes (without an
   error) or on failure. */
void *quilt_gpu_operand_copies(uint64_t bytes);

/* quilt_gpu_operand_copies through MLIR's C interface, as
   _mlir_ciface_quilt_gpu_workspace. */
void _mlir_ciface_quilt_gpu_operand_copies(quilt_gpu_byte_memref *result,
                                           int64_t bytes);

/* `count` 32-bit counters, all zero, that the calling thread's kernels may
   count in (the arrival counters of Quilt's split-K kernels: each block
   of a tile adds one when its partial sums are stored, and the last to
   arrive finishes the tile and sets the counter back to zero). The runtime
   keeps one buffer per thread, zeroed when it is allocated and again after
   any failed call on the thread (a kernel stopped midway may have left
   counts); kernels that count in it must leave every counter at zero. The
   same lifetime as quilt_gpu_workspace's buffer. Null for 0 counters
   (without an error) or on failure. */
int32_t *quilt_gpu_arrival_counters(uint64_t count);

/* A memref<?xi32> descriptor. */
typedef struct {
  int32_t *allocated;
  int32_t *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
} quilt_gpu_i32_memref;

/* quilt_gpu_arrival_counters for generated code (a function
   `quilt_gpu_arrival_counters(i64) -> memref<?xi32>` declared with
   llvm.emit_c_interface): size 0 and null pointers on failure. */
void _mlir_ciface_quilt_gpu_arrival_counters(quilt_gpu_i32_memref *result,
                                             int64_t count);

/*===----------------------------------------------------------------------===*
 * The mgpu* ABI of LLVM 22's gpu-to-llvm (pinned by test/Runtime/mgpu-abi.mlir)
 *
 * The device is the primary context of ordinal 0 (CUDA) or device 0 (HIP);
 * QUILT_GPU_DEVICE=<n> selects another. The runtime binds it to every
 * thread that calls in. Handles are the driver's (CUmodule, CUfunction,
 * CUstream, CUevent, device pointers), so they mix with direct driver calls.
 *===----------------------------------------------------------------------===*/

/* Loads a cubin, fatbin, PTX or HSA code object. Cached by (blob, size):
   loading the same embedded binary again returns the same module and counts
   a reference; mgpuModuleUnload drops one. Null on failure. */
void *mgpuModuleLoad(void *blob, size_t size);
/* PTX text (gpu-module-to-binary format=isa), JIT-compiled at optLevel
   (clamped to 0..4); the JIT log is in the error message. Cached like
   mgpuModuleLoad. HIP: QUILT_GPU_ERROR_UNSUPPORTED. */
void *mgpuModuleLoadJIT(void *ptx, int optLevel);
/* Drops a reference; the module is unloaded, and its functions forgotten,
   at the last one. Null is ignored (its load already reported why). */
void mgpuModuleUnload(void *module);
/* Cached by (module, name). Null on failure. */
void *mgpuModuleGetFunction(void *module, const char *name);
/* A grid with a zero dimension launches nothing (an empty dynamic shape).
   Dynamic shared memory (smem) opts the function in to that size first,
   once per function and size, so that it may pass the default 48 KiB up to
   the device's opt-in maximum. nParams is not needed by either driver and
   is ignored. */
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t nParams);

/* Non-blocking streams. A null stream is the device's default stream. */
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);

/* Events without timing. */
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);

/* Device memory, or managed memory (host and device) when hostShared. Zero
   bytes gives null without an error; mgpuMemFree(null) does nothing. */
void *mgpuMemAlloc(uint64_t bytes, void *stream, bool hostShared);
void mgpuMemFree(void *ptr, void *stream);
/* Asynchronous on `stream`, any direction (unified addressing). */
void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);
/* `count` 32-bit / 16-bit elements. */
void mgpuMemset32(void *dst, int32_t value, size_t count, void *stream);
void mgpuMemset16(void *dst, int16_t value, size_t count, void *stream);

/* Page-locks (registers) the host memory of a ranked memref descriptor
   (allocated, aligned, offset, sizes[rank], strides[rank]), and undoes it. */
void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes);
void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes);

/* Only `device` equal to the one already in use (or, before the first
   call, any device: it replaces QUILT_GPU_DEVICE). One device per process. */
void mgpuSetDefaultDevice(int32_t device);

/* A TMA descriptor (CUtensorMap, CUDA 12+, sm_90) for a ranked memref
   descriptor of `rank` dims (innermost stride 1) and a box of boxDims
   (`rank` int64, outermost first), with CUtensorMapDataType `dtype` and the
   interleave/swizzle/l2promo/oob enums; returns it copied to device memory.
   Identical descriptors share one device copy, so calling this in a loop
   does not leak. Null on failure; HIP: QUILT_GPU_ERROR_UNSUPPORTED. */
void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *descriptor,
                                     int64_t dtype, int64_t interleave,
                                     int64_t swizzle, int64_t l2promo,
                                     int64_t oob, void *boxDims);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QUILT_GPU_RUNTIME_H */
