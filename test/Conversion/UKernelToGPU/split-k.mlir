// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=a100 --convert-ukernel-to-gpu | FileCheck %s

// A split-K candidate (split_k = 4) of a batch matmul with a bias and ReLU.
// On the host, per region: the runtime's workspace for the calling thread
// (quilt_gpu_workspace, through MLIR's C interface) viewed as (batch x 4)
// f32 matrices of the region's rows x columns, each split ceil(ceil(K / 8)
// / 4) K tiles of 8; where the runtime gave one, the split-K kernel over
// (tiles M, tiles N, batch x 4) blocks, then the reduction over (rows,
// ceil(columns / 256), batch) blocks of 256 threads.
#sk = #ukernel.config<tile = 64x64x8, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask, split_k = 4>
func.func @bmm(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>, %bias: memref<?xf32>) {
  ukernel.dispatch batch_matmul ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>) bias(%bias : memref<?xf32>) epilogue [bias_add, relu]
    candidates [#sk]
  return
}

// CHECK:       func.func private @quilt_gpu_workspace(i64) -> memref<?xi8> attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @bmm(
// CHECK:         %[[KSTEPS:.*]] = arith.ceildivsi %{{.*}}, %[[TK:c8.*]] : index
// CHECK-NEXT:    %[[SPLITSTEPS:.*]] = arith.ceildivsi %[[KSTEPS]], %[[SPLITS:c4.*]] : index
// CHECK-NEXT:    %[[SPLITK:.*]] = arith.muli %[[SPLITSTEPS]], %[[TK]] : index
// CHECK-NEXT:    %[[MATRICES:.*]] = arith.muli %[[BATCH:.*]], %[[SPLITS]] : index
// CHECK:         %[[BYTES:.*]] = arith.muli %{{.*}}, %c4{{.*}} : index
// CHECK-NEXT:    %[[BYTES64:.*]] = arith.index_cast %[[BYTES]] : index to i64
// CHECK-NEXT:    %[[BUFFER:.*]] = func.call @quilt_gpu_workspace(%[[BYTES64]]) : (i64) -> memref<?xi8>
// CHECK-NEXT:    %[[AT:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[WS:.*]] = memref.view %[[BUFFER]][%[[AT]]][%[[MATRICES]], %[[ROWS:.*]], %[[COLS:.*]]] : memref<?xi8> to memref<?x?x?xf32>
// CHECK-NEXT:    %[[ADDRESS:.*]] = memref.extract_aligned_pointer_as_index %[[BUFFER]]
// CHECK-NEXT:    %[[NULL:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[HAVE:.*]] = arith.cmpi slt, %[[NULL]], %[[ADDRESS]] : index
// CHECK-NEXT:    scf.if %[[HAVE]] {
// CHECK-NEXT:      %[[WSARG:.*]] = memref.cast %[[WS]] : memref<?x?x?xf32> to memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
// The vector flag for C is the workspace's alignment.
// CHECK:         memref.extract_strided_metadata %[[WSARG]]
// CHECK:         gpu.launch_func @quilt_nvidia_kernels::@[[SPLIT:quilt_simt_fma_64x64x8_t64_w1x2_tt8x8_v4_f32_f32_biasf32_bias_add_relu_batch_sk]] blocks in (%{{.*}}, %{{.*}}, %[[MATRICES]]) threads in (%c64{{.*}}) {{.*}} args({{.*}}, %[[WSARG]] : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %[[SPLITS]] : index, %[[SPLITK]] : index, %{{.*}} : i32)
// CHECK-NEXT:    %[[THREADS:.*]] = arith.constant 256 : index
// CHECK:         %[[COLBLOCKS:.*]] = arith.ceildivsi %[[COLS]], %[[THREADS]]
// CHECK:         gpu.launch_func @quilt_nvidia_kernels::@[[REDUCE:quilt_splitk_reduce_f32_f32_biasf32_bias_add_relu_batch]] blocks in (%[[ROWS]], %[[COLBLOCKS]], %[[BATCH]]) threads in (%[[THREADS]], %{{.*}}, %{{.*}}) dynamic_shared_memory_size %c0_i32{{.*}} args(%{{.*}} : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %{{.*}} : memref<?xf32, strided<[?], offset: ?>>, %[[WSARG]] : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %[[SPLITS]] : index, %[[SPLITK]] : index, %{{.*}} : i32)
// CHECK-NEXT:  }

