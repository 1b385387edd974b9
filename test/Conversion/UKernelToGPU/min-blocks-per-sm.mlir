// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=a100 --convert-ukernel-to-gpu | FileCheck %s

// An NVIDIA kernel whose blocks an SM the cost model bounds by workgroup
// memory or block size, not by its register estimate, asks ptxas for that
// many (nvvm.minctasm, PTX .minnctapersm): ptxas then fits its registers to
// them instead of aiming at an occupancy of its own. Four stages of
// 128x64 + 64x128 halves (128 KiB) leave one block on an A100's 164 KiB,
// where 208 registers x 128 threads would leave two.
#shared_bound = #ukernel.config<tile = 128x128x64, threads = 128, warps = 2x2, thread_tile = 8x16, vector_width = 8, stages = 4, instruction = mma_sync_f16, boundary = mask>
func.func @shared_bound(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#shared_bound]
  return
}
// CHECK-LABEL: gpu.module @quilt_nvidia_kernels
// CHECK:         gpu.func @quilt_mma_sync_f16_128x128x64_{{[0-9a-z_]+}}({{.*}}) kernel attributes {{{.*}}nvvm.minctasm = 1 : i32

// -----

// Where registers bind (three stages, 96 KiB: shared memory would allow
// one more block than 208 registers x 128 threads do), the kernel asks for
// nothing: asking for the model's count there made ptxas spill whatever
// the estimate missed.
#register_bound = #ukernel.config<tile = 128x128x32, threads = 128, warps = 2x2, thread_tile = 8x16, vector_width = 8, stages = 3, instruction = mma_sync_f16, boundary = mask>
func.func @register_bound(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#register_bound]
  return
}
// CHECK-LABEL: gpu.module @quilt_nvidia_kernels
// CHECK:         gpu.func @quilt_mma_sync_f16_128x128x32_
// CHECK-NOT:     nvvm.minctasm
// CHECK:         gpu.return


// -----

// Where the blocks leave a thread exactly the registers the model
// estimates, the kernel asks for nothing either: four stages of 32x256x8
// SIMT tiles (36 KiB) and 128 registers x 128 threads both give four
// blocks, at 128 registers a thread, and ptxas held to 128 spilled 8 bytes
// of this kernel; left its own choice, it took 128 without a spill.
#at_the_cap = #ukernel.config<tile = 32x256x8, threads = 128, warps = 1x4, thread_tile = 8x8, vector_width = 4, stages = 4, instruction = simt_fma, boundary = mask>
func.func @at_the_cap(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {
  ukernel.dispatch batch_matmul ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)
    candidates [#at_the_cap]
  return
}
// CHECK-LABEL: gpu.module @quilt_nvidia_kernels
// CHECK:         gpu.func @quilt_simt_fma_32x256x8_
// CHECK-NOT:     nvvm.minctasm
// CHECK:         gpu.return
