// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=a100 --convert-ukernel-to-gpu | FileCheck %s

// A stream-K candidate (stream_k = 108) of a batch matmul with a bias and
// ReLU. On the host, per region: U = batch x tiles x max(1, ceil(K / 8))
// units, min(108, U) blocks in grid x, a workspace of two 64 x 64 f32
// slots per block and one arrival counter per tile, from the runtime; one
// launch where the runtime gave both.
#streamed = #ukernel.config<tile = 64x64x8, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask, stream_k = 108>
func.func @bmm(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>, %bias: memref<?xf32>) {
  ukernel.dispatch batch_matmul ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>) bias(%bias : memref<?xf32>) epilogue [bias_add, relu]
    candidates [#streamed]
  return
}

// CHECK:       func.func private @quilt_gpu_arrival_counters(i64) -> memref<?xi32> attributes {llvm.emit_c_interface}
// CHECK:       func.func private @quilt_gpu_workspace(i64) -> memref<?xi8> attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @bmm(
// CHECK:         %[[TILESM:.*]] = arith.ceildivsi %{{.*}}, %c64{{.*}} : index
// CHECK:         %[[TILESN:.*]] = arith.ceildivsi %{{.*}}, %c64{{.*}} : index
// CHECK-NEXT:    %[[PERTILE:.*]] = arith.muli %{{.*}}, %[[TILESM]] : index
// CHECK-NEXT:    %[[TILES:.*]] = arith.muli %[[PERTILE]], %[[TILESN]] : index
// CHECK:         %[[KTILES:.*]] = arith.ceildivsi %{{.*}}, %c8{{.*}} : index
// CHECK:         %[[KSTEPS:.*]] = arith.maxui %[[KTILES]], %c1{{.*}} : index
// CHECK-NEXT:    %[[UNITS:.*]] = arith.muli %[[TILES]], %[[KSTEPS]] : index
// CHECK-NEXT:    %[[G:.*]] = arith.constant 108 : index
// CHECK-NEXT:    %[[BLOCKS:.*]] = arith.minsi %[[G]], %[[UNITS]] : index
// CHECK:         %[[SLOTS:.*]] = arith.muli %[[BLOCKS]], %c2{{.*}} : index
// CHECK:         %[[BUFFER:.*]] = func.call @quilt_gpu_workspace(%{{.*}}) : (i64) -> memref<?xi8>
// CHECK:         %[[WS:.*]] = memref.view %[[BUFFER]][%{{.*}}][%[[SLOTS]], %c64{{.*}}, %c64{{.*}}] : memref<?xi8> to memref<?x?x?xf32>
// CHECK-NEXT:    %[[TILES64:.*]] = arith.index_cast %[[TILES]] : index to i64
// CHECK-NEXT:    %[[COUNTERS:.*]] = func.call @quilt_gpu_arrival_counters(%[[TILES64]]) : (i64) -> memref<?xi32>
// CHECK:         scf.if
// CHECK-NEXT:      %[[WSARG:.*]] = memref.cast %[[WS]]
// The vector flag for C is C's alignment: whole tiles are written there.
// CHECK-NEXT:      memref.extract_strided_metadata %[[CWINDOW:[^ ]*]] :
// CHECK:         gpu.launch_func @quilt_nvidia_kernels::@[[KERNEL:quilt_simt_fma_64x64x8_t64_w1x2_tt8x8_v4_f32_f32_biasf32_bias_add_relu_batch_streamk]] blocks in (%[[BLOCKS]], %c1{{.*}}, %c1{{.*}}) threads in (%c64{{.*}}) {{.*}} args({{.*}}, %[[CWINDOW]] : {{.*}}, %[[WSARG]] : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %[[COUNTERS]] : memref<?xi32>, %{{.*}} : i32)

