// RUN: quilt-opt %s -split-input-file --convert-ukernel-to-host | FileCheck %s

// A fixed 8-lane target, so that the output does not depend on the machine.
#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#big = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>
#small = #ukernel.config<tile = 6x24x16, threads = 1, warps = 1x1, thread_tile = 3x8, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

// The selection: the spec as a constant string, a cache slot, the runtime
// call and its four results; then one switch per region (main, remainder)
// with one call per candidate.
// CHECK-DAG: llvm.mlir.global internal @__quilt_select_cache() {{.*}} : !llvm.ptr
// CHECK-DAG: llvm.mlir.global internal constant @__quilt_select_spec("# quilt selection spec 1\0Aelem f32\0Apolicy patch\0Acandidate 12x32x8 t1 w1x1 tt4x16 v8 s1 cpu_fma\0Acandidate 6x24x16 t1 w1x1 tt3x8 v8 s1 cpu_fma\0A[cpu8]
// CHECK-DAG: func.func private @quilt_rt_select(!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, !llvm.ptr) -> i32
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32>, %[[B:.*]]: memref<?x?xf32>, %[[C:.*]]: memref<?x?xf32>)
// CHECK: %[[OUT:.*]] = llvm.alloca %{{.*}} x i64
// CHECK-DAG: %[[M:.*]] = memref.dim %[[C]], %c0
// CHECK-DAG: %[[N:.*]] = memref.dim %[[C]], %c1
// CHECK-DAG: %[[K:.*]] = memref.dim %[[A]], %c1
// CHECK: %[[SPEC:.*]] = llvm.mlir.addressof @__quilt_select_spec
// CHECK: %[[CACHE:.*]] = llvm.mlir.addressof @__quilt_select_cache
// CHECK: call @quilt_rt_select(%[[SPEC]], %[[CACHE]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[OUT]])
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[OUT]][0]
// CHECK: %[[KERNEL64:.*]] = llvm.load %[[P0]]
// CHECK: %[[KERNEL:.*]] = arith.index_cast %[[KERNEL64]] : i64 to index
// CHECK: llvm.getelementptr %[[OUT]][1]
// CHECK: %[[P2:.*]] = llvm.getelementptr %[[OUT]][2]
// CHECK: %[[SM64:.*]] = llvm.load %[[P2]]
// CHECK: %[[SM:.*]] = arith.index_cast %[[SM64]] : i64 to index
// CHECK: %[[P3:.*]] = llvm.getelementptr %[[OUT]][3]
// CHECK: %[[SN64:.*]] = llvm.load %[[P3]]
// CHECK: %[[SN:.*]] = arith.index_cast %[[SN64]] : i64 to index
// Operands are passed whole, as the kernels' strided types, with the region
// as indices.
// CHECK: %[[CA:.*]] = memref.cast %[[A]] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK: %[[CB:.*]] = memref.cast %[[B]]
// CHECK: %[[CC:.*]] = memref.cast %[[C]]
// CHECK: scf.if
// CHECK: scf.index_switch %[[KERNEL]]
// CHECK-NEXT: case 0 {
// CHECK-NEXT: func.call @[[BIG:__quilt_host_gemm_12x32x8_r4x16_v8_f32_f32]](%[[CA]], %[[CB]], %[[CC]], %[[ZERO:.*]], %[[ZERO]], %[[SM]], %[[SN]])
// CHECK: case 1 {
// CHECK-NEXT: func.call @[[SMALL:__quilt_host_gemm_6x24x16_r3x8_v8_f32_f32]](
// CHECK: default {
// The remainder region.
// CHECK: scf.if
// CHECK: scf.index_switch
// CHECK: func.call @[[BIG]](
// CHECK: func.call @[[SMALL]](
// CHECK: return

