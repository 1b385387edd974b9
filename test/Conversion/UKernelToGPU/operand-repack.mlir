// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=a100 --convert-ukernel-to-gpu | FileCheck %s

// A and B whose rows do not start on 16-byte boundaries (an odd K or N in
// f16, a misaligned view) are copied on the device into rows padded to 16
// bytes, in the runtime's per-thread operand-copy buffer, before the
// selection; the kernels read the copies, whose vector flags then hold.
// Per operand: aligned = first element on 16 bytes and every outer stride a
// multiple of 8 elements; its copy's bytes (0 when aligned) = rows x pitch
// x 2 rounded up to 256, pitch = cols rounded up to 8. One buffer request
// for both, only when one of them needs a copy.
#c = #ukernel.config<tile = 64x64x32, threads = 128, warps = 2x2, thread_tile = 2x16, vector_width = 8, stages = 3, instruction = mma_sync_f16, boundary = mask>
func.func @mm(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>) candidates [#c]
  return
}

// CHECK:       func.func private @quilt_gpu_operand_copies(i64) -> memref<?xi8> attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @mm(
// CHECK-SAME:    %[[A:[^:]+]]: memref<?x?xf16>, %[[B:[^:]+]]: memref<?x?xf16>
// CHECK:         %[[AV:.*]] = memref.cast %[[A]] : memref<?x?xf16> to memref<?x?xf16, strided<[?, 1], offset: ?>>
// CHECK-NEXT:    %{{.*}}, %[[AOFF:.*]], %{{.*}}:2, %[[ASTRIDES:.*]]:2 = memref.extract_strided_metadata %[[AV]]
// CHECK:         %[[AADDR:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:         %[[AMIS:.*]] = arith.remui %[[AADDR]], %c16{{.*}} : index
// CHECK-NEXT:    %[[ASTART:.*]] = arith.cmpi eq, %[[AMIS]], %c0{{.*}} : index
// CHECK:         %[[APITCHMIS:.*]] = arith.remui %[[ASTRIDES]]#0, %c8{{.*}} : index
// CHECK-NEXT:    %[[APITCHOK:.*]] = arith.cmpi eq, %[[APITCHMIS]], %c0{{.*}} : index
// CHECK-NEXT:    %[[AALIGNED:.*]] = arith.andi %[[ASTART]], %[[APITCHOK]] : i1
// CHECK:         %[[AROWS:.*]] = memref.dim %[[AV]], %c0{{.*}}
// CHECK:         %[[ACOLS:.*]] = memref.dim %[[AV]], %c1{{.*}}
// CHECK:         %[[ACHUNKS:.*]] = arith.ceildivsi %[[ACOLS]], %c8{{.*}} : index
// CHECK-NEXT:    %[[APITCH:.*]] = arith.muli %[[ACHUNKS]], %c8{{.*}} : index
// CHECK:         %[[AELEMS:.*]] = arith.muli %{{.*}}, %[[APITCH]] : index
// CHECK-NEXT:    %[[ABYTES:.*]] = arith.muli %[[AELEMS]], %c2{{.*}} : index
// CHECK:         %[[ABLOCKS:.*]] = arith.ceildivsi %[[ABYTES]], %c256{{.*}} : index
// CHECK-NEXT:    %[[AROUNDED:.*]] = arith.muli %[[ABLOCKS]], %c256{{.*}} : index
// CHECK:         %[[ACOPY:.*]] = arith.select %[[AALIGNED]], %c0{{.*}}, %[[AROUNDED]] : index
// CHECK:         %[[BV:.*]] = memref.cast %[[B]] : memref<?x?xf16> to memref<?x?xf16, strided<[?, 1], offset: ?>>
// CHECK:         %[[BALIGNED:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK:         %[[BCOPY:.*]] = arith.select %[[BALIGNED]], %c0{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[TOTAL:.*]] = arith.addi %{{.*}}, %[[BCOPY]] : index
// CHECK:         %[[ANY:.*]] = arith.cmpi slt, %c0{{.*}}, %[[TOTAL]] : index
// CHECK-NEXT:    %[[OPS:.*]]:2 = scf.if %[[ANY]] -> (memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<?x?xf16, strided<[?, 1], offset: ?>>) {
// CHECK-NEXT:      %[[TOTAL64:.*]] = arith.index_cast %[[TOTAL]] : index to i64
// CHECK-NEXT:      %[[BUF:.*]] = func.call @quilt_gpu_operand_copies(%[[TOTAL64]]) : (i64) -> memref<?xi8>
// CHECK-NEXT:      %[[BUFADDR:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK:           %[[GOT:.*]] = arith.cmpi slt, %c0{{.*}}, %[[BUFADDR]] : index
// CHECK:           %[[AUNALIGNED:.*]] = arith.xori %[[AALIGNED]], %true
// CHECK-NEXT:      %[[ACOPIES:.*]] = arith.andi %[[GOT]], %[[AUNALIGNED]] : i1
// CHECK-NEXT:      %[[ANEW:.*]] = scf.if %[[ACOPIES]] -> (memref<?x?xf16, strided<[?, 1], offset: ?>>) {
// A's copy at offset 0 of the buffer, rows pitch apart.
// CHECK-NEXT:        %[[AN:.*]] = arith.muli %[[AROWS]], %[[APITCH]] : index
// CHECK-NEXT:        %[[AFLAT:.*]] = memref.view %[[BUF]][%c0{{.*}}][%[[AN]]] : memref<?xi8> to memref<?xf16>
// CHECK:             %[[ACOPYVIEW:.*]] = memref.reinterpret_cast %[[AFLAT]] to offset: [%c0{{.*}}], sizes: [%[[AROWS]], %[[ACOLS]]], strides: [%[[APITCH]], 1] : memref<?xf16> to memref<?x?xf16, strided<[?, 1], offset: ?>>
// CHECK-NEXT:        %[[AELEMENTS:.*]] = arith.muli %[[AROWS]], %[[ACOLS]] : index
// CHECK:             %[[NONEMPTY:.*]] = arith.cmpi slt, %c0{{.*}}, %[[AELEMENTS]] : index
// CHECK-NEXT:        scf.if %[[NONEMPTY]] {
// CHECK:               %[[GRIDX:.*]] = arith.ceildivsi %[[AELEMENTS]], %c256{{.*}} : index
// CHECK:               gpu.launch_func @quilt_nvidia_kernels::@quilt_repack_f16_2d blocks in (%[[GRIDX]], %c1{{.*}}, %c1{{.*}}) threads in (%c256{{.*}}, %c1{{.*}}, %c1{{.*}}) args(%[[AV]] : memref<?x?xf16, strided<[?, 1], offset: ?>>, %[[ACOPYVIEW]] : memref<?x?xf16, strided<[?, 1], offset: ?>>)
// CHECK:             scf.yield %[[ACOPYVIEW]]
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %[[AV]]
// CHECK-NEXT:      }
// B's copy after A's bytes.
// CHECK:           %[[BAT:.*]] = arith.addi %c0{{.*}}, %[[ACOPY]] : index
// CHECK:           %[[BNEW:.*]] = scf.if %{{.*}} -> (memref<?x?xf16, strided<[?, 1], offset: ?>>) {
// CHECK:             memref.view %[[BUF]][%[[BAT]]]
// CHECK:             gpu.launch_func @quilt_nvidia_kernels::@quilt_repack_f16_2d {{.*}} args(%[[BV]] : {{.*}}, %{{.*}} : {{.*}})
// CHECK:           } else {
// CHECK-NEXT:        scf.yield %[[BV]]
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[ANEW]], %[[BNEW]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[AV]], %[[BV]]
// CHECK-NEXT:    }
// The selection, then the kernel on windows of the operands (or copies),
// its vector flags computed from them.
// CHECK:         call @quilt_rt_select(
// CHECK:         memref.subview %[[OPS]]#0[
// CHECK:         memref.subview %[[OPS]]#1[
// CHECK:         gpu.launch_func @quilt_nvidia_kernels::@quilt_mma_sync_f16_64x64x32