// The split-K kernel: block z is (matrix, split), divided in 32 bits; the
// K loop runs over the split's range; the tile's partial sums go to
// workspace matrix z, C is neither read nor written, no epilogue.
// CHECK:       gpu.func @[[SPLIT]](%{{.*}}: memref<?x?x?xf32, {{.*}}>, %{{.*}}: memref<?x?x?xf32, {{.*}}>, %[[C:.*]]: memref<?x?x?xf32, {{.*}}>, %{{.*}}: memref<?xf32, {{.*}}>, %[[KWS:.*]]: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %[[KSPLITS:.*]]: index, %[[KSPLITK:.*]]: index, %{{.*}}: i32) kernel
// CHECK:         %[[Z:.*]] = gpu.block_id  z
// CHECK-NEXT:    %[[Z32:.*]] = arith.index_castui %[[Z]] : index to i32
// CHECK-NEXT:    %[[S32:.*]] = arith.index_castui %[[KSPLITS]] : index to i32
// CHECK-NEXT:    %[[SPLIT32:.*]] = arith.remui %[[Z32]], %[[S32]] : i32
// CHECK-NEXT:    %[[SPLITIDX:.*]] = arith.index_castui %[[SPLIT32]] : i32 to index
// CHECK-NEXT:    %[[MATRIX32:.*]] = arith.divui %[[Z32]], %[[S32]] : i32
// CHECK-NEXT:    %[[MATRIX:.*]] = arith.index_castui %[[MATRIX32]] : i32 to index
// CHECK:         %[[PARTIAL:.*]] = memref.subview %[[KWS]][%[[Z]], 0, 0]
// CHECK:         memref.subview %{{.*}}[%[[MATRIX]], 0, 0]
// CHECK:         %[[KBEGIN:.*]] = arith.muli %[[SPLITIDX]], %[[KSPLITK]] : index
// CHECK-NEXT:    %[[KLIMIT:.*]] = arith.addi %[[KBEGIN]], %[[KSPLITK]] : index
// CHECK-NEXT:    %[[KEND:.*]] = arith.minsi %{{.*}}, %[[KLIMIT]] : index
// CHECK:         scf.for %{{.*}} = %[[KBEGIN]] to %[[KEND]] step %c8
// CHECK-NOT:     memref.load %[[C]]
// CHECK-NOT:     arith.maximumf
// CHECK:         vector.store %{{.*}}, %[[PARTIAL]]
// CHECK-NOT:     arith.maximumf
// CHECK:         memref.store %{{.*}}, %[[PARTIAL]]
// CHECK-NOT:     arith.maximumf
// CHECK:         gpu.return

// The reduction: the splits of matrix z summed in order from 0, then C =
// relu(C + sum + bias).
// CHECK:       gpu.func @[[REDUCE]](%[[RC:.*]]: memref<?x?x?xf32, {{.*}}>, %[[RBIAS:.*]]: memref<?xf32, {{.*}}>, %[[RWS:.*]]: memref<?x?x?xf32, {{.*}}>, %[[RSPLITS:.*]]: index, %{{.*}}: index, %{{.*}}: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK:         %[[ROW:.*]] = gpu.block_id  x
// CHECK:         %[[MZ:.*]] = gpu.block_id  z
// CHECK:         %[[RCM:.*]] = memref.subview %[[RC]][%[[MZ]], 0, 0]
// CHECK:         scf.if
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           %[[FIRST:.*]] = arith.muli %[[MZ]], %[[RSPLITS]] : index
// CHECK:           %[[SUM:.*]] = scf.for %[[S:.*]] = %{{.*}} to %[[RSPLITS]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT:        %[[AT:.*]] = arith.addi %[[FIRST]], %[[S]] : index
// CHECK-NEXT:        %[[PART:.*]] = memref.load %[[RWS]][%[[AT]], %[[ROW]], %{{.*}}]
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addf %[[ACC]], %[[PART]] : f32
// CHECK-NEXT:        scf.yield %[[NEXT]] : f32
// CHECK:           scf.if
// CHECK-NEXT:        %[[OLD:.*]] = memref.load %[[RCM]]
// CHECK-NEXT:        %[[WITH:.*]] = arith.addf %[[OLD]], %[[SUM]] : f32
// CHECK-NEXT:        %[[B:.*]] = memref.load %[[RBIAS]]
// CHECK-NEXT:        %[[BIASED:.*]] = arith.addf %[[WITH]], %[[B]] : f32
// CHECK:             %[[RELU:.*]] = arith.maximumf %[[BIASED]]
// CHECK-NEXT:        memref.store %[[RELU]], %[[RCM]]
// CHECK:         gpu.return

