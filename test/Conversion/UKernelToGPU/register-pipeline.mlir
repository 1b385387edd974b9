// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=t4 --convert-ukernel-to-gpu | FileCheck %s

// Without cp.async (the T4 is sm_75; AMD chips have no asynchronous copy
// either) a pipeline runs through registers: at most two shared-memory
// buffers, whatever stages the configuration asks for (here 3). Before the
// loop, K step 0 is loaded into registers and stored into buffer 0. Each
// iteration loads the next K step into registers, multiplies the current
// buffer, stores the registers into the other buffer, and needs a single
// barrier.
#simt = #ukernel.config<tile = 32x32x8, threads = 64, warps = 2x1, thread_tile = 4x4, vector_width = 4, stages = 3, instruction = simt_fma, boundary = mask>
func.func @mm_f32(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
    candidates [#simt]
  return
}

// CHECK-LABEL: gpu.func @quilt_simt_fma_32x32x8_t64_w2x1_tt4x4_v4_f32_f32(
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK:         %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK:         vector.load %arg0
// CHECK:         vector.load %arg1
// CHECK:         memref.store {{.*}} : memref<8x32xf32, #gpu.address_space<workgroup>>
// CHECK:         vector.store {{.*}} : memref<8x32xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT:    gpu.barrier
// CHECK:         scf.for %[[K:[^ ]+]] = {{.*}} iter_args
// CHECK:           %[[STEP:.*]] = arith.divui %[[K]], %{{.*}} : index
// CHECK:           %[[CUR:.*]] = arith.remui %[[STEP]], %{{.*}} : index
// CHECK:           %[[NEXT:.*]] = arith.subi %{{.*}}, %[[CUR]] : index
// A buffer holds A (8x32 f32, 1 KiB) then B: 2 KiB, two of them.
// CHECK:           %[[CUR_A_AT:.*]] = arith.muli %[[CUR]], %c2048{{.*}} : index
// CHECK:           %[[CUR_B_AT:.*]] = arith.addi %[[CUR_A_AT]], %c1024{{.*}} : index
// CHECK:           %[[CUR_B:.*]] = memref.view %[[SMEM]][%[[CUR_B_AT]]][]
// CHECK:           %[[CUR_A:.*]] = memref.view %[[SMEM]][%[[CUR_A_AT]]][]
// CHECK:           %[[NEXT_A_AT:.*]] = arith.muli %[[NEXT]], %c2048{{.*}} : index
// CHECK:           %[[NEXT_B_AT:.*]] = arith.addi %[[NEXT_A_AT]], %c1024{{.*}} : index
// CHECK:           %[[NEXT_B:.*]] = memref.view %[[SMEM]][%[[NEXT_B_AT]]][]
// CHECK:           %[[NEXT_A:.*]] = memref.view %[[SMEM]][%[[NEXT_A_AT]]][]
// The loads are of K step k + 8: A's columns and B's rows from there.
// CHECK:           %[[NEXT_K:.*]] = arith.addi %[[K]], %c8{{.*}} : index
// CHECK-NOT:       gpu.barrier
// CHECK:           %[[A_COL:.*]] = arith.addi %[[NEXT_K]], %{{.*}} : index
// CHECK:           vector.load %arg0[%{{.*}}, %[[A_COL]]]
// CHECK:           %[[B_ROW:.*]] = arith.addi %[[NEXT_K]], %{{.*}} : index
// CHECK:           vector.load %arg1[%[[B_ROW]], %{{.*}}]
// CHECK:           vector.load %[[CUR_A]][
// CHECK:           vector.load %[[CUR_B]][
// CHECK:           vector.fma
// CHECK-NOT:       gpu.barrier
// CHECK:           memref.store {{.*}}, %[[NEXT_A]][
// CHECK:           vector.store {{.*}}, %[[NEXT_B]][
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      scf.yield

// -----

// An nchw convolution's element gathers would keep too many values in
// flight (on gfx942 they took a candidate from 127 VGPRs to 368, spilling),
// so without cp.async it keeps one stage: one buffer, allocated before the
// loop, filled, multiplied between two barriers.
#conv = #ukernel.config<tile = 64x64x8, threads = 64, warps = 2x1, thread_tile = 8x8, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @conv_nchw(%i: memref<?x?x?x?xf32>, %f: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  ukernel.dispatch conv2d_nchw ins(%i, %f : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%o : memref<?x?x?x?xf32>)
    candidates [#conv]
  return
}

// CHECK-LABEL: gpu.func @quilt_simt_fma_64x64x8_t64_w2x1_tt8x8_v4_f32_f32_tb_conv2d_nchw_s1x1_sa(
// CHECK:         %[[B:.*]] = memref.view {{.*}} to memref<8x64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[A:.*]] = memref.view {{.*}} to memref<8x64xf32, #gpu.address_space<workgroup>>
// CHECK:         scf.for
// CHECK-NOT:       memref.view
// CHECK:           memref.store {{.*}}, %[[A]][
// CHECK:           gpu.barrier
// CHECK:           vector.fma
// CHECK:           gpu.barrier
// CHECK-NEXT:      scf.yield

// -----

// An nhwc image with contiguous channels is read in runs along C, so its
// convolution pipelines like a matrix: two buffers chosen per iteration.
#conv = #ukernel.config<tile = 64x64x8, threads = 64, warps = 2x1, thread_tile = 8x8, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @conv_nhwc(%i: memref<?x?x?x?xf32>, %f: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  ukernel.dispatch conv2d_nhwc ins(%i, %f : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%o : memref<?x?x?x?xf32>)
    candidates [#conv]
  return
}

// CHECK-LABEL: gpu.func @quilt_simt_fma_64x64x8_t64_w2x1_tt8x8_v4_f32_f32_conv2d_nhwc_s1x1(
// CHECK-SAME:    %[[IMAGE:[^:]+]]: memref<?x?x?x?xf32, strided<[?, ?, ?, 1], offset: ?>>
// CHECK:         vector.load %[[IMAGE]]
// CHECK:         gpu.barrier
// CHECK:         scf.for
// CHECK:           %[[CUR:.*]] = arith.remui
// CHECK:           memref.view
// CHECK:           vector.load %[[IMAGE]]
// CHECK:           vector.fma
// CHECK-NOT:       gpu.barrier
// CHECK:           vector.store
// CHECK:           gpu.barrier
// CHECK-NEXT:      scf.yield