// The copy kernel: one thread an element, (row, col) = divmod(element,
// cols) in 32 bits below 2^32 elements.
// CHECK:       gpu.func @quilt_repack_f16_2d(%[[SRC:.*]]: memref<?x?xf16, strided<[?, 1], offset: ?>>, %[[DST:.*]]: memref<?x?xf16, strided<[?, 1], offset: ?>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
// CHECK:         %[[ROWS:.*]] = memref.dim %[[SRC]], %c0
// CHECK:         %[[COLS:.*]] = memref.dim %[[SRC]], %c1
// CHECK:         %[[BLOCK:.*]] = gpu.block_id  x
// CHECK-NEXT:    %[[TID:.*]] = gpu.thread_id  x
// CHECK:         %[[FIRST:.*]] = arith.muli %[[BLOCK]], %c256{{.*}} : index
// CHECK-NEXT:    %[[ELEM:.*]] = arith.addi %[[FIRST]], %[[TID]] : index
// CHECK-NEXT:    %[[COUNT:.*]] = arith.muli %[[ROWS]], %[[COLS]] : index
// CHECK-NEXT:    %[[INSIDE:.*]] = arith.cmpi slt, %[[ELEM]], %[[COUNT]] : index
// CHECK-NEXT:    scf.if %[[INSIDE]] {
// CHECK:           %[[NARROW:.*]] = arith.cmpi slt, %{{.*}}, %c4294967296 : index
// CHECK-NEXT:      %[[RC:.*]]:2 = scf.if %[[NARROW]] -> (index, index) {
// CHECK-NEXT:        %[[E32:.*]] = arith.index_castui %[[ELEM]] : index to i32
// CHECK-NEXT:        %[[C32:.*]] = arith.index_castui %[[COLS]] : index to i32
// CHECK-NEXT:        %[[Q:.*]] = arith.divui %[[E32]], %[[C32]] : i32
// CHECK-NEXT:        %[[QI:.*]] = arith.index_castui %[[Q]] : i32 to index
// CHECK-NEXT:        %[[R:.*]] = arith.remui %[[E32]], %[[C32]] : i32
// CHECK-NEXT:        %[[RI:.*]] = arith.index_castui %[[R]] : i32 to index
// CHECK-NEXT:        scf.yield %[[QI]], %[[RI]] : index, index
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[QW:.*]] = arith.divui %[[ELEM]], %[[COLS]] : index
// CHECK-NEXT:        %[[RW:.*]] = arith.remui %[[ELEM]], %[[COLS]] : index
// CHECK-NEXT:        scf.yield %[[QW]], %[[RW]] : index, index
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[SRC]][%[[RC]]#0, %[[RC]]#1]
// CHECK-NEXT:      memref.store %[[V]], %[[DST]][%[[RC]]#0, %[[RC]]#1]

// -----

// A batch matmul's copies keep the batch: strides [rows x pitch, pitch, 1],
// and the copy kernel walks the matrices from block y in steps of the
// grid's y (at most 65535 blocks).
#c = #ukernel.config<tile = 64x64x32, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 8, stages = 2, instruction = mma_sync_f16, boundary = mask>
func.func @bmm(%a: memref<?x?x?xf16>, %b: memref<?x?x?xf16>, %c: memref<?x?x?xf32>) {
  ukernel.dispatch batch_matmul ins(%a, %b : memref<?x?x?xf16>, memref<?x?x?xf16>) outs(%c : memref<?x?x?xf32>) candidates [#c]
  return
}

// CHECK-LABEL: func.func @bmm(
// CHECK:         func.call @quilt_gpu_operand_copies(
// CHECK:           %[[PLANE:.*]] = arith.muli %[[ROWS:.*]], %[[PITCH:.*]] : index
// CHECK:           memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [%{{.*}}, %[[ROWS]], %{{.*}}], strides: [%[[PLANE]], %[[PITCH]], 1] : memref<?xf16> to memref<?x?x?xf16, strided<[?, ?, 1], offset: ?>>
// CHECK:             %[[GRIDY:.*]] = arith.minsi %{{.*}}, %c65535 : index
// CHECK:             gpu.launch_func @quilt_nvidia_kernels::@quilt_repack_f16_3d blocks in (%{{.*}}, %[[GRIDY]], %c1{{.*}})
// CHECK:       gpu.func @quilt_repack_f16_3d(
// CHECK:           %[[MATRICES:.*]] = memref.dim %{{.*}}, %c0
// CHECK-NEXT:      %[[Y:.*]] = gpu.block_id  y
// CHECK-NEXT:      %[[STEP:.*]] = gpu.grid_dim  y
// CHECK-NEXT:      scf.for %[[M:.*]] = %[[Y]] to %[[MATRICES]] step %[[STEP]] {
// CHECK-NEXT:        %[[V:.*]] = memref.load %{{.*}}[%[[M]], %{{.*}}, %{{.*}}]
// CHECK-NEXT:        memref.store %[[V]], %{{.*}}[%[[M]], %{{.*}}, %{{.*}}]

// -----

// Convolutions read their image through the implicit-GEMM maps: no copy.
// Nor when no candidate stages in vector runs (vector_width = 1).
#conv = #ukernel.config<tile = 64x64x32, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 8, stages = 2, instruction = mma_sync_f16, boundary = mask>
#scalar = #ukernel.config<tile = 32x32x8, threads = 64, warps = 1x2, thread_tile = 4x4, vector_width = 1, stages = 2, instruction = simt_fma, boundary = mask>
func.func @no_copies(%img: memref<?x?x?x?xf16>, %flt: memref<?x?x?x?xf16>, %out: memref<?x?x?x?xf32>,
                     %a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  ukernel.dispatch conv2d_nhwc ins(%img, %flt : memref<?x?x?x?xf16>, memref<?x?x?x?xf16>) outs(%out : memref<?x?x?x?xf32>) candidates [#conv]
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>) candidates [#scalar]
  return
}

// CHECK-LABEL: func.func @no_copies(
// CHECK-NOT:     quilt_gpu_operand_copies
// CHECK-NOT:     quilt_repack
// CHECK:         return
