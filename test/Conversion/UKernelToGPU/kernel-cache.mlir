// RUN: quilt-opt %s --ukernel-attach-target=target=a100 --convert-ukernel-to-gpu | FileCheck %s

// Dispatches share a kernel when their specs agree. A kernel's name spells
// its configuration but the stage count only when two candidates differ in
// nothing else: the second gets its own kernel, named with its stages.
#s2 = #ukernel.config<tile = 64x64x32, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 8, stages = 2, instruction = mma_sync_f16, boundary = mask>
#s3 = #ukernel.config<tile = 64x64x32, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 8, stages = 3, instruction = mma_sync_f16, boundary = mask>
func.func @stages(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#s2, #s3]
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#s3]
  return
}

// The three-stage kernel keeps a third tile pair in workgroup memory.
// CHECK-LABEL: func.func @stages(
// CHECK:         gpu.launch_func @quilt_nvidia_kernels::@[[K2:quilt_mma_sync_f16_64x64x32_t64_w1x2_tt8x8_v8_f16_f32]] {{.*}}dynamic_shared_memory_size %c16512_i32
// CHECK:         gpu.launch_func @quilt_nvidia_kernels::@[[K3:quilt_mma_sync_f16_64x64x32_t64_w1x2_tt8x8_v8_f16_f32_s3]] {{.*}}dynamic_shared_memory_size %c24704_i32
// CHECK:       gpu.module @quilt_nvidia_kernels
// CHECK-NEXT:    gpu.func @[[K2]](
// CHECK:         gpu.func @[[K3]](
// CHECK:         gpu.func @quilt_repack_f16_2d(
// CHECK-NOT:     gpu.func
