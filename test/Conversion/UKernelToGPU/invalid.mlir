// RUN: quilt-opt %s -split-input-file -verify-diagnostics --convert-ukernel-to-gpu

#a100 = #ukernel.target<name = "a100", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, onchip_bytes_per_clock = 128.0, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0, mma_sync_tf32 = 156.0}>
#mma = #ukernel.config<tile = 64x64x32, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 8, stages = 2, instruction = mma_sync_f16, boundary = mask>

module attributes {ukernel.target = #a100} {
  func.func @tensors(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
    // expected-error @+1 {{convert-ukernel-to-gpu expects dispatches on memrefs: bufferize first}}
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf32>)
      candidates [#mma] -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
}

// -----

#mma = #ukernel.config<tile = 64x64x32, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 8, stages = 2, instruction = mma_sync_f16, boundary = mask>

func.func @no_target(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  // expected-error @+1 {{has no target: run ukernel-attach-target first}}
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#mma]
  return
}

// -----

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#cfg = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

module attributes {ukernel.target = #cpu8} {
  func.func @cpu_target(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
    // expected-error @+1 {{convert-ukernel-to-gpu generates GPU code, but the target 'cpu8' is a CPU: use quilt-lower-to-host}}
    ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
      candidates [#cfg]
    return
  }
}

// -----

#a100 = #ukernel.target<name = "a100", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, onchip_bytes_per_clock = 128.0, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0, mma_sync_tf32 = 156.0}>
#simt = #ukernel.config<tile = 64x64x8, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>

#strided4 = strided<[?, ?, ?, ?], offset: ?>

module attributes {ukernel.target = #a100} {
  func.func @conv_strided_filter(%i: memref<?x?x?x?xf32>, %f: memref<?x?x?x?xf32, #strided4>, %o: memref<?x?x?x?xf32>) {
    // expected-error @+1 {{the filter of a convolution must be a contiguous buffer (identity layout) on GPU targets, where it is read as a matrix; got 'memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>'}}
    ukernel.dispatch conv2d_nhwc ins(%i, %f : memref<?x?x?x?xf32>, memref<?x?x?x?xf32, #strided4>) outs(%o : memref<?x?x?x?xf32>)
      candidates [#simt]
    return
  }
}

// -----

// The NVIDIA kernels of a module go into one binary, for one chip.
#a100 = #ukernel.target<name = "a100", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, onchip_bytes_per_clock = 128.0, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0, mma_sync_tf32 = 156.0}>
#t4 = #ukernel.target<name = "t4", vendor = nvidia, chip = "sm_75", compute_units = 40, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 1024, max_blocks_per_cu = 16, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 65536, shared_mem_per_cu = 65536, l1_bytes = 65536, l2_bytes = 4194304, mem_bandwidth_gbs = 320.0, clock_ghz = 1.59, onchip_bytes_per_clock = 128.0, peak_tflops = {simt_fma = 8.1}>
#simt = #ukernel.config<tile = 32x32x8, threads = 64, warps = 2x1, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>

module {
  func.func @on_a100(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) attributes {ukernel.target = #a100} {
    ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
      candidates [#simt]
    return
  }
  func.func @on_t4(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) attributes {ukernel.target = #t4} {
    // expected-error @+1 {{GPU kernels for chip 'sm_75' and for another chip of the same vendor in one module: convert the functions of each chip in modules of their own}}
    ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
      candidates [#simt]
    return
  }
}
