// RUN: quilt-opt %s -split-input-file -verify-diagnostics --convert-ukernel-to-host

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#cfg = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

module attributes {ukernel.target = #cpu8} {
  func.func @tensors(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
    // expected-error @+1 {{convert-ukernel-to-host expects dispatches on memrefs: bufferize first}}
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>)
      candidates [#cfg] -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
}

// -----

#cfg = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

func.func @no_target(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  // expected-error @+1 {{has no target: run ukernel-attach-target first}}
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
    candidates [#cfg]
  return
}

// -----

#h100 = #ukernel.target<name = "h100", vendor = nvidia, chip = "sm_90a", compute_units = 132, warp_size = 32, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 232448, shared_mem_per_cu = 233472, l2_bytes = 52428800, mem_bandwidth_gbs = 3350.0, clock_ghz = 1.98, peak_tflops = {simt_fma = 66.9}>
#simt = #ukernel.config<tile = 64x64x8, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>

module attributes {ukernel.target = #h100} {
  func.func @gpu_target(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
    // expected-error @+1 {{convert-ukernel-to-host generates CPU code, but the target 'h100' is a nvidia GPU: use its GPU pipeline}}
    ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
      candidates [#simt]
    return
  }
}

// -----

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#cfg = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

// Convolutions run on the host, but like every dispatch only on strided
// layouts.
#col = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3)>

module attributes {ukernel.target = #cpu8} {
  func.func @conv(%i: memref<?x?x?x8xf32, #col>, %f: memref<3x3x8x16xf32>, %o: memref<?x?x?x16xf32>) {
    // expected-error @+1 {{operand layouts must be strided, got 'memref<?x?x?x8xf32, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3)>>'}}
    ukernel.dispatch conv2d_nhwc ins(%i, %f : memref<?x?x?x8xf32, #col>, memref<3x3x8x16xf32>) outs(%o : memref<?x?x?x16xf32>)
      candidates [#cfg]
    return
  }
}

// -----

// A GPU instruction on a CPU target: the dispatch's verifier rejects it
// before the pass runs (the pass checks it again, for dispatches built
// without verification).
#cpu = #ukernel.target<name = "cpu", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#simt = #ukernel.config<tile = 32x32x8, threads = 32, warps = 1x1, thread_tile = 8x4, vector_width = 4, stages = 1, instruction = simt_fma, boundary = mask>

module attributes {ukernel.target = #cpu} {
  func.func @simt_on_cpu(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
    // expected-error @+1 {{candidate #0 (32x32x8 t32 w1x1 tt8x4 v4 s1 simt_fma) does not fit target 'cpu': instruction simt_fma needs a GPU}}
    ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
      candidates [#simt]
    return
  }
}

// -----

#cfg = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

func.func @select_without_target(%m: index) -> index {
  // expected-error @+1 {{has no target to select for: run ukernel-attach-target first}}
  %kernel, %rem, %sm, %sn = ukernel.select %m, %m, %m, %m for f32 candidates [#cfg]
  return %kernel : index
}

// -----

// The runtime's entry point is reserved.
// expected-error @+1 {{'quilt_rt_select' is reserved for Quilt's runtime and must be declared as '(!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, !llvm.ptr) -> i32'}}
func.func private @quilt_rt_select(i64) -> i32

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#cfg = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

func.func @uses_select(%m: index) -> index attributes {ukernel.target = #cpu8} {
  %kernel, %rem, %sm, %sn = ukernel.select %m, %m, %m, %m for f32 candidates [#cfg]
  return %kernel : index
}

// -----

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#cfg = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>
#halved = affine_map<(d0, d1) -> (d0 floordiv 2, d1)>

module attributes {ukernel.target = #cpu8} {
  func.func @not_strided(%a: memref<?x?xf32, #halved>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
    // expected-error @+1 {{operand layouts must be strided, got 'memref<?x?xf32, affine_map<(d0, d1) -> (d0 floordiv 2, d1)>>'}}
    ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32, #halved>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
      candidates [#cfg]
    return
  }
}

// -----

// The operand checks' runtime entry point is reserved too.
// expected-error @+1 {{'quilt_rt_report_operand_error' is reserved for Quilt's runtime and must be declared as '(!llvm.ptr, i32, i64, i64) -> i32'}}
func.func private @quilt_rt_report_operand_error(i32) -> i32

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#cfg = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) attributes {ukernel.target = #cpu8} {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
    candidates [#cfg]
  return
}
