// RUN: quilt-opt %s --quilt-lower-to-host | FileCheck %s

// A register block of one row packs A by transposing 8 x 1 blocks; vector
// canonicalization leaves ub.poison in them, which the pipeline lowers
// too (convert-ub-to-llvm), so the result is pure LLVM.
// CHECK-NOT: ub.poison
// CHECK: llvm.func internal @__quilt_host_gemm_8x32x16_r1x16_v8_f32_f32(
// CHECK-NOT: ub.poison
#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#row = #ukernel.config<tile = 8x32x16, threads = 1, warps = 1x1, thread_tile = 1x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

module attributes {ukernel.target = #cpu8} {
  func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
    ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
      candidates [#row]
    return
  }
}
