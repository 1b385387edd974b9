// RUN: quilt-opt %s -split-input-file | quilt-opt -split-input-file | FileCheck %s
// RUN: quilt-opt %s -split-input-file -mlir-print-op-generic | quilt-opt -split-input-file | FileCheck %s

// Round trips of every op in pretty and generic form.

#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
#wide = #ukernel.config<tile = 128x64x8, threads = 256, warps = 2x4, thread_tile = 8x4, vector_width = 4, stages = 3, instruction = simt_fma, boundary = mask, split_k = 2>

// CHECK-LABEL: func.func @matmul_tensors
// CHECK: ukernel.dispatch matmul ins(%{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<?x?xf32>) outs(%{{.*}} : tensor<?x?xf32>)
// CHECK-SAME: candidates [#ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>,
// CHECK-SAME: split_k = 2>]
// CHECK-NOT: policy
// CHECK-SAME: -> tensor<?x?xf32>
func.func @matmul_tensors(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>)
         candidates [#simt, #wide] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>

// CHECK-LABEL: func.func @matmul_memrefs_transposed_epilogue
// CHECK: ukernel.dispatch matmul transpose_rhs ins(%{{.*}}, %{{.*}} : memref<?x?xf16>, memref<?x?xf16>) outs(%{{.*}} : memref<?x?xf32>)
// CHECK-SAME: bias(%{{.*}} : memref<?xf32>) epilogue [bias_add, gelu]
// CHECK-SAME: policy fixed = 0
// CHECK-NOT: ->
func.func @matmul_memrefs_transposed_epilogue(%x: memref<?x?xf16>, %w: memref<?x?xf16>, %y: memref<?x?xf32>, %bias: memref<?xf32>) {
  ukernel.dispatch matmul transpose_rhs ins(%x, %w : memref<?x?xf16>, memref<?x?xf16>) outs(%y : memref<?x?xf32>)
    bias(%bias : memref<?xf32>) epilogue [bias_add, gelu]
    candidates [#simt] policy fixed = 0
  return
}

// -----

#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>

// CHECK-LABEL: func.func @batch_matmul_patch
// CHECK: ukernel.dispatch batch_matmul ins(%{{.*}}, %{{.*}} : tensor<192x?x64xbf16>, tensor<192x64x?xbf16>) outs(%{{.*}} : tensor<192x?x?xbf16>)
// CHECK-SAME: policy patch
func.func @batch_matmul_patch(%a: tensor<192x?x64xbf16>, %b: tensor<192x64x?xbf16>, %c: tensor<192x?x?xbf16>) -> tensor<192x?x?xbf16> {
  %r = ukernel.dispatch batch_matmul ins(%a, %b : tensor<192x?x64xbf16>, tensor<192x64x?xbf16>) outs(%c : tensor<192x?x?xbf16>)
         candidates [#simt] policy patch -> tensor<192x?x?xbf16>
  return %r : tensor<192x?x?xbf16>
}

// -----

#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>

// CHECK-LABEL: func.func @conv_nhwc_relu
// CHECK: ukernel.dispatch conv2d_nhwc ins(%{{.*}}, %{{.*}} : tensor<?x?x?x128xf32>, tensor<3x3x128x64xf32>) outs(%{{.*}} : tensor<?x?x?x64xf32>)
// CHECK-SAME: epilogue [relu] strides [2, 2] dilations [1, 1]
// CHECK-SAME: policy pad
func.func @conv_nhwc_relu(%i: tensor<?x?x?x128xf32>, %f: tensor<3x3x128x64xf32>, %o: tensor<?x?x?x64xf32>) -> tensor<?x?x?x64xf32> {
  %r = ukernel.dispatch conv2d_nhwc ins(%i, %f : tensor<?x?x?x128xf32>, tensor<3x3x128x64xf32>) outs(%o : tensor<?x?x?x64xf32>)
         epilogue [relu] strides [2, 2] dilations [1, 1]
         candidates [#simt] policy pad -> tensor<?x?x?x64xf32>
  return %r : tensor<?x?x?x64xf32>
}

// -----

#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>

// CHECK-LABEL: func.func @conv_nchw_static
// CHECK: ukernel.dispatch conv2d_nchw ins(%{{.*}}, %{{.*}} : tensor<16x128x17x19xf32>, tensor<64x128x3x3xf32>) outs(%{{.*}} : tensor<16x64x15x17xf32>)
func.func @conv_nchw_static(%i: tensor<16x128x17x19xf32>, %f: tensor<64x128x3x3xf32>, %o: tensor<16x64x15x17xf32>) -> tensor<16x64x15x17xf32> {
  %r = ukernel.dispatch conv2d_nchw ins(%i, %f : tensor<16x128x17x19xf32>, tensor<64x128x3x3xf32>) outs(%o : tensor<16x64x15x17xf32>)
         candidates [#simt] -> tensor<16x64x15x17xf32>
  return %r : tensor<16x64x15x17xf32>
}

// -----

#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>

// CHECK-LABEL: func.func @select
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = ukernel.select %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} for f16 candidates [#ukernel.config<tile = 64x64x8
// CHECK-SAME: policy patch
func.func @select(%b: index, %m: index, %n: index, %k: index) -> (index, index, index, index) {
  %kernel, %rem, %split_m, %split_n = ukernel.select %b, %m, %n, %k for f16 candidates [#simt] policy patch
  return %kernel, %rem, %split_m, %split_n : index, index, index, index
}

// -----

#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
#wide = #ukernel.config<tile = 128x128x8, threads = 256, warps = 2x4, thread_tile = 8x8, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>

// Tuned regions (from a tuning database) on a dispatch and a select.
// CHECK-LABEL: func.func @tuned
// CHECK: ukernel.dispatch matmul
// CHECK-SAME: tuned [#ukernel.tuned<candidate = 1, lower = 1x100x768x768, upper = 1x140x768x768, source = "tuned.db:7">]
// CHECK: ukernel.select
// CHECK-SAME: tuned [#ukernel.tuned<candidate = 0, lower = 2x0x1x1, upper = 4x8x8x8, source = "tuned.db:12">]
// CHECK-SAME: policy patch
func.func @tuned(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %i: index) -> (tensor<?x?xf32>, index) {
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>)
         candidates [#simt, #wide]
         tuned [#ukernel.tuned<candidate = 1, lower = 1x100x768x768, upper = 1x140x768x768, source = "tuned.db:7">]
         -> tensor<?x?xf32>
  %kernel, %rem, %split_m, %split_n = ukernel.select %i, %i, %i, %i for f32 candidates [#simt]
      tuned [#ukernel.tuned<candidate = 0, lower = 2x0x1x1, upper = 4x8x8x8, source = "tuned.db:12">] policy patch
  return %r, %kernel : tensor<?x?xf32>, index
}

// -----

#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>

// CHECK-LABEL: func.func @invoke
// CHECK: ukernel.invoke <tile = 64x64x8
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : memref<?x?xf32>, memref<?x?xf32>) outs(%{{.*}} : memref<?x?xf32>)
// CHECK-SAME: offsets [%{{.*}}, %{{.*}}] sizes [%{{.*}}, %{{.*}}, %{{.*}}] masked
// CHECK: ukernel.invoke
// CHECK-SAME: bias(%{{.*}} : memref<?xf32>) epilogue [bias_add, relu]
// CHECK-SAME: sizes [%{{.*}}, %{{.*}}, %{{.*}}]
// CHECK-NOT: masked
func.func @invoke(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>, %bias: memref<?xf32>, %i: index, %j: index, %m: index, %k: index) {
  ukernel.invoke #simt ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
    offsets [%i, %j] sizes [%m, %m, %k] masked
  %c64 = arith.constant 64 : index
  ukernel.invoke #simt ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
    bias(%bias : memref<?xf32>) epilogue [bias_add, relu]
    offsets [%i, %j] sizes [%c64, %c64, %k]
  return
}

// -----

// A target attached to the module; candidates are checked against it.
// CHECK-LABEL: module attributes {ukernel.target = #ukernel.target<name = "tiny", vendor = nvidia, chip = "sm_80"
// CHECK-SAME: mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0}>}
module attributes {ukernel.target = #ukernel.target<name = "tiny", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0}>} {
  func.func @with_target(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>)
           candidates [#ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>] -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
}

// -----

#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>

// CHECK-LABEL: func.func @fused_epilogue
// CHECK: ukernel.dispatch batch_matmul ins(%{{.*}}, %{{.*}} : tensor<?x?x?xf16>, tensor<?x?x?xf16>) outs(%{{.*}} : tensor<?x?x?xf16>)
// CHECK-SAME: fused(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, tensor<?xf32>, tensor<?xf16>, tensor<?x?x?xf16>) [scalar, per_column, per_row, per_element] {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[S:.*]]: f32, %[[C:.*]]: f32, %[[R:.*]]: f16, %[[E:.*]]: f16):
// CHECK: arith.minimumf
// CHECK: ukernel.yield %{{.*}} : f16
// CHECK-NEXT: } candidates [#{{.*}}] -> tensor<?x?x?xf16>
// CHECK-LABEL: func.func @fused_no_operands
// CHECK: outs(%{{.*}} : memref<?x?xf32>) fill(1.000000e+00 : f32) fused {
// CHECK-NEXT: ^bb0(%{{.*}}: f32):
func.func @fused_epilogue(%x: tensor<?x?x?xf16>, %w: tensor<?x?x?xf16>, %y: tensor<?x?x?xf16>, %s: f32,
                          %col: tensor<?xf32>, %row: tensor<?xf16>, %res: tensor<?x?x?xf16>) -> tensor<?x?x?xf16> {
  %r = ukernel.dispatch batch_matmul ins(%x, %w : tensor<?x?x?xf16>, tensor<?x?x?xf16>) outs(%y : tensor<?x?x?xf16>)
    fused(%s, %col, %row, %res : f32, tensor<?xf32>, tensor<?xf16>, tensor<?x?x?xf16>) [scalar, per_column, per_row, per_element] {
    ^bb0(%acc: f32, %sv: f32, %cv: f32, %rv: f16, %ev: f16):
      %0 = arith.mulf %acc, %sv : f32
      %1 = arith.addf %0, %cv : f32
      %2 = arith.minimumf %1, %sv : f32
      %3 = arith.truncf %2 : f32 to f16
      %4 = arith.addf %3, %rv : f16
      %5 = arith.addf %4, %ev : f16
      ukernel.yield %5 : f16
    } candidates [#simt] -> tensor<?x?x?xf16>
  return %r : tensor<?x?x?xf16>
}

func.func @fused_no_operands(%x: memref<?x?xf32>, %w: memref<?x?xf32>, %y: memref<?x?xf32>) {
  ukernel.dispatch matmul ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>) outs(%y : memref<?x?xf32>) fill(1.0 : f32) fused {
    ^bb0(%acc: f32):
      %c = arith.constant 6.0 : f32
      %0 = arith.minimumf %acc, %c : f32
      ukernel.yield %0 : f32
    } candidates [#simt]
  return
}

// -----

// A stream-K candidate keeps its block count; split-K is left out.
#streamed = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask, stream_k = 132>

// CHECK-LABEL: func.func @stream_k
// CHECK: candidates [#ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask, stream_k = 132>]
func.func @stream_k(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>)
         candidates [#streamed] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