// The kernel: the region's views, packing buffers, BLIS loops, the
// register-blocked micro-kernel (mr x nr/lanes = 4 x 2 accumulators carried
// through the K loop).
// CHECK-LABEL: func.func private @__quilt_host_gemm_12x32x8_r4x16_v8_f32_f32
// CHECK-SAME: (%[[KA:.*]]: memref<?x?xf32, strided<[?, 1], offset: ?>>, %[[KB:.*]]: memref<?x?xf32, strided<[?, 1], offset: ?>>, %[[KC:.*]]: memref<?x?xf32, strided<[?, 1], offset: ?>>, %[[R0:.*]]: index, %[[C0:.*]]: index, %[[ROWS:.*]]: index, %[[COLS:.*]]: index)
// CHECK-SAME: llvm.linkage = #llvm.linkage<internal>
// CHECK: %[[BV:.*]] = memref.subview %[[KB]][%{{.*}}, %[[C0]]] [%{{.*}}, %[[COLS]]]
// CHECK: %[[AV:.*]] = memref.subview %[[KA]][%[[R0]], %{{.*}}] [%[[ROWS]], %{{.*}}]
// CHECK: %[[CV:.*]] = memref.subview %[[KC]][%[[R0]], %[[C0]]] [%[[ROWS]], %[[COLS]]]
// A region small enough not to need cache blocking (rows <= 12, cols <= 32,
// and A and B no larger than the 12x8 A block and 8x32 B panel together:
// rows*K + K*cols <= 352, K > 0) is multiplied where it is stored, without
// packing: each k step loads B's row and broadcasts scalars of A's rows.
// A whole panel (cols = 16) loads B with plain vector loads; a partial one
// with one micro-kernel per count of vectors, the last vector masked (lanes
// past the columns read as zeros).
// CHECK: %[[MK:.*]] = arith.muli %[[ROWS]], %[[KDIM:.*]] : index
// CHECK: %[[KN:.*]] = arith.muli %[[KDIM]], %[[COLS]]
// CHECK: %[[FOOT:.*]] = arith.addi %[[MK]], %[[KN]]
// CHECK: %[[NONEMPTY:.*]] = arith.cmpi slt, %{{.*}}, %[[KDIM]] : index
// CHECK: %[[FITM:.*]] = arith.cmpi sle, %[[ROWS]], %c12
// CHECK: %[[FITN:.*]] = arith.cmpi sle, %[[COLS]], %c32
// CHECK: %[[FITK:.*]] = arith.cmpi sle, %[[FOOT]], %c352
// CHECK: %[[F1:.*]] = arith.andi %[[FITM]], %[[FITN]]
// CHECK: %[[F2:.*]] = arith.andi %[[F1]], %[[FITK]]
// CHECK: %[[FITS:.*]] = arith.andi %[[F2]], %[[NONEMPTY]]
// Else a skinny region (at most 16 rows, K > 0) is read in place too.
// CHECK: %[[FEW:.*]] = arith.cmpi sle, %[[ROWS]], %c16
// CHECK: %[[SKINNY:.*]] = arith.andi %[[FEW]], %[[NONEMPTY]]
// CHECK: scf.if %[[FITS]] {
// CHECK-NOT: memref.alloc
// CHECK: vector.create_mask
// CHECK: %[[WHOLE:.*]] = arith.cmpi eq, %{{.*}}, %c16
// CHECK: scf.if %[[WHOLE]]
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK-NEXT: vector.load %[[BV]]
// CHECK-NEXT: vector.load %[[BV]]
// CHECK-NEXT: memref.load %[[AV]]
// CHECK: } else {
// CHECK: scf.index_switch
// CHECK: scf.for %[[IK:.*]] = %{{.*}} to %[[KDIM]] step %{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK-NEXT: vector.maskedload %[[BV]][%[[IK]], %{{.*}}], %{{.*}}, %{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK-NEXT: memref.load %[[AV]][%{{.*}}, %[[IK]]]
// CHECK-NEXT: vector.broadcast
// CHECK-NEXT: vector.fma
// CHECK: default {
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK-NEXT: vector.load %[[BV]]
// CHECK-NEXT: vector.maskedload %[[BV]]
// CHECK: vector.maskedstore %[[CV]]
// CHECK: } else {
// The skinny product: B's rows in K blocks of 8, each block's rows of A and
// B as windows of the region's views, no packing buffers.
// CHECK: scf.if %[[SKINNY]] {
// CHECK-NOT: memref.alloc
// CHECK: scf.for %[[PC:.*]] = %{{.*}} to %[[KDIM]] step %c8 {
// CHECK: memref.subview %[[AV]][%{{.*}}, %[[PC]]]
// CHECK: %[[BROWS:.*]] = memref.subview %[[BV]][%[[PC]], %{{.*}}]
// CHECK: vector.load %[[BROWS]]
// CHECK: } else {
// The N block holds 32 / 16 = 2 register-block columns, too few to pay for
// packing A: only B is packed, and the micro-kernel reads A's rows where
// they are stored, at the K block's column pc + k.
// CHECK-NOT: memref<96xf32>
// CHECK: %[[PB:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
// B panels: whole ones with vector loads, the last one with masked loads.
// CHECK: scf.for %[[PC:.*]] = %{{.*}} to %[[KDIM]] step %c8 {
// CHECK: vector.load %[[BV]]
// CHECK: vector.store %{{.*}}, %[[PB]]
// CHECK: vector.maskedload %[[BV]]
// CHECK: vector.store %{{.*}}, %[[PB]]
// CHECK-NOT: vector.transpose
// The register-block columns (jr) and rows of the block.
// CHECK: scf.for %[[JR:.*]] = %{{.*}} to %{{.*}} step %c16
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4
// The C tile is prefetched (4 rows x 1 line) before the K loop when the
// block of C is too large to stay in L2.
// CHECK-COUNT-4: memref.prefetch %[[CV]][%{{.*}}, %{{.*}}], write, locality<3>, data
// CHECK: scf.for %[[K:.*]] = %{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK-COUNT-2: vector.load %[[PB]]
// CHECK-NEXT: %[[AK:.*]] = arith.addi %[[PC]], %[[K]] : index
// CHECK-NEXT: memref.load %[[AV]][%{{.*}}, %[[AK]]]
// CHECK-NEXT: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-NEXT: vector.fma
// CHECK-NEXT: vector.fma
// CHECK-COUNT-6: vector.fma
// CHECK: scf.yield
// Full tiles update C with plain vectors, edge tiles with masks.
// CHECK: vector.load %[[CV]]
// CHECK: vector.store %{{.*}}, %[[CV]]
// CHECK: vector.create_mask
// CHECK: vector.maskedload %[[CV]]
// CHECK: vector.maskedstore %[[CV]]
// After the update, the rows of A three register blocks ahead (row + 3 x
// 4) are prefetched where the K block's rows are runs apart (its size below A's row pitch),
// in the N block's first register-block column (jr = 0), by a call to a
// function of their own (below).
// CHECK: %[[AHEAD:.*]] = arith.addi %{{.*}}, %c12{{.*}} : index
// CHECK: %[[FIRSTCOL:.*]] = arith.cmpi eq, %[[JR]], %c0{{.*}} : index
// CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}}:2, %[[ASTRIDES:.*]]:2 = memref.extract_strided_metadata %[[AV]]
// CHECK-NEXT: %[[RUNS:.*]] = arith.cmpi slt, %[[KB:.*]], %[[ASTRIDES]]#0 : index
// CHECK-NEXT: %[[PREFETCH_ROWS:.*]] = arith.andi %[[RUNS]], %[[FIRSTCOL]] : i1
// CHECK-NEXT: scf.if %[[PREFETCH_ROWS]] {
// CHECK-NEXT: %[[ANYA:.*]] = memref.cast %[[AV]] : {{.*}} to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT: func.call @[[PREFETCH:__quilt_host_prefetch_a_rows_r4]](%[[ANYA]], %[[AHEAD]], %[[PC]], %[[KB]])
// CHECK-NEXT: }
// CHECK-NOT: memref.dealloc
// CHECK: memref.dealloc %[[PB]]
// CHECK-NOT: memref.dealloc
// The prefetcher, never inlined: the 4 rows from `row` (clamped to A's
// last), a line (16 f32) at a time from k0 to k0 + kb, and the last column
// for rows that start mid-line.
// CHECK: func.func private @[[PREFETCH]](%[[PA:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[PROW:.*]]: index, %[[PK0:.*]]: index, %[[PKB:.*]]: index)
// CHECK-SAME: passthrough = ["noinline"]
// CHECK: %[[PDIM:.*]] = memref.dim %[[PA]], %c0
// CHECK-NEXT: %[[PLAST:.*]] = arith.subi %[[PDIM]], %c1
// CHECK: %[[PR0:.*]] = arith.addi %[[PROW]], %c0{{.*}} : index
// CHECK-NEXT: arith.minsi %[[PR0]], %[[PLAST]] : index
// CHECK-COUNT-3: arith.minsi %{{.*}}, %[[PLAST]] : index
// CHECK: %[[PEND:.*]] = arith.addi %[[PK0]], %[[PKB]] : index
// CHECK: scf.for %[[PCOL:.*]] = %[[PK0]] to %[[PEND]] step %c16
// CHECK-COUNT-4: memref.prefetch %[[PA]][%{{.*}}, %[[PCOL]]], read, locality<3>, data
// CHECK-NEXT: }
// CHECK: %[[PLASTCOL:.*]] = arith.subi %[[PEND]], %c1
// CHECK-COUNT-4: memref.prefetch %[[PA]][%{{.*}}, %[[PLASTCOL]]], read, locality<3>, data
// CHECK-NEXT: return

