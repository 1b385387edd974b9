// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=a100 --convert-ukernel-to-gpu | FileCheck %s

// A split-K candidate (split_k = 4) of a batch matmul with a bias and ReLU.
// On the host, per region: the runtime's workspace for the calling thread
// (quilt_gpu_workspace, through MLIR's C interface) viewed as (batch x 4)
// f32 matrices of the region's rows x columns, each split ceil(ceil(K / 8)
// / 4) K tiles of 8, and its arrival counters, one per tile of each matrix
// (quilt_gpu_arrival_counters); where the runtime gave both, one launch of
// the split-K kernel over (tiles M, tiles N, batch x 4) blocks.
#sk = #ukernel.config<tile = 64x64x8, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask, split_k = 4>
func.func @bmm(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>, %bias: memref<?xf32>) {
  ukernel.dispatch batch_matmul ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>) bias(%bias : memref<?xf32>) epilogue [bias_add, relu]
    candidates [#sk]
  return
}

// CHECK:       func.func private @quilt_gpu_arrival_counters(i64) -> memref<?xi32> attributes {llvm.emit_c_interface}
// CHECK:       func.func private @quilt_gpu_workspace(i64) -> memref<?xi8> attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @bmm(
// Grid z holds (matrix, split) pairs: chunks of floor(65535 / 4) matrices.
// CHECK:         %[[CHUNK:.*]] = arith.constant 16383 : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[CHUNK]] {
// CHECK:           %[[BATCH:.*]] = arith.minsi %[[CHUNK]], %{{.*}} : index
// CHECK:         %[[TILESM:.*]] = arith.ceildivsi %[[ROWS:.*]], %c64{{.*}} : index
// CHECK:         %[[TILESN:.*]] = arith.ceildivsi %[[COLS:.*]], %c64{{.*}} : index
// CHECK-NEXT:    %[[PERTILE:.*]] = arith.muli %[[BATCH]], %[[TILESM]] : index
// CHECK-NEXT:    %[[TILES:.*]] = arith.muli %[[PERTILE]], %[[TILESN]] : index
// CHECK:         %[[KSTEPS:.*]] = arith.ceildivsi %{{.*}}, %[[TK:c8.*]] : index
// CHECK-NEXT:    %[[SPLITSTEPS:.*]] = arith.ceildivsi %[[KSTEPS]], %[[SPLITS:c4.*]] : index
// CHECK-NEXT:    %[[SPLITK:.*]] = arith.muli %[[SPLITSTEPS]], %[[TK]] : index
// CHECK-NEXT:    %[[MATRICES:.*]] = arith.muli %[[BATCH]], %[[SPLITS]] : index
// CHECK:         %[[BYTES:.*]] = arith.muli %{{.*}}, %c4{{.*}} : index
// CHECK-NEXT:    %[[BYTES64:.*]] = arith.index_cast %[[BYTES]] : index to i64
// CHECK-NEXT:    %[[BUFFER:.*]] = func.call @quilt_gpu_workspace(%[[BYTES64]]) : (i64) -> memref<?xi8>
// CHECK-NEXT:    %[[AT:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[WS:.*]] = memref.view %[[BUFFER]][%[[AT]]][%[[MATRICES]], %[[ROWS]], %[[COLS]]] : memref<?xi8> to memref<?x?x?xf32>
// CHECK-NEXT:    %[[TILES64:.*]] = arith.index_cast %[[TILES]] : index to i64
// CHECK-NEXT:    %[[COUNTERS:.*]] = func.call @quilt_gpu_arrival_counters(%[[TILES64]]) : (i64) -> memref<?xi32>
// CHECK-NEXT:    %[[WSADDRESS:.*]] = memref.extract_aligned_pointer_as_index %[[BUFFER]]
// CHECK-NEXT:    %[[NULL:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[HAVEWS:.*]] = arith.cmpi slt, %[[NULL]], %[[WSADDRESS]] : index
// CHECK-NEXT:    %[[CADDRESS:.*]] = memref.extract_aligned_pointer_as_index %[[COUNTERS]]
// CHECK-NEXT:    %[[NULL2:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[HAVEC:.*]] = arith.cmpi slt, %[[NULL2]], %[[CADDRESS]] : index
// CHECK-NEXT:    %[[HAVE:.*]] = arith.andi %[[HAVEWS]], %[[HAVEC]] : i1
// CHECK-NEXT:    scf.if %[[HAVE]] {
// CHECK-NEXT:      %[[WSARG:.*]] = memref.cast %[[WS]] : memref<?x?x?xf32> to memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
// The vector flag for C is the workspace's alignment.
// CHECK:         memref.extract_strided_metadata %[[WSARG]]
// CHECK:         gpu.launch_func @quilt_nvidia_kernels::@[[SPLIT:quilt_simt_fma_64x64x8_t64_w1x2_tt8x8_v4_f32_f32_biasf32_bias_add_relu_batch_sk]] blocks in (%[[TILESM]], %[[TILESN]], %[[MATRICES]]) threads in (%c64{{.*}}) {{.*}} args({{.*}}, %[[WSARG]] : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %[[COUNTERS]] : memref<?xi32>, %[[SPLITS]] : index, %[[SPLITK]] : index, %{{.*}} : i32)
// CHECK-NOT:     gpu.launch_func
// CHECK:       }

