// RUN: quilt-opt %s -split-input-file -verify-diagnostics --ukernel-cost-report
// RUN: not quilt-opt %s -split-input-file --ukernel-cost-report="shapes=10x20" 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not quilt-opt %s -split-input-file --ukernel-cost-report="shapes=10x-2x5" 2>&1 | FileCheck %s --check-prefix=SHAPE

// SHAPE: error: ukernel-cost-report: bad shape '{{.*}}' (expected MxNxK or BxMxNxK with non-negative sizes)

#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>

func.func @no_target(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{no target to report costs for: run ukernel-attach-target first}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#simt] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>

module attributes {ukernel.target = #ukernel.target<name = "tiny", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5}>} {
  func.func @dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
    // expected-error @below {{the dispatch's sizes are dynamic: give the shapes to report at (shapes=MxNxK,...)}}
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#simt] -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
}

