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
// CHECK: llvm.getelementptr %[[OUT]][2]
// CHECK: llvm.getelementptr %[[OUT]][3]
// CHECK: scf.if
// CHECK: memref.subview %[[A]][0, 0]
// CHECK: scf.index_switch %[[KERNEL]]
// CHECK-NEXT: case 0 {
// CHECK-NEXT: func.call @[[BIG:__quilt_host_gemm_12x32x8_r4x16_v8_f32_f32]](
// CHECK: case 1 {
// CHECK-NEXT: func.call @[[SMALL:__quilt_host_gemm_6x24x16_r3x8_v8_f32_f32]](
// CHECK: default {
// The remainder region.
// CHECK: scf.if
// CHECK: scf.index_switch
// CHECK: func.call @[[BIG]](
// CHECK: func.call @[[SMALL]](
// CHECK: return

// The kernel: packing buffers, BLIS loops, the register-blocked micro-kernel
// (mr x nr/lanes = 4 x 2 accumulators carried through the K loop).
// CHECK-LABEL: func.func private @__quilt_host_gemm_12x32x8_r4x16_v8_f32_f32
// CHECK-SAME: (%{{.*}}: memref<?x?xf32, strided<[?, 1], offset: ?>>, %{{.*}}: memref<?x?xf32, strided<[?, 1], offset: ?>>, %{{.*}}: memref<?x?xf32, strided<[?, 1], offset: ?>>)
// CHECK-SAME: llvm.linkage = #llvm.linkage<internal>
// CHECK-DAG: %[[PA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<96xf32>
// CHECK-DAG: %[[PB:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[PB]]
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[PA]]
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK-COUNT-2: vector.load %[[PB]]
// CHECK: memref.load %[[PA]]
// CHECK-NEXT: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-NEXT: vector.fma
// CHECK-NEXT: vector.fma
// CHECK-COUNT-6: vector.fma
// CHECK: scf.yield
// Full tiles update C with plain vectors, edge tiles with masks.
// CHECK: vector.load %{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<8xf32>
// CHECK: vector.store
// CHECK: vector.create_mask
// CHECK: vector.maskedload
// CHECK: vector.maskedstore
// CHECK: memref.dealloc %[[PA]]
// CHECK: memref.dealloc %[[PB]]

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
#big = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

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
// CHECK: memref.subview %[[AT]][0, 0] [%{{.*}}, %{{.*}}]
// CHECK: memref.subview %[[BT]][0, 0] [%{{.*}}, %{{.*}}]
// CHECK: func.call @[[TKERNEL:__quilt_host_gemm_12x32x8_r4x16_v8_f32_f32_ta_tb]](
// CHECK: call @quilt_rt_select
// CHECK: func.call @[[KERNEL:__quilt_host_gemm_12x32x8_r4x16_v8_f32_f32]](
// CHECK: func.call @[[KERNEL]](
// CHECK: func.func private @[[TKERNEL]](
// Packing A (stored KxM) copies contiguous runs of mr elements; packing B
// (stored NxK) transposes 8 k steps x 16 columns in registers.
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<16x8xf32> to vector<8x16xf32>
// CHECK: vector.load %{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<4xf32>
// CHECK: func.func private @[[KERNEL]](
// CHECK-NOT: func.func private @__quilt_host_gemm
module attributes {ukernel.target = #cpu8} {
  func.func @transposed(%at: memref<?x?xf32>, %bt: memref<?x?xf32>, %c: memref<?x?xf32>) {
    ukernel.dispatch matmul transpose_lhs transpose_rhs ins(%at, %bt : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
      candidates [#big]
    ukernel.dispatch matmul ins(%at, %bt : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
      candidates [#big]
    return
  }
}

// -----

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#big = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

// A batch: one selection, then the kernels once per batch element on
// rank-reduced views. An f16 accumulator is staged in f32; the bias is
// copied into a zero-padded f32 buffer; GELU's erf becomes a polynomial,
// applied only after the last K block.
// CHECK-LABEL: func.func @batch
// CHECK-SAME: (%[[A:.*]]: memref<?x?x?xf16>, %[[B:.*]]: memref<?x?x?xf16>, %[[C:.*]]: memref<?x?x?xf16>, %[[BIAS:.*]]: memref<?xf16>)
// CHECK: %[[BATCH:.*]] = memref.dim %[[C]], %c0
// CHECK: call @quilt_rt_select(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[BATCH]] step
// CHECK: memref.subview %[[A]][%[[I]], 0, 0] [1, %{{.*}}, %{{.*}}] [1, 1, 1] : memref<?x?x?xf16> to memref<?x?xf16, strided<[?, 1], offset: ?>>
// CHECK: memref.subview %[[BIAS]]
// CHECK: func.call @__quilt_host_gemm_12x32x8_r4x16_v8_f16_f16_bias_f16_bias_add_gelu(
// CHECK-LABEL: func.func private @__quilt_host_gemm_12x32x8_r4x16_v8_f16_f16_bias_f16_bias_add_gelu
// CHECK-SAME: memref<?xf16, strided<[?], offset: ?>>
// CHECK-NOT: math.erf
// CHECK: memref.alloc(%{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x?xf32>
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xf32>
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
// CHECK: func.func private @__quilt_host_gemm_12x32x8_r4x16_v8_f32_f32_stridedC(%{{.*}}: memref<?x?xf32, strided<[?, 1], offset: ?>>, %{{.*}}: memref<?x?xf32, strided<[?, 1], offset: ?>>, %{{.*}}: memref<?x?xf32, strided<[?, ?], offset: ?>>)
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