// The split-K kernel: block z is (matrix, split), divided in 32 bits; the
// K loop runs over the split's range; the tile's partial sums go to
// workspace matrix z, C is neither read nor written, no epilogue.
// CHECK:       gpu.func @[[SPLIT]](%{{.*}}: memref<?x?x?xf32, {{.*}}>, %{{.*}}: memref<?x?x?xf32, {{.*}}>, %[[C:.*]]: memref<?x?x?xf32, {{.*}}>, %[[KBIAS:.*]]: memref<?xf32, {{.*}}>, %[[KWS:.*]]: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %[[KCOUNTERS:.*]]: memref<?xi32>, %[[KSPLITS:.*]]: index, %[[KSPLITK:.*]]: index, %{{.*}}: i32) kernel
// CHECK:         %[[TID:.*]] = gpu.thread_id  x
// CHECK:         %[[Z:.*]] = gpu.block_id  z
// CHECK-NEXT:    %[[Z32:.*]] = arith.index_castui %[[Z]] : index to i32
// CHECK-NEXT:    %[[S32:.*]] = arith.index_castui %[[KSPLITS]] : index to i32
// CHECK-NEXT:    %[[SPLIT32:.*]] = arith.remui %[[Z32]], %[[S32]] : i32
// CHECK-NEXT:    %[[SPLITIDX:.*]] = arith.index_castui %[[SPLIT32]] : i32 to index
// CHECK-NEXT:    %[[MATRIX32:.*]] = arith.divui %[[Z32]], %[[S32]] : i32
// CHECK-NEXT:    %[[MATRIX:.*]] = arith.index_castui %[[MATRIX32]] : i32 to index
// CHECK:         %[[PARTIAL:.*]] = memref.subview %[[KWS]][%[[Z]], 0, 0]
// CHECK:         memref.subview %{{.*}}[%[[MATRIX]], 0, 0]
// CHECK:         %[[CM:.*]] = memref.subview %[[C]][%[[MATRIX]], 0, 0]
// CHECK:         %[[KBEGIN:.*]] = arith.muli %[[SPLITIDX]], %[[KSPLITK]] : index
// CHECK-NEXT:    %[[KLIMIT:.*]] = arith.addi %[[KBEGIN]], %[[KSPLITK]] : index
// CHECK-NEXT:    %[[KEND:.*]] = arith.minsi %{{.*}}, %[[KLIMIT]] : index
// CHECK:         scf.for %{{.*}} = %[[KBEGIN]] to %[[KEND]] step %c8
// CHECK-NOT:     memref.load %[[CM]]
// CHECK-NOT:     arith.maximumf
// CHECK:         vector.store %{{.*}}, %[[PARTIAL]]
// CHECK-NOT:     arith.maximumf
// CHECK:         memref.store %{{.*}}, %[[PARTIAL]]
// CHECK-NOT:     arith.maximumf
// The fixup: a word of workgroup memory past the kernel's 8192 bytes; the
// tile's counter (tiles in grid order, matrix after matrix); a barrier,
// then thread 0's release fence, relaxed device-scope arrival on the
// counter's global address, and (last) acquire fence and reset.
// CHECK:         %[[GX:.*]] = gpu.grid_dim  x
// CHECK-NEXT:    %[[GY:.*]] = gpu.grid_dim  y
// CHECK-NEXT:    %[[BX:.*]] = gpu.block_id  x
// CHECK-NEXT:    %[[BY:.*]] = gpu.block_id  y
// CHECK-NEXT:    %[[T0:.*]] = arith.muli %[[MATRIX]], %[[GX]] : index
// CHECK-NEXT:    %[[T1:.*]] = arith.addi %[[T0]], %[[BX]] : index
// CHECK-NEXT:    %[[T2:.*]] = arith.muli %[[T1]], %[[GY]] : index
// CHECK-NEXT:    %[[TILE:.*]] = arith.addi %[[T2]], %[[BY]] : index
// CHECK-NEXT:    %[[FIRST:.*]] = arith.muli %[[MATRIX]], %[[KSPLITS]] : index
// CHECK:         %[[FLAG:.*]] = memref.view %{{.*}}[%c8192{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    gpu.barrier
// CHECK:         scf.if
// CHECK-NEXT:      llvm.fence syncscope("device") release
// CHECK-NEXT:      %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[KCOUNTERS]] : memref<?xi32> -> index
// CHECK-NEXT:      %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[BYTES:.*]] = arith.muli %[[TILE]], %[[FOUR]] : index
// CHECK-NEXT:      %[[ADDRESS:.*]] = arith.addi %[[BASE]], %[[BYTES]] : index
// CHECK-NEXT:      %[[ADDRESS64:.*]] = arith.index_castui %[[ADDRESS]] : index to i64
// CHECK-NEXT:      %[[PTR:.*]] = llvm.inttoptr %[[ADDRESS64]] : i64 to !llvm.ptr<1>
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[OLD:.*]] = llvm.atomicrmw add %[[PTR]], %[[ONE]] syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK-NEXT:      %[[SPLITS32:.*]] = arith.index_castui %[[KSPLITS]] : index to i32
// CHECK-NEXT:      %[[ARRIVED:.*]] = arith.addi %[[OLD]], %[[ONE]] : i32
// CHECK-NEXT:      %[[LAST:.*]] = arith.cmpi eq, %[[ARRIVED]], %[[SPLITS32]] : i32
// CHECK-NEXT:      scf.if %[[LAST]] {
// CHECK-NEXT:        llvm.fence syncscope("device") acquire
// CHECK-NEXT:        %[[ZERO32:.*]] = arith.constant 0 : i32
// CHECK-NEXT:        memref.store %[[ZERO32]], %[[KCOUNTERS]][%[[TILE]]] : memref<?xi32>
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[PUBLISHED:.*]] = arith.extui %[[LAST]] : i1 to i32
// CHECK-NEXT:      %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:      memref.store %[[PUBLISHED]], %[[FLAG]]
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK:         %[[READ:.*]] = memref.load %[[FLAG]]
// CHECK:         %[[ISLAST:.*]] = arith.cmpi ne, %[[READ]], %{{.*}} : i32
// The last block: the tile's elements a thread each in turn, the splits of
// its matrix summed in order from 0, then C = relu(C + sum + bias).
// CHECK-NEXT:    scf.if %[[ISLAST]] {
// CHECK-NEXT:      %[[ELEMENTS:.*]] = arith.constant 4096 : index
// CHECK-NEXT:      %[[STEP:.*]] = arith.constant 64 : index
// CHECK-NEXT:      scf.for %{{.*}} = %[[TID]] to %[[ELEMENTS]] step %[[STEP]] {
// CHECK:             %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:             %[[SUM:.*]] = scf.for %[[S:.*]] = %{{.*}} to %[[KSPLITS]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT:          %[[AT:.*]] = arith.addi %[[FIRST]], %[[S]] : index
// CHECK-NEXT:          %[[PART:.*]] = memref.load %[[KWS]][%[[AT]], %{{.*}}, %{{.*}}]
// CHECK-NEXT:          %[[NEXT:.*]] = arith.addf %[[ACC]], %[[PART]] : f32
// CHECK-NEXT:          scf.yield %[[NEXT]] : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[OLDC:.*]] = memref.load %[[CM]]
// CHECK-NEXT:        %[[WITH:.*]] = arith.addf %[[OLDC]], %[[SUM]] : f32
// CHECK-NEXT:        %[[B:.*]] = memref.load %[[KBIAS]]
// CHECK-NEXT:        %[[BIASED:.*]] = arith.addf %[[WITH]], %[[B]] : f32
// CHECK:             %[[RELU:.*]] = arith.maximumf %[[BIASED]]
// CHECK-NEXT:        memref.store %[[RELU]], %[[CM]]
// CHECK:         gpu.return