// The kernel: block g takes units [g U / G, (g + 1) U / G) of the U =
// matrices x tiles x steps, in segments of one tile.
// CHECK:       gpu.func @[[KERNEL]](%{{.*}}: memref<?x?x?xf32, {{.*}}>, %{{.*}}: memref<?x?x?xf32, {{.*}}>, %[[C:.*]]: memref<?x?x?xf32, {{.*}}>, %[[KBIAS:.*]]: memref<?xf32, {{.*}}>, %[[KWS:.*]]: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %[[KCOUNTERS:.*]]: memref<?xi32>, %{{.*}}: i32) kernel
// CHECK:         %[[TID:.*]] = gpu.thread_id  x
// CHECK:         %[[KTILES_IN:.*]] = arith.ceildivsi %{{.*}}, %c8{{.*}} : index
// CHECK:         %[[STEPS:.*]] = arith.maxui %[[KTILES_IN]], %c1{{.*}} : index
// CHECK-NEXT:    %[[PART:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[U:.*]] = arith.muli %[[PART]], %[[STEPS]] : index
// CHECK-NEXT:    %[[GRID:.*]] = gpu.grid_dim  x
// CHECK-NEXT:    %[[BLOCK:.*]] = gpu.block_id  x
// CHECK-NEXT:    %[[GU:.*]] = arith.muli %[[BLOCK]], %[[U]] : index
// CHECK-NEXT:    %[[BEGIN:.*]] = arith.divui %[[GU]], %[[GRID]] : index
// CHECK:         %[[END:.*]] = arith.divui %{{.*}}, %[[GRID]] : index
// CHECK:         scf.while (%[[FROM:.*]] = %[[BEGIN]], %[[STEPBASE:.*]] = %{{.*}}) : (index, index) -> (index, index) {
// CHECK-NEXT:      %[[MORE:.*]] = arith.cmpi slt, %[[FROM]], %[[END]] : index
// CHECK-NEXT:      scf.condition(%[[MORE]])
// CHECK:         ^bb0(%[[UNIT:.*]]: index, %{{.*}}: index):
// CHECK-NEXT:      %[[TILE:.*]] = arith.divui %[[UNIT]], %[[STEPS]] : index
// CHECK-NEXT:      %[[TILEUNITS:.*]] = arith.muli %[[TILE]], %[[STEPS]] : index
// CHECK-NEXT:      %[[KFIRST:.*]] = arith.subi %[[UNIT]], %[[TILEUNITS]] : index
// CHECK-NEXT:      %[[LEFT:.*]] = arith.subi %[[END]], %[[UNIT]] : index
// CHECK-NEXT:      %[[REACH:.*]] = arith.addi %[[KFIRST]], %[[LEFT]] : index
// CHECK-NEXT:      %[[KLAST:.*]] = arith.minsi %[[STEPS]], %[[REACH]] : index
// CHECK-NEXT:      %[[MATRIX:.*]] = arith.divui %[[TILE]], %{{.*}} : index
// CHECK:           %[[CM:.*]] = memref.subview %[[C]][%[[MATRIX]], 0, 0]
// CHECK:           %[[KBEGIN:.*]] = arith.muli %[[KFIRST]], %c8{{.*}} : index
// CHECK:           %[[KEND:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK:           scf.for %{{.*}} = %[[KBEGIN]] to %[[KEND]] step %c8
// A tile covered whole: C = relu(C + acc + bias), no fixup.
// CHECK:           %[[ATEND:.*]] = arith.cmpi eq, %[[KLAST]], %[[STEPS]] : index
// CHECK:           %[[ATSTART:.*]] = arith.cmpi eq, %[[KFIRST]], %{{.*}} : index
// CHECK-NEXT:      %[[WHOLE:.*]] = arith.andi %[[ATSTART]], %[[ATEND]] : i1
// CHECK-NEXT:      scf.if %[[WHOLE]] {
// CHECK-NOT:         llvm.atomicrmw
// CHECK:             arith.maximumf
// Otherwise the partial sums go to the block's slot: 2g for the segment
// it starts with, 2g + 1 for the one it ends with.
// CHECK:           %[[FIRSTSEG:.*]] = arith.cmpi eq, %[[UNIT]], %[[BEGIN]] : index
// CHECK-NEXT:      %[[SLOTOF:.*]] = arith.select %[[FIRSTSEG]], %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      %{{.*}} = arith.constant 2 : index
// CHECK-NEXT:      %[[TWOG:.*]] = arith.muli %[[BLOCK]], %{{.*}} : index
// CHECK-NEXT:      %[[SLOT:.*]] = arith.addi %[[TWOG]], %[[SLOTOF]] : index
// CHECK:           %[[SLOTVIEW:.*]] = memref.subview %[[KWS]][%[[SLOT]], 0, 0]
// CHECK-NOT:       arith.maximumf
// CHECK:           vector.store %{{.*}}, %[[SLOTVIEW]]
// The fixup on the tile's counter (the tile's index): its contributors
// are the blocks of its first and last units and those between.
// CHECK:           %[[FIRSTBLOCK:.*]] = arith.divui %{{.*}}, %[[U]] : index
// CHECK:           %[[LASTBLOCK:.*]] = arith.divui %{{.*}}, %[[U]] : index
// CHECK:           %[[FIRSTBEGIN:.*]] = arith.divui %{{.*}}, %[[GRID]] : index
// CHECK-NEXT:      %[[BEFORE:.*]] = arith.cmpi slt, %[[FIRSTBEGIN]], %{{.*}} : index
// CHECK:           %[[SPAN:.*]] = arith.subi %[[LASTBLOCK]], %[[FIRSTBLOCK]] : index
// CHECK-NEXT:      %[[CONTRIBUTORS:.*]] = arith.addi %[[SPAN]], %{{.*}} : index
// CHECK:           gpu.barrier
// CHECK:             llvm.fence syncscope("device") release
// CHECK:             %[[BYTES:.*]] = arith.muli %[[TILE]], %c4{{.*}} : index
// CHECK:             %[[OLD:.*]] = llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK-NEXT:        %[[NEEDED:.*]] = arith.index_castui %[[CONTRIBUTORS]] : index to i32
// CHECK:             memref.store %{{.*}}, %[[KCOUNTERS]][%[[TILE]]] : memref<?xi32>
// The last block sums the contributors' slots in block order (the first
// one's in slot 1 when its range began in an earlier tile), then C =
// relu(C + sum + bias).
// CHECK:             %[[SUM:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[CONTRIBUTORS]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:          %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:          %[[ISFIRST:.*]] = arith.cmpi eq, %[[I]], %{{.*}} : index
// CHECK-NEXT:          %[[INSLOT1:.*]] = arith.andi %[[ISFIRST]], %[[BEFORE]] : i1
// CHECK:               %[[PARTSLOT:.*]] = arith.select %[[INSLOT1]], %{{.*}}, %{{.*}} : index
// CHECK-NEXT:          %[[CONTRIBUTOR:.*]] = arith.addi %[[FIRSTBLOCK]], %[[I]] : index
// CHECK:               %[[PART:.*]] = arith.addi %{{.*}}, %[[PARTSLOT]] : index
// CHECK:               %[[PARTIAL:.*]] = memref.load %[[KWS]][%[[PART]], %{{.*}}, %{{.*}}]
// CHECK-NEXT:          %[[NEXT:.*]] = arith.addf %[[ACC]], %[[PARTIAL]] : f32
// CHECK:             %[[OLDC:.*]] = memref.load %[[CM]]
// CHECK-NEXT:        %[[WITH:.*]] = arith.addf %[[OLDC]], %[[SUM]] : f32
// CHECK-NEXT:        %[[B:.*]] = memref.load %[[KBIAS]]
// CHECK-NEXT:        %[[BIASED:.*]] = arith.addf %[[WITH]], %[[B]] : f32
// CHECK:             arith.maximumf %[[BIASED]]
// The segment's end: a barrier, then the next unit after its steps.
// CHECK:         gpu.barrier
// CHECK-NEXT:    %[[RAN:.*]] = arith.subi %[[KLAST]], %[[KFIRST]] : index
// CHECK-NEXT:    %[[NEXTUNIT:.*]] = arith.addi %[[UNIT]], %[[RAN]] : index
// CHECK-NEXT:    %[[NEXTBASE:.*]] = arith.addi
// CHECK-NEXT:    scf.yield %[[NEXTUNIT]], %[[NEXTBASE]] : index, index
// CHECK:       gpu.return