// -----

// Candidates that differ only in the split count share the split-K kernel
// (the count is a launch operand); one split is the plain kernel. A
// convolution's reduction writes the output pixel of each GEMM row and
// takes the region's first row and row count like the kernel.
#sk2 = #ukernel.config<tile = 64x64x32, threads = 128, warps = 2x2, thread_tile = 4x8, vector_width = 8, stages = 3, instruction = mma_sync_f16, boundary = mask, split_k = 2>
#sk5 = #ukernel.config<tile = 64x64x32, threads = 128, warps = 2x2, thread_tile = 4x8, vector_width = 8, stages = 3, instruction = mma_sync_f16, boundary = mask, split_k = 5>
#sk1 = #ukernel.config<tile = 64x64x32, threads = 128, warps = 2x2, thread_tile = 4x8, vector_width = 8, stages = 3, instruction = mma_sync_f16, boundary = mask>
func.func @conv(%i: memref<?x?x?x?xf16>, %f: memref<?x?x?x?xf16>, %o: memref<?x?x?x?xf32>) {
  ukernel.dispatch conv2d_nhwc ins(%i, %f : memref<?x?x?x?xf16>, memref<?x?x?x?xf16>) outs(%o : memref<?x?x?x?xf32>)
    candidates [#sk2, #sk5, #sk1] {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>}
  return
}

// CHECK-LABEL: func.func @conv(
// CHECK:         scf.index_switch
// CHECK:         case 0 {
// CHECK:           func.call @quilt_gpu_workspace
// CHECK:           gpu.launch_func @quilt_nvidia_kernels::@[[CONVSK:quilt_mma_sync_f16_64x64x32_t128_w2x2_tt4x8_v8_f16_f32_sk_conv2d_nhwc_s2x2]] {{.*}} args({{.*}}, %c2{{.*}} : index, %{{.*}} : index, %{{.*}} : i32)
// CHECK:           gpu.launch_func @quilt_nvidia_kernels::@[[CONVRED:quilt_splitk_reduce_f32_f32_conv2d_nhwc_s2x2]]
// CHECK:         case 1 {
// CHECK:           gpu.launch_func @quilt_nvidia_kernels::@[[CONVSK]] {{.*}} args({{.*}}, %c5{{.*}} : index, %{{.*}} : index, %{{.*}} : i32)
// CHECK:           gpu.launch_func @quilt_nvidia_kernels::@[[CONVRED]]
// CHECK:         case 2 {
// CHECK-NOT:       quilt_gpu_workspace
// CHECK:           gpu.launch_func @quilt_nvidia_kernels::@quilt_mma_sync_f16_64x64x32_t128_w2x2_tt4x8_v8_f16_f32_conv2d_nhwc_s2x2 {{.*}}
// CHECK-NOT:       gpu.launch_func
// CHECK:         }
// CHECK:       gpu.func @[[CONVSK]](
// CHECK:       gpu.func @[[CONVRED]](%{{.*}}: memref<?x?x?x?xf32, {{.*}}>, %[[ORIGIN:.*]]: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: memref<?x?x?xf32, {{.*}}>, %{{.*}}: index, %{{.*}}: index, %{{.*}}: i32)
// CHECK:         arith.addi %[[ORIGIN]], %{{.*}} : index
// CHECK:         memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<?x?x?x?xf32
// CHECK-NOT:   gpu.func @quilt_mma_sync_f16_64x64x32_t128_w2x2_tt4x8_v8_f16_f32_sk_conv2d_nhwc_s2x2_s
