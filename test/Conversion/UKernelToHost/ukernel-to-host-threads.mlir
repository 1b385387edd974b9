// RUN: quilt-opt %s --convert-ukernel-to-host=threads=2 | FileCheck %s
// RUN: quilt-opt %s --convert-ukernel-to-host=threads=0 | FileCheck %s --check-prefix=ALL
// RUN: quilt-opt %s --quilt-lower-to-host=threads=2 | FileCheck %s --check-prefix=OMP
// RUN: quilt-opt %s --quilt-lower-to-host | FileCheck %s --check-prefix=SEQ

// A 4-core target.
#cpu4 = #ukernel.target<name = "cpu4", vendor = cpu, chip = "x86-64-v3", compute_units = 4, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.256}, vector_bits = 256, fma_units_per_core = 2>
#big = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

// Multi-threaded kernels: the selection models 2 of the target's 4 cores
// (half its peak); each kernel runs its cache blocks (batch element, N
// block, M block) as one scf.parallel whose iterations allocate their own
// packing buffers and run the whole K loop, when there are several blocks
// and enough work.
// CHECK: @__quilt_select_spec({{.*}}[cpu4]{{.*}}compute_units = 2\0A{{.*}}peak.cpu_fma = 0.128\0A
// CHECK-LABEL: func.func @batch
// CHECK: func.call @__quilt_host_gemm_12x32x8_r4x16_v8_f32_f32_batch_par(
// CHECK-LABEL: func.func private @__quilt_host_gemm_12x32x8_r4x16_v8_f32_f32_batch_par
// CHECK: %[[BATCH:.*]] = memref.dim %{{.*}}, %c0
// CHECK: %[[WORTH:.*]] = arith.andi
// CHECK: scf.if %[[WORTH]] {
// Batch elements that are single cache blocks are read in place: one
// parallel iteration per element, nothing to allocate.
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: %{{.*}} = arith.constant
// CHECK-NEXT: %{{.*}} = arith.constant
// CHECK-NEXT: scf.parallel (%[[E:.*]]) = (%{{.*}}) to (%[[BATCH]])
// CHECK-NOT: memref.alloc
// CHECK: memref.subview %{{.*}}[%[[E]], 0, 0]
// CHECK-NOT: memref.alloc
// CHECK: vector.maskedload
// CHECK: vector.fma
// CHECK: scf.reduce
// CHECK: } else {
// CHECK: %[[NB:.*]] = arith.ceildivsi %{{.*}}, %c32
// CHECK: %[[MB:.*]] = arith.ceildivsi %{{.*}}, %c12
// CHECK: scf.parallel (%[[B:.*]], %[[J:.*]], %[[I:.*]]) = (%{{.*}}, %{{.*}}, %{{.*}}) to (%[[BATCH]], %[[NB]], %[[MB]])
// Each iteration packs its own B panel; A is read in place (the N block
// holds 2 register-block columns), so there is no A buffer.
// CHECK: memref.subview %{{.*}}[%[[B]], 0, 0]
// CHECK-NOT: memref.alloc
// CHECK: %[[PB:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
// CHECK-NOT: memref.alloc
// CHECK: scf.for
// CHECK: vector.fma
// CHECK: func.call @__quilt_host_prefetch_a_rows_r4(
// CHECK: memref.dealloc %[[PB]]
// CHECK-NEXT: scf.reduce
// One cache block, or less work than a fork and join is worth, runs the
// sequential nest on the calling thread.
// CHECK: } else {
// CHECK-NOT: scf.parallel
// CHECK: vector.fma
// The parallel kernels prefetch A's rows like the sequential ones
// (ukernel-to-host.mlir), after each register block's update.
// CHECK-LABEL: func.func private @__quilt_host_prefetch_a_rows_r4

// threads=0: as many threads as OpenMP gives; the model keeps every core.
// ALL: @__quilt_select_spec({{.*}}compute_units = 4\0A
// ALL: scf.parallel

// The pipeline lowers the parallel loop to OpenMP with the thread count;
// without threads the kernels stay sequential.
// OMP: omp.parallel num_threads(
// OMP: omp.wsloop
// OMP: omp.loop_nest ({{.*}}) : i64 = ({{.*}}) to ({{.*}}) step ({{.*}}) collapse(3)
// SEQ-NOT: omp.
// SEQ-NOT: _batch_par
// The sequential kernel reads A in place and prefetches its rows, out of
// line.
// SEQ: llvm.call @[[SEQPF:__quilt_host_prefetch_a_rows_r4]](
// SEQ: llvm.func internal @[[SEQPF]](
// SEQ-SAME: passthrough = ["noinline"]
module attributes {ukernel.target = #cpu4} {
  func.func @batch(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {
    ukernel.dispatch batch_matmul ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)
      candidates [#big]
    return
  }
}