// CHECK-LABEL: func.func private @__quilt_host_gemm_6x24x16_r3x8_v8_f32_f32
// CHECK-COUNT-3: vector.fma
module attributes {ukernel.target = #cpu8} {
  func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
    ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
      candidates [#big, #small] policy patch
    return
  }
}

// -----

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#wide = #ukernel.config<tile = 12x160x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

// Transposed operands are passed as stored, to a kernel specialized on the
// transposes; K comes from the lhs's first dimension. Two dispatches with the
// same candidate and types share one kernel function; the target attribute
// is dropped with the last ukernel op.
// CHECK-NOT: ukernel.target
// CHECK-LABEL: func.func @transposed
// CHECK-SAME: (%[[AT:.*]]: memref<?x?xf32>, %[[BT:.*]]: memref<?x?xf32>, %[[C:.*]]: memref<?x?xf32>)
// CHECK: memref.dim %[[AT]], %c0
// CHECK: call @quilt_rt_select
// CHECK-NOT: memref.transpose
// CHECK: func.call @[[TKERNEL:__quilt_host_gemm_12x160x8_r4x16_v8_f32_f32_ta_tb]](
// CHECK: call @quilt_rt_select
// CHECK: func.call @[[KERNEL:__quilt_host_gemm_12x160x8_r4x16_v8_f32_f32]](
// CHECK: func.call @[[KERNEL]](
// CHECK: func.func private @[[TKERNEL]](%[[TA:.*]]: memref<?x?xf32, strided<[?, 1], offset: ?>>, %[[TB:.*]]: memref<?x?xf32, strided<[?, 1], offset: ?>>, %{{.*}}: memref<?x?xf32, strided<[?, 1], offset: ?>>, %[[TR0:.*]]: index, %[[TC0:.*]]: index, %[[TROWS:.*]]: index, %[[TCOLS:.*]]: index)
// The region is a window of B's rows and of A's columns. B's rows are not
// contiguous along N: it is always packed, never read in place. The N block
// holds 160 / 16 = 10 register-block columns, enough to pack A too.
// CHECK: memref.subview %[[TB]][%[[TC0]], %{{.*}}] [%[[TCOLS]], %{{.*}}]
// CHECK: memref.subview %[[TA]][%{{.*}}, %[[TR0]]] [%{{.*}}, %[[TROWS]]]
// CHECK-NEXT: memref.subview
// CHECK-NEXT: memref.alloc() {alignment = 64 : i64} : memref<96xf32>
// Packing A (stored KxM) copies contiguous runs of mr elements; packing B
// (stored NxK) transposes 8 k steps x 16 columns in registers.
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<16x8xf32> to vector<8x16xf32>
// CHECK: vector.load %{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<4xf32>
// A packed A is not prefetched: packing reads it a row at a time.
// CHECK-NOT: read, locality
// CHECK: func.func private @[[KERNEL]](
// CHECK-NOT: read, locality
// CHECK-NOT: func.func private @__quilt_host_gemm
module attributes {ukernel.target = #cpu8} {
  func.func @transposed(%at: memref<?x?xf32>, %bt: memref<?x?xf32>, %c: memref<?x?xf32>) {
    ukernel.dispatch matmul transpose_lhs transpose_rhs ins(%at, %bt : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
      candidates [#wide]
    ukernel.dispatch matmul ins(%at, %bt : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
      candidates [#wide]
    return
  }
}

// -----

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#big = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

// A batch: one selection and one kernel call per region for the whole
// batch; the kernel loops over the batch on rank-reduced views, with one
// set of packing buffers. An f16 accumulator is staged in f32; the bias is
// copied into a zero-padded f32 buffer; GELU's erf becomes a polynomial,
// applied only after the last K block.
// CHECK-LABEL: func.func @batch
// CHECK-SAME: (%[[A:.*]]: memref<?x?x?xf16>, %[[B:.*]]: memref<?x?x?xf16>, %[[C:.*]]: memref<?x?x?xf16>, %[[BIAS:.*]]: memref<?xf16>)
// CHECK: memref.dim %[[C]], %c0
// CHECK: call @quilt_rt_select(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT: scf.for
// CHECK: func.call @__quilt_host_gemm_12x32x8_r4x16_v8_f16_f16_bias_f16_bias_add_gelu_batch(
// CHECK-LABEL: func.func private @__quilt_host_gemm_12x32x8_r4x16_v8_f16_f16_bias_f16_bias_add_gelu_batch
// CHECK-SAME: memref<?x?x?xf16, strided<[?, ?, 1], offset: ?>>
// CHECK-SAME: memref<?xf16, strided<[?], offset: ?>>
// CHECK-NOT: math.erf
// CHECK: %[[BATCH:.*]] = memref.dim %{{.*}}, %c0
// CHECK: memref.alloc(%{{.*}}, %{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x?x?xf32>
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xf32>
// f16 operands are always packed (widened once): no size test for reading
// them in place.
// CHECK-NOT: arith.cmpi sle
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<96xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[BATCH]]
// CHECK: memref.subview %{{.*}}[%[[I]], 0, 0] [1, %{{.*}}, %{{.*}}] [1, 1, 1] : memref<?x?x?xf16, strided<[?, ?, 1], offset: ?>> to memref<?x?xf16, strided<[?, 1], offset: ?>>
// CHECK: scf.if
// CHECK: arith.addf
// CHECK: math.fma
// CHECK: } else {
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NOT: math.erf
module attributes {ukernel.target = #cpu8} {
  func.func @batch(%a: memref<?x?x?xf16>, %b: memref<?x?x?xf16>, %c: memref<?x?x?xf16>, %bias: memref<?xf16>) {
    ukernel.dispatch batch_matmul ins(%a, %b : memref<?x?x?xf16>, memref<?x?x?xf16>) outs(%c : memref<?x?x?xf16>)
      bias(%bias : memref<?xf16>) epilogue [bias_add, gelu]
      candidates [#big] policy fixed = 0
    return
  }
}

// -----

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#big = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

// A ukernel.select written by hand lowers to the same runtime call; its
// result slot is allocated at the function entry, not in the loop. A C
// whose rows are not contiguous gets a kernel that works on an f32 copy.
// CHECK-LABEL: func.func @select_in_loop
// CHECK-NEXT: llvm.mlir.constant(4 : i64)
// CHECK-NEXT: %[[OUT:.*]] = llvm.alloca
// CHECK: scf.for
// CHECK: call @quilt_rt_select({{.*}}, %[[OUT]])
// CHECK: func.call @__quilt_host_gemm_12x32x8_r4x16_v8_f32_f32_stridedC(
// CHECK: func.func private @__quilt_host_gemm_12x32x8_r4x16_v8_f32_f32_stridedC(%{{.*}}: memref<?x?xf32, strided<[?, 1], offset: ?>>, %{{.*}}: memref<?x?xf32, strided<[?, 1], offset: ?>>, %{{.*}}: memref<?x?xf32, strided<[?, ?], offset: ?>>, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index)
module attributes {ukernel.target = #cpu8} {
  func.func @select_in_loop(%n: index, %a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32, strided<[1, ?]>>) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> index {
      %kernel, %rem, %sm, %sn = ukernel.select %c1, %i, %i, %i for f32 candidates [#big]
      %s = arith.addi %acc, %kernel : index
      scf.yield %s : index
    }
    ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32, strided<[1, ?]>>)
      candidates [#big]
    return %sum : index
  }
}

// -----

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#big = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

// An NHWC convolution as an implicit GEMM: the selection sees M = N*OH*OW
// (from the output), N = F and K = R*S*C (from the filter); the kernel is
// specialized on the strides and dilations and takes the operands whole
// (after the operand checks, operand-checks.mlir).
// CHECK-LABEL: func.func @conv_nhwc
// CHECK-SAME: (%[[I:.*]]: memref<?x?x?x8xf32>, %[[F:.*]]: memref<3x3x8x16xf32>, %[[O:.*]]: memref<?x?x?x16xf32>)
// CHECK: call @quilt_rt_report_operand_error
// CHECK-NEXT: } else {
// CHECK: %[[ON:.*]] = memref.dim %[[O]], %c0
// CHECK: %[[OH:.*]] = memref.dim %[[O]], %c1
// CHECK: %[[OW:.*]] = memref.dim %[[O]], %c2
// CHECK: %[[PIX:.*]] = arith.muli %[[OH]], %[[OW]]
// CHECK: %[[M:.*]] = arith.muli %[[ON]], %[[PIX]]
// CHECK: %[[M64:.*]] = arith.index_cast %[[M]] : index to i64
// CHECK: call @quilt_rt_select(%{{.*}}, %{{.*}}, %{{.*}}, %[[M64]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: func.call @[[CONV:__quilt_host_conv2d_nhwc_12x32x8_r4x16_v8_f32_f32_s2x1_d1x3]](%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, index, index, index, index) -> ()
// The filter is read as the K x F matrix and the output updated in place
// as the M x F matrix; A is read from a flat view of the image's buffer:
// when the channels are contiguous, C % 8 == 0 and the K block starts at a
// multiple of 8, runs of 8 channels per panel row (masked past the last
// row) transposed in registers, and the remaining k steps as one masked
// gather of mr elements each.
// CHECK-LABEL: func.func private @__quilt_host_conv2d_nhwc_12x32x8_r4x16_v8_f32_f32_s2x1_d1x3
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] : memref<?x?x?x?xf32> into memref<?x?xf32>
// CHECK: %[[BASE:.*]], %{{.*}}, %{{.*}}:4, %{{.*}}:4 = memref.extract_strided_metadata
// CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%{{.*}}], strides: [1] : memref<f32> to memref<?xf32>
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] : memref<?x?x?x?xf32> into memref<?x?xf32>
// CHECK-NOT: memref.alloc(%
// CHECK: %[[ROWOFF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<12xindex>
// CHECK: %[[KOFF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xindex>
// CHECK: arith.cmpi eq, %strides#3, %c1{{[_0-9]*}} : index
// CHECK: arith.remui %{{.*}}, %c8{{[_0-9]*}} : index
// CHECK: arith.remui %{{.*}}, %c8{{[_0-9]*}} : index
// CHECK: %[[RUNS:.*]] = arith.select %{{.*}}, %{{.*}}, %c0{{[_0-9]*}} : index
// CHECK: scf.for %{{.*}} = %c0{{[_0-9]*}} to %[[RUNS]] step %c8
// CHECK: memref.load %[[KOFF]]
// CHECK-COUNT-4: vector.maskedload %[[FLAT]][%{{.*}}], %{{.*}}, %{{.*}} : memref<?xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<4x8xf32> to vector<8x4xf32>
// CHECK: vector.shape_cast %{{.*}} : vector<8x4xf32> to vector<32xf32>
// CHECK: vector.load %[[ROWOFF]][%{{.*}}] : memref<12xindex>, vector<4xindex>
// CHECK: scf.for %{{.*}} = %[[RUNS]] to
// CHECK: memref.load %[[KOFF]]
// CHECK: vector.gather %[[FLAT]][%{{.*}}] [%{{.*}}], %{{.*}}, %{{.*}} : memref<?xf32>, vector<4xindex>, vector<4xi1>, vector<4xf32> into vector<4xf32>
module attributes {ukernel.target = #cpu8} {
  func.func @conv_nhwc(%i: memref<?x?x?x8xf32>, %f: memref<3x3x8x16xf32>, %o: memref<?x?x?x16xf32>) {
    ukernel.dispatch conv2d_nhwc ins(%i, %f : memref<?x?x?x8xf32>, memref<3x3x8x16xf32>) outs(%o : memref<?x?x?x16xf32>)
      strides [2, 1] dilations [1, 3] candidates [#big]
    return
  }
}

// -----

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#big = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

// An NCHW convolution with f16 operands and a filter without an identity
// layout: the filter is copied into one (and freed after the call); the
// F x (C*R*S) filter is B transposed; the output is accumulated in an f32
// M x F copy read and written at (n, f, oh, ow).
// CHECK-LABEL: func.func @conv_nchw
// CHECK-SAME: (%[[I:.*]]: memref<?x?x?x?xf16>, %[[F:.*]]: memref<?x?x?x?xf16, strided<[?, ?, ?, 1], offset: ?>>, %[[O:.*]]: memref<?x?x?x?xf16>)
// CHECK: %[[COPY:.*]] = memref.alloc(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x?x?x?xf16>
// CHECK: memref.load %[[F]]
// CHECK: memref.store %{{.*}}, %[[COPY]]
// CHECK: call @quilt_rt_select
// CHECK: func.call @__quilt_host_conv2d_nchw_12x32x8_r4x16_v8_f16_f16_staged(
// CHECK: memref.dealloc %[[COPY]]
// CHECK-LABEL: func.func private @__quilt_host_conv2d_nchw_12x32x8_r4x16_v8_f16_f16_staged
// CHECK-SAME: memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>, %{{.*}}: memref<?x?x?x?xf16>, %{{.*}}: memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : memref<?x?x?x?xf16> into memref<?x?xf16>
// CHECK: memref.alloc(%{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x?xf32>
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<16x8xf32> to vector<8x16xf32>
// CHECK: vector.gather {{.*}} : memref<?xf16>, vector<4xindex>, vector<4xi1>, vector<4xf16> into vector<4xf16>
// CHECK: arith.truncf %{{.*}} : f32 to f16
module attributes {ukernel.target = #cpu8} {
  func.func @conv_nchw(%i: memref<?x?x?x?xf16>, %f: memref<?x?x?x?xf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x?xf16>) {
    ukernel.dispatch conv2d_nchw ins(%i, %f : memref<?x?x?x?xf16>, memref<?x?x?x?xf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x?xf16>)
      candidates [#big]
    return
  }
}

// -----

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#big = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>
#small = #ukernel.config<tile = 6x24x16, threads = 1, warps = 1x1, thread_tile = 3x8, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

// Under policy fixed only the fixed candidate's kernel is built, and each
// region calls it without a switch (the spec still lists every candidate,
// for the run-time checks and reports).
// CHECK-LABEL: func.func @fixed
// CHECK: call @quilt_rt_select(
// CHECK-NOT: scf.index_switch
// CHECK: func.call @__quilt_host_gemm_6x24x16_r3x8_v8_f32_f32(
// CHECK-NOT: scf.index_switch
// CHECK: func.call @__quilt_host_gemm_6x24x16_r3x8_v8_f32_f32(
// CHECK-NOT: @__quilt_host_gemm_12x32x8
// CHECK: func.func private @__quilt_host_gemm_6x24x16_r3x8_v8_f32_f32(
// CHECK-NOT: @__quilt_host_gemm_12x32x8
module attributes {ukernel.target = #cpu8} {
  func.func @fixed(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
    ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
      candidates [#big, #small] policy fixed = 1
    return
  }
}