// -----

// Candidates that differ only in the split count share the split-K kernel
// (the count is a launch operand); one split is the plain kernel. A
// convolution's fixup writes the output pixel of each GEMM row, from the
// region's first row like the kernel.
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
// CHECK:           func.call @quilt_gpu_arrival_counters
// CHECK:           gpu.launch_func @quilt_nvidia_kernels::@[[CONVSK:quilt_mma_sync_f16_64x64x32_t128_w2x2_tt4x8_v8_f16_f32_sk_conv2d_nhwc_s2x2]] {{.*}} args({{.*}}, %{{.*}} : memref<?xi32>, %c2{{.*}} : index, %{{.*}} : index, %{{.*}} : i32)
// CHECK-NOT:       gpu.launch_func
// CHECK:         case 1 {
// CHECK:           gpu.launch_func @quilt_nvidia_kernels::@[[CONVSK]] {{.*}} args({{.*}}, %c5{{.*}} : index, %{{.*}} : index, %{{.*}} : i32)
// CHECK-NOT:       gpu.launch_func
// CHECK:         case 2 {
// CHECK-NOT:       quilt_gpu_workspace
// CHECK-NOT:       quilt_gpu_arrival_counters
// CHECK:           gpu.launch_func @quilt_nvidia_kernels::@quilt_mma_sync_f16_64x64x32_t128_w2x2_tt4x8_v8_f16_f32_conv2d_nhwc_s2x2 {{.*}}
// CHECK-NOT:       gpu.launch_func
// CHECK:         }
// CHECK:       gpu.func @[[CONVSK]](%{{.*}}: memref<?x?x?x?xf16, {{.*}}>, %{{.*}}: memref<?x?xf16, {{.*}}>, %[[OUT:.*]]: memref<?x?x?x?xf32, {{.*}}>, %[[ORIGIN:.*]]: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: memref<?x?x?xf32, {{.*}}>, %{{.*}}: memref<?xi32>, %{{.*}}: index, %{{.*}}: index, %{{.*}}: i32)
// CHECK:         llvm.atomicrmw add
// CHECK:         scf.for
// CHECK:           arith.addi %[[ORIGIN]], %{{.*}} : index
// CHECK:           memref.store %{{.*}}, %[[OUT]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<?x?x?x?xf32
// CHECK:         gpu.return
// CHECK-NOT:   gpu.func @quilt_mma_sync_f16_64x64x32_t128_w2x2_tt4x8_v8_f16_f32_sk_conv2d_nhwc_s2x2_s
