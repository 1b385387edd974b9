// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=h100 --convert-ukernel-to-gpu=native-wgmma=1 | FileCheck %s
// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=h100 --convert-ukernel-to-gpu | FileCheck %s --check-prefix=MMASYNC

// With native-wgmma, a wgmma candidate on sm_90a is a warpgroup kernel:
// 128-byte-swizzled tiles from a 1024-byte boundary, staged by cp.async,
// fenced for the async proxy before the barrier that publishes them, then
// per staged K tile one wgmma.fence, the m64 x N x k16 instructions of
// each 64-row slab (here 2 slabs x 4 K steps of m64n128k16) and a wait.
// B stored K x N is MN-major: BLAS "row" for B, the transpose bit set.
#wg = #ukernel.config<tile = 128x128x64, threads = 128, warps = 4x1, thread_tile = 4x32, vector_width = 8, stages = 4, instruction = wgmma, boundary = mask>
func.func @matmul(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#wg]
  return
}

// Four stages of 2 x 16 KiB, and 1024 bytes to reach the boundary.
// CHECK-LABEL: func.func @matmul(
// CHECK:         gpu.launch_func @quilt_nvidia_kernels::@[[K:quilt_wgmma_128x128x64_t128_w4x1_tt4x32_v8_f16_f32_async]] {{.*}}dynamic_shared_memory_size %c132096_i32
// CHECK:       gpu.func @[[K]](
// CHECK:         %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK:         %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[SMEM]]
// CHECK:         arith.remui %[[BASE]], %c1024
// The A tile, [128 rows][64 halves]; B's two 64-column panels of 64 K rows.
// CHECK:         memref.view %[[SMEM]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
// CHECK:         arith.xori
// CHECK-NEXT:    nvgpu.device_async_copy %arg0[{{.*}}], %{{.*}}[{{.*}}], 8
// CHECK:         nvgpu.device_async_copy %arg1[{{.*}}], %{{.*}}[{{.*}}], 8
// CHECK:         scf.for
// CHECK:           nvgpu.device_async_wait
// CHECK-NEXT:      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:      gpu.barrier
// CHECK:           nvvm.wgmma.fence.aligned
// CHECK-COUNT-8:   nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK-NOT:       nvvm.wgmma.mma_async
// CHECK:           nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:           scf.yield

// Without the option the same candidate is issued as mma.sync.
// MMASYNC-LABEL: func.func @matmul(
// MMASYNC:         gpu.launch_func @quilt_nvidia_kernels::@quilt_wgmma_128x128x64_t128_w4x1_tt4x32_v8_f16_f32 {{.*}}dynamic_shared_memory_size %c131200_i32
// MMASYNC-NOT:     nvvm.wgmma
// MMASYNC:         nvgpu.mma.sync
// MMASYNC-NOT:     nvvm.wgmma

// -----

// B stored N x K (transpose_rhs) is K-major like A: BLAS "col", no
// transpose bit. Two warpgroups side by side in N (warps 4x2), each with
// one slab of m64n64k16.
#wg2 = #ukernel.config<tile = 64x128x64, threads = 256, warps = 4x2, thread_tile = 2x16, vector_width = 8, stages = 3, instruction = wgmma, boundary = mask>
func.func @matmul_tb(%a: memref<?x?xbf16>, %b: memref<?x?xbf16>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul transpose_rhs ins(%a, %b : memref<?x?xbf16>, memref<?x?xbf16>) outs(%c : memref<?x?xf32>)
    candidates [#wg2]
  return
}

// CHECK-LABEL: func.func @matmul_tb(
// CHECK:         gpu.launch_func @quilt_nvidia_kernels::@[[K:quilt_wgmma_64x128x64_t256_w4x2_tt2x16_v8_bf16_f32_tb_async]]
// CHECK:       gpu.func @[[K]](
// CHECK:           nvvm.wgmma.fence.aligned
// CHECK-COUNT-4:   nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-NOT:       nvvm.wgmma.mma_async
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0

// -----

// A K tile of 32 halves is not a 128-byte swizzled row: issued as
// mma.sync, under the kernel name without `_async`.
#wg32 = #ukernel.config<tile = 128x128x32, threads = 128, warps = 4x1, thread_tile = 4x32, vector_width = 8, stages = 4, instruction = wgmma, boundary = mask>
func.func @k32(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#wg32]
  return
}

// CHECK-LABEL: func.func @k32(
// CHECK:         gpu.launch_func @quilt_nvidia_kernels::@quilt_wgmma_128x128x32_t128_w4x1_tt4x32_v8_f16_f32 blocks
// CHECK-NOT:     nvvm.wgmma
// CHECK:         nvgpu.mma.sync
// CHECK-NOT:     nvvm.wgmma
