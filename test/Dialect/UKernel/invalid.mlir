// RUN: quilt-opt %s -split-input-file -verify-diagnostics

// Every diagnostic of the ukernel ops' verifiers.

// No candidates.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{expects at least one candidate configuration}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Policy 'fixed' without an index.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{policy 'fixed' needs a candidate index}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#simt] policy fixed -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Fixed index out of range.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{fixed candidate 1 is out of range: there are 1 candidates}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#simt] policy fixed = 1 -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// An index with another policy.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{a candidate index is only meaningful with policy 'fixed', not 'pad'}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#simt] policy pad = 0 -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Mixed tensors and memrefs.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: memref<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{operands must be all tensors or all memrefs}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, memref<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#simt] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Tensors without a result.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) {
  // expected-error @below {{on tensors returns the updated init}}
  ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#simt]
  return
}

// -----

// Memrefs with a result.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  // expected-error @below {{on memrefs updates init in place and has no result}}
  %r = ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>) candidates [#simt] -> tensor<?x?xf32>
  return
}

// -----

// Result type differs from init.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) {
  // expected-error @below {{result type 'tensor<4x?xf32>' differs from init type 'tensor<?x?xf32>'}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#simt] -> tensor<4x?xf32>
  return
}

// -----

// Unranked operand.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<*xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) {
  // expected-error @below {{lhs must be ranked, got 'tensor<*xf32>'}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<*xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#simt] -> tensor<?x?xf32>
  return
}

// -----

// Wrong rank for the kind.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) {
  // expected-error @below {{'batch_matmul' expects rank-3 lhs, got rank 2}}
  %r = ukernel.dispatch batch_matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#simt] -> tensor<?x?xf32>
  return
}

// -----

// Input element types differ.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf16>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) {
  // expected-error @below {{lhs element type 'f16' differs from rhs element type 'f32'}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#simt] -> tensor<?x?xf32>
  return
}

// -----

// Unsupported element type.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>, %c: tensor<?x?xf32>) {
  // expected-error @below {{element type 'i8' is not supported (expected f32, f16, bf16 or f64)}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xi8>, tensor<?x?xi8>) outs(%c : tensor<?x?xf32>) candidates [#simt] -> tensor<?x?xf32>
  return
}

// -----

// Init element type neither f32 nor the input's.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xbf16>) {
  // expected-error @below {{init element type must be f32 (the accumulator) or the input element type 'f16', got 'bf16'}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xbf16>) candidates [#simt] -> tensor<?x?xbf16>
  return
}

// -----

// Transposes on a convolution.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?x?x?xf32>, %b: tensor<?x?x?x?xf32>, %c: tensor<?x?x?x?xf32>) {
  // expected-error @below {{transposed operands are only supported on 'matmul' and 'batch_matmul', not 'conv2d_nhwc'}}
  %r = ukernel.dispatch conv2d_nhwc transpose_rhs ins(%a, %b : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) outs(%c : tensor<?x?x?x?xf32>) candidates [#simt] -> tensor<?x?x?x?xf32>
  return
}

// -----

// Strides on a matmul.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) {
  // expected-error @below {{strides and dilations only apply to convolutions, not 'matmul'}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) strides [1, 1] candidates [#simt] -> tensor<?x?xf32>
  return
}

// -----

// Strides with the wrong arity.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?x?x?xf32>, %b: tensor<?x?x?x?xf32>, %c: tensor<?x?x?x?xf32>) {
  // expected-error @below {{strides must have 2 entries (H, W), got 3}}
  %r = ukernel.dispatch conv2d_nhwc ins(%a, %b : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) outs(%c : tensor<?x?x?x?xf32>) strides [1, 1, 1] candidates [#simt] -> tensor<?x?x?x?xf32>
  return
}

// -----

// Non-positive dilation.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?x?x?xf32>, %b: tensor<?x?x?x?xf32>, %c: tensor<?x?x?x?xf32>) {
  // expected-error @below {{dilations must be positive}}
  %r = ukernel.dispatch conv2d_nhwc ins(%a, %b : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) outs(%c : tensor<?x?x?x?xf32>) dilations [0, 1] candidates [#simt] -> tensor<?x?x?x?xf32>
  return
}

// -----

// K mismatch.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x12xf32>, %b: tensor<13x?xf32>, %c: tensor<?x?xf32>) {
  // expected-error @below {{K mismatch: lhs has 12 but rhs has 13}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x12xf32>, tensor<13x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#simt] -> tensor<?x?xf32>
  return
}

// -----

// K mismatch through a transposed rhs.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x12xf32>, %b: tensor<12x13xf32>, %c: tensor<?x?xf32>) {
  // expected-error @below {{K mismatch: lhs has 12 but rhs has 13}}
  %r = ukernel.dispatch matmul transpose_rhs ins(%a, %b : tensor<?x12xf32>, tensor<12x13xf32>) outs(%c : tensor<?x?xf32>) candidates [#simt] -> tensor<?x?xf32>
  return
}

// -----

// M mismatch.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<8x?xf32>, %b: tensor<?x?xf32>, %c: tensor<9x?xf32>) {
  // expected-error @below {{M mismatch: lhs has 8 but init has 9}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<8x?xf32>, tensor<?x?xf32>) outs(%c : tensor<9x?xf32>) candidates [#simt] -> tensor<9x?xf32>
  return
}

// -----

// N mismatch.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x5xf32>, %c: tensor<?x6xf32>) {
  // expected-error @below {{N mismatch: rhs has 5 but init has 6}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x5xf32>) outs(%c : tensor<?x6xf32>) candidates [#simt] -> tensor<?x6xf32>
  return
}

// -----

// Batch mismatch.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<4x?x?xf32>, %b: tensor<5x?x?xf32>, %c: tensor<?x?x?xf32>) {
  // expected-error @below {{batch mismatch: lhs has 4 but rhs has 5}}
  %r = ukernel.dispatch batch_matmul ins(%a, %b : tensor<4x?x?xf32>, tensor<5x?x?xf32>) outs(%c : tensor<?x?x?xf32>) candidates [#simt] -> tensor<?x?x?xf32>
  return
}

// -----

// Convolution channel mismatch.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?x?x8xf32>, %b: tensor<3x3x16x?xf32>, %c: tensor<?x?x?x?xf32>) {
  // expected-error @below {{channels mismatch: the input has 8 but the filter has 16}}
  %r = ukernel.dispatch conv2d_nhwc ins(%a, %b : tensor<?x?x?x8xf32>, tensor<3x3x16x?xf32>) outs(%c : tensor<?x?x?x?xf32>) candidates [#simt] -> tensor<?x?x?x?xf32>
  return
}

// -----

// Convolution filter-count mismatch.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?x?x?xf32>, %b: tensor<32x?x3x3xf32>, %c: tensor<?x64x?x?xf32>) {
  // expected-error @below {{filters mismatch: the filter has 32 but the output has 64}}
  %r = ukernel.dispatch conv2d_nchw ins(%a, %b : tensor<?x?x?x?xf32>, tensor<32x?x3x3xf32>) outs(%c : tensor<?x64x?x?xf32>) candidates [#simt] -> tensor<?x64x?x?xf32>
  return
}

// -----

// Convolution output height inconsistent with the strides.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<1x17x17x8xf32>, %b: tensor<3x3x8x4xf32>, %c: tensor<1x15x8x4xf32>) {
  // expected-error @below {{output height mismatch: the convolution has 8 but the output has 15}}
  %r = ukernel.dispatch conv2d_nhwc ins(%a, %b : tensor<1x17x17x8xf32>, tensor<3x3x8x4xf32>) outs(%c : tensor<1x15x8x4xf32>) strides [2, 2] candidates [#simt] -> tensor<1x15x8x4xf32>
  return
}

// -----

// A filter taller than the input gives no output rows (no row of a strided
// window fits: the size rounds down, not towards zero).
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<1x2x3x8xf32>, %b: tensor<3x3x8x4xf32>, %c: tensor<1x1x1x4xf32>) {
  // expected-error @below {{output height mismatch: the convolution has 0 but the output has 1}}
  %r = ukernel.dispatch conv2d_nhwc ins(%a, %b : tensor<1x2x3x8xf32>, tensor<3x3x8x4xf32>) outs(%c : tensor<1x1x1x4xf32>) strides [2, 2] candidates [#simt] -> tensor<1x1x1x4xf32>
  return
}

// -----

// Convolution batch mismatch.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<2x?x?x?xf32>, %b: tensor<?x?x?x?xf32>, %c: tensor<3x?x?x?xf32>) {
  // expected-error @below {{batch mismatch: the input has 2 but the output has 3}}
  %r = ukernel.dispatch conv2d_nhwc ins(%a, %b : tensor<2x?x?x?xf32>, tensor<?x?x?x?xf32>) outs(%c : tensor<3x?x?x?xf32>) candidates [#simt] -> tensor<3x?x?x?xf32>
  return
}

// -----

// bias_add without a bias.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) {
  // expected-error @below {{epilogue 'bias_add' needs a bias operand}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) epilogue [bias_add] candidates [#simt] -> tensor<?x?xf32>
  return
}

// -----

// A bias without bias_add.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %bias: tensor<?xf32>) {
  // expected-error @below {{has a bias operand but its epilogue has no 'bias_add' step}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) bias(%bias : tensor<?xf32>) epilogue [relu] candidates [#simt] -> tensor<?x?xf32>
  return
}

// -----

// Bias added twice.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %bias: tensor<?xf32>) {
  // expected-error @below {{epilogue adds the bias more than once}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) bias(%bias : tensor<?xf32>) epilogue [bias_add, bias_add] candidates [#simt] -> tensor<?x?xf32>
  return
}

// -----

// 2-D bias.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %bias: tensor<?x?xf32>) {
  // expected-error @below {{bias must be 1-D, got 'tensor<?x?xf32>'}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) bias(%bias : tensor<?x?xf32>) epilogue [bias_add] candidates [#simt] -> tensor<?x?xf32>
  return
}

// -----

// Bias element type.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>, %bias: tensor<?xbf16>) {
  // expected-error @below {{bias element type must be f32 or the input element type 'f16', got 'bf16'}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf32>) bias(%bias : tensor<?xbf16>) epilogue [bias_add] candidates [#simt] -> tensor<?x?xf32>
  return
}

// -----

// Bias size differs from N.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x8xf32>, %bias: tensor<7xf32>) {
  // expected-error @below {{N mismatch: the output has 8 but the bias has 7}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x8xf32>) bias(%bias : tensor<7xf32>) epilogue [bias_add] candidates [#simt] -> tensor<?x8xf32>
  return
}

// -----

// A bias that is a memref on tensors.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %bias: memref<?xf32>) {
  // expected-error @below {{operands must be all tensors or all memrefs}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) bias(%bias : memref<?xf32>) epilogue [bias_add] candidates [#simt] -> tensor<?x?xf32>
  return
}

// -----

// Select without candidates.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%i: index) {
  // expected-error @below {{expects at least one candidate configuration}}
  %0:4 = ukernel.select %i, %i, %i, %i for f32 candidates []
  return
}

// -----

// Select with an unsupported element type.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%i: index) {
  // expected-error @below {{'ukernel.select' op attribute 'element_type' failed to satisfy constraint}}
  %0:4 = ukernel.select %i, %i, %i, %i for i32 candidates [#simt]
  return
}

// -----

// Select with a fixed index out of range.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%i: index) {
  // expected-error @below {{fixed candidate -1 is out of range: there are 1 candidates}}
  %0:4 = ukernel.select %i, %i, %i, %i for f32 candidates [#simt] policy fixed = -1
  return
}

// -----

// Invoke on rank-4 operands.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: memref<?x?x?x?xf32>, %i: index) {
  // expected-error @below {{accumulator must be rank 2 (MxN) or 3 (BxMxN), got rank 4}}
  ukernel.invoke #simt ins(%a, %a : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%a : memref<?x?x?x?xf32>) offsets [%i, %i, %i, %i] sizes [%i, %i, %i] masked
  return
}

// -----

// Invoke with mixed ranks.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: memref<?x?xf32>, %c: memref<?x?x?xf32>, %i: index) {
  // expected-error @below {{lhs, rhs and accumulator must have the same rank}}
  ukernel.invoke #simt ins(%a, %a : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?x?xf32>) offsets [%i, %i, %i] sizes [%i, %i, %i] masked
  return
}

// -----

// Invoke transposing batched operands.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: memref<?x?x?xf32>, %i: index) {
  // expected-error @below {{transposed operands are only supported on rank-2 operands}}
  ukernel.invoke #simt transpose_lhs ins(%a, %a : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%a : memref<?x?x?xf32>) offsets [%i, %i, %i] sizes [%i, %i, %i] masked
  return
}

// -----

// Invoke with too few offsets.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: memref<?x?xf32>, %i: index) {
  // expected-error @below {{expects 2 offsets (one per accumulator dimension), got 1}}
  ukernel.invoke #simt ins(%a, %a : memref<?x?xf32>, memref<?x?xf32>) outs(%a : memref<?x?xf32>) offsets [%i] sizes [%i, %i, %i] masked
  return
}

// -----

// Invoke with two sizes.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: memref<?x?xf32>, %i: index) {
  // expected-error @below {{expects 3 sizes (the tile's M, N and K extents), got 2}}
  ukernel.invoke #simt ins(%a, %a : memref<?x?xf32>, memref<?x?xf32>) outs(%a : memref<?x?xf32>) offsets [%i, %i] sizes [%i, %i] masked
  return
}

// -----

// Invoke with mismatched input types.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: memref<?x?xf32>, %b: memref<?x?xf16>, %i: index) {
  // expected-error @below {{lhs element type 'f32' differs from rhs element type 'f16'}}
  ukernel.invoke #simt ins(%a, %b : memref<?x?xf32>, memref<?x?xf16>) outs(%a : memref<?x?xf32>) offsets [%i, %i] sizes [%i, %i, %i] masked
  return
}

// -----

// Invoke with an unsupported type.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: memref<?x?xf8E4M3FN>, %i: index) {
  // expected-error @below {{element type 'f8E4M3FN' is not supported (expected f32, f16, bf16 or f64)}}
  ukernel.invoke #simt ins(%a, %a : memref<?x?xf8E4M3FN>, memref<?x?xf8E4M3FN>) outs(%a : memref<?x?xf8E4M3FN>) offsets [%i, %i] sizes [%i, %i, %i] masked
  return
}

// -----

// f64 products accumulate in f64.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 2, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: memref<?x?xf64>, %c: memref<?x?xf32>, %i: index) {
  // expected-error @below {{accumulator element type must be f64 for f64 inputs (f64 products accumulate in f64), got 'f32'}}
  ukernel.invoke #simt ins(%a, %a : memref<?x?xf64>, memref<?x?xf64>) outs(%c : memref<?x?xf32>) offsets [%i, %i] sizes [%i, %i, %i] masked
  return
}

// -----

// Invoke with a bad accumulator type.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: memref<?x?xf16>, %c: memref<?x?xbf16>, %i: index) {
  // expected-error @below {{accumulator element type must be f32 (the accumulator) or the input element type 'f16', got 'bf16'}}
  ukernel.invoke #simt ins(%a, %a : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xbf16>) offsets [%i, %i] sizes [%i, %i, %i] masked
  return
}

// -----

// Invoke extent over the tile.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: memref<?x?xf32>, %i: index) {
  %c65 = arith.constant 65 : index
  // expected-error @below {{M extent 65 exceeds the configuration's tile M (64)}}
  ukernel.invoke #simt ins(%a, %a : memref<?x?xf32>, memref<?x?xf32>) outs(%a : memref<?x?xf32>) offsets [%i, %i] sizes [%c65, %i, %i] masked
  return
}

// -----

// Unmasked partial tile.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: memref<?x?xf32>, %i: index) {
  %c64 = arith.constant 64 : index
  %c10 = arith.constant 10 : index
  // expected-error @below {{N extent 10 is smaller than the tile's 64: a partial tile must be 'masked'}}
  ukernel.invoke #simt ins(%a, %a : memref<?x?xf32>, memref<?x?xf32>) outs(%a : memref<?x?xf32>) offsets [%i, %i] sizes [%c64, %c10, %i]
  return
}

// -----

// Negative extent.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: memref<?x?xf32>, %i: index) {
  %cm1 = arith.constant -1 : index
  // expected-error @below {{M extent -1 is negative}}
  ukernel.invoke #simt ins(%a, %a : memref<?x?xf32>, memref<?x?xf32>) outs(%a : memref<?x?xf32>) offsets [%i, %i] sizes [%cm1, %i, %i] masked
  return
}

// -----

// Invoke bias without bias_add.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: memref<?x?xf32>, %bias: memref<?xf32>, %i: index) {
  // expected-error @below {{has a bias operand but its epilogue has no 'bias_add' step}}
  ukernel.invoke #simt ins(%a, %a : memref<?x?xf32>, memref<?x?xf32>) outs(%a : memref<?x?xf32>) bias(%bias : memref<?xf32>) offsets [%i, %i] sizes [%i, %i, %i] masked
  return
}

// -----

// Threads not a multiple of the warp size.
module attributes {ukernel.target = #ukernel.target<name = "tiny", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0}>} {
  func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
    // expected-error @below {{candidate #0 (48x8x8 t48 w1x1 tt1x8 v4 s2 simt_fma) does not fit target 'tiny': threads (48) is not a multiple of the warp size (32)}}
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#ukernel.config<tile = 48x8x8, threads = 48, warps = 1x1, thread_tile = 1x8, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>] -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
}

// -----

// More threads than the target allows.
module attributes {ukernel.target = #ukernel.target<name = "tiny", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0}>} {
  func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
    // expected-error @below {{threads (2048) exceed the target's maximum per block (1024)}}
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#ukernel.config<tile = 128x128x8, threads = 2048, warps = 8x8, thread_tile = 4x2, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>] -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
}

// -----

// Warp layout inconsistent with the thread count.
module attributes {ukernel.target = #ukernel.target<name = "tiny", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0}>} {
  func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
    // expected-error @below {{warp layout 2x2 x warp size 32 = 128 threads, but threads is 256}}
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#ukernel.config<tile = 64x64x8, threads = 256, warps = 2x2, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>] -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
}

// -----

// Shared memory over the limit.
module attributes {ukernel.target = #ukernel.target<name = "tiny", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0}>} {
  func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
    // expected-error @below {{shared memory (1024.0 KiB for 8 stages) exceeds the per-block limit (163.0 KiB)}}
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#ukernel.config<tile = 256x256x64, threads = 256, warps = 2x4, thread_tile = 16x16, vector_width = 4, stages = 8, instruction = simt_fma, boundary = mask>] -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
}

// -----

// Registers over the per-thread limit.
module attributes {ukernel.target = #ukernel.target<name = "tiny", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0}>} {
  func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
    // expected-error @below {{registers per thread, above the limit (255)}}
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#ukernel.config<tile = 128x128x8, threads = 64, warps = 1x2, thread_tile = 16x16, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>] -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
}

// -----

// An instruction the target lacks.
module attributes {ukernel.target = #ukernel.target<name = "tiny", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0}>} {
  func.func @f(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
    // expected-error @below {{target tiny (sm_80) has no wgmma instruction}}
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf32>) candidates [#ukernel.config<tile = 64x128x16, threads = 128, warps = 4x1, thread_tile = 8x8, vector_width = 8, stages = 2, instruction = wgmma, boundary = mask>] -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
}

// -----

// An AMD instruction on an NVIDIA target.
module attributes {ukernel.target = #ukernel.target<name = "tiny", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0}>} {
  func.func @f(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
    // expected-error @below {{instruction mfma_32x32x8 is an amd instruction; target tiny is nvidia}}
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf32>) candidates [#ukernel.config<tile = 64x64x8, threads = 128, warps = 2x2, thread_tile = 4x8, vector_width = 4, stages = 2, instruction = mfma_32x32x8, boundary = mask>] -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
}

// -----

// Tensor-core instruction with f32 inputs.
module attributes {ukernel.target = #ukernel.target<name = "tiny", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0}>} {
  func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
    // expected-error @below {{instruction mma_sync_f16 does not accept f32 inputs}}
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#ukernel.config<tile = 64x64x16, threads = 128, warps = 2x2, thread_tile = 4x8, vector_width = 4, stages = 2, instruction = mma_sync_f16, boundary = mask>] -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
}

// -----

// f64 inputs on a GPU whose f64 rate is unknown (no f64_tflops).
module attributes {ukernel.target = #ukernel.target<name = "tiny", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0}>} {
  func.func @f(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %c: tensor<?x?xf64>) -> tensor<?x?xf64> {
    // expected-error @below {{target tiny has no f64 rate for simt_fma (f64_tflops in its target description)}}
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf64>, tensor<?x?xf64>) outs(%c : tensor<?x?xf64>) candidates [#ukernel.config<tile = 64x64x8, threads = 128, warps = 2x2, thread_tile = 4x8, vector_width = 2, stages = 2, instruction = simt_fma, boundary = mask>] -> tensor<?x?xf64>
    return %r : tensor<?x?xf64>
  }
}

// -----

// The same with the rate: valid, and an f64 vector of 4 is 32 bytes, above
// the 16-byte access.
module attributes {ukernel.target = #ukernel.target<name = "tiny", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0}, f64_tflops = 9.7>} {
  func.func @f(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %c: tensor<?x?xf64>) -> tensor<?x?xf64> {
    // expected-error @below {{vector accesses of 4 x f64 = 32 bytes exceed the 16-byte maximum access}}
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf64>, tensor<?x?xf64>) outs(%c : tensor<?x?xf64>) candidates [#ukernel.config<tile = 64x64x8, threads = 128, warps = 2x2, thread_tile = 4x8, vector_width = 2, stages = 2, instruction = simt_fma, boundary = mask>, #ukernel.config<tile = 64x64x8, threads = 128, warps = 2x2, thread_tile = 4x8, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>] -> tensor<?x?xf64>
    return %r : tensor<?x?xf64>
  }
}

// -----

// A CPU kernel on a GPU target.
module attributes {ukernel.target = #ukernel.target<name = "tiny", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0}>} {
  func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
    // expected-error @below {{instruction cpu_fma needs a CPU; target tiny is nvidia}}
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#ukernel.config<tile = 64x64x8, threads = 1, warps = 1x1, thread_tile = 4x8, vector_width = 8, stages = 2, instruction = cpu_fma, boundary = mask>] -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
}

// -----

// A target on the op itself wins over the module's; select checks it too.
func.func @f(%i: index) {
  // expected-error @below {{does not fit target 'tiny': threads (48) is not a multiple of the warp size (32)}}
  %0:4 = ukernel.select %i, %i, %i, %i for f32 candidates [#ukernel.config<tile = 48x8x8, threads = 48, warps = 1x1, thread_tile = 1x8, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>] target #ukernel.target<name = "tiny", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0}>
  return
}

// -----

// Named steps and a fused body together.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{has both named epilogue steps and a fused epilogue body}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) epilogue [relu] fused {
  ^bb0(%acc: f32):
    ukernel.yield %acc : f32
  } candidates [#simt] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
// -----

// Fewer operand kinds than operands.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %s: f32, %t: f32) -> tensor<?x?xf32> {
  // expected-error @below {{has 2 fused epilogue operands but 1 operand kinds}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) fused(%s, %t : f32, f32) [scalar] {
  ^bb0(%acc: f32, %x: f32, %z: f32):
    ukernel.yield %acc : f32
  } candidates [#simt] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
// -----

// A scalar operand that is a tensor.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %v: tensor<?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{fused epilogue operand #0 (scalar) must not be shaped, got 'tensor<?xf32>'}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) fused(%v : tensor<?xf32>) [scalar] {
  ^bb0(%acc: f32, %x: f32):
    %y = arith.addf %acc, %x : f32
    ukernel.yield %y : f32
  } candidates [#simt] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
// -----

// A per_column operand that is not shaped.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %v: f32) -> tensor<?x?xf32> {
  // expected-error @below {{fused epilogue operand #0 (per_column) must be a ranked tensor or memref, got 'f32'}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) fused(%v : f32) [per_column] {
  ^bb0(%acc: f32, %x: f32):
    %y = arith.addf %acc, %x : f32
    ukernel.yield %y : f32
  } candidates [#simt] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
// -----

// A per_column operand of rank 2.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %v: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{fused epilogue operand #0 (per_column) must have rank 1, got 2}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) fused(%v : tensor<?x?xf32>) [per_column] {
  ^bb0(%acc: f32, %x: f32):
    %y = arith.addf %acc, %x : f32
    ukernel.yield %y : f32
  } candidates [#simt] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
// -----

// A per_column operand whose size is not N.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x8xf32>, %c: tensor<?x8xf32>, %v: tensor<9xf32>) -> tensor<?x8xf32> {
  // expected-error @below {{N mismatch: the output has 8 but a per_column epilogue operand has 9}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x8xf32>) outs(%c : tensor<?x8xf32>) fused(%v : tensor<9xf32>) [per_column] {
  ^bb0(%acc: f32, %x: f32):
    %y = arith.addf %acc, %x : f32
    ukernel.yield %y : f32
  } candidates [#simt] -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}
// -----

// A per_row operand whose size is not M.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<4x?xf32>, %b: tensor<?x?xf32>, %c: tensor<4x?xf32>, %v: tensor<5xf32>) -> tensor<4x?xf32> {
  // expected-error @below {{M mismatch: the output has 4 but a per_row epilogue operand has 5}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<4x?xf32>, tensor<?x?xf32>) outs(%c : tensor<4x?xf32>) fused(%v : tensor<5xf32>) [per_row] {
  ^bb0(%acc: f32, %x: f32):
    %y = arith.addf %acc, %x : f32
    ukernel.yield %y : f32
  } candidates [#simt] -> tensor<4x?xf32>
  return %r : tensor<4x?xf32>
}
// -----

// A per_element operand whose shape is not the output's.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<4x?xf32>, %b: tensor<?x?xf32>, %c: tensor<4x?xf32>, %v: tensor<3x?xf32>) -> tensor<4x?xf32> {
  // expected-error @below {{output shape mismatch: the output has 4 but a per_element epilogue operand has 3}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<4x?xf32>, tensor<?x?xf32>) outs(%c : tensor<4x?xf32>) fused(%v : tensor<3x?xf32>) [per_element] {
  ^bb0(%acc: f32, %x: f32):
    %y = arith.addf %acc, %x : f32
    ukernel.yield %y : f32
  } candidates [#simt] -> tensor<4x?xf32>
  return %r : tensor<4x?xf32>
}
// -----

// A per_row operand on a convolution.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?x?x?xf32>, %b: tensor<?x?x?x?xf32>, %c: tensor<?x?x?x?xf32>, %v: tensor<?xf32>) -> tensor<?x?x?x?xf32> {
  // expected-error @below {{fused epilogue operand #0 (per_row) is not supported on a convolution (only per_column and scalar operands are)}}
  %r = ukernel.dispatch conv2d_nhwc ins(%a, %b : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) outs(%c : tensor<?x?x?x?xf32>) fused(%v : tensor<?xf32>) [per_row] {
  ^bb0(%acc: f32, %x: f32):
    %y = arith.addf %acc, %x : f32
    ukernel.yield %y : f32
  } candidates [#simt] -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}
// -----

// A body with the wrong number of arguments.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %s: f32) -> tensor<?x?xf32> {
  // expected-error @below {{fused epilogue body must take 2 arguments (the accumulated value, then one per operand), got 1}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) fused(%s : f32) [scalar] {
  ^bb0(%acc: f32):
    ukernel.yield %acc : f32
  } candidates [#simt] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
// -----

// An accumulated value of neither f32 nor the output's type.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{fused epilogue's accumulated value must be f32 or the output element type 'f32', got 'f16'}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) fused {
  ^bb0(%acc: f16):
    %y = arith.extf %acc : f16 to f32
    ukernel.yield %y : f32
  } candidates [#simt] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
// -----

// A body argument that is not its operand's element.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %v: tensor<?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{fused epilogue body argument #1 must be 'f32' (the operand's element), got 'f16'}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) fused(%v : tensor<?xf32>) [per_column] {
  ^bb0(%acc: f32, %x: f16):
    ukernel.yield %acc : f32
  } candidates [#simt] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
// -----

// A yield of another type than the output's element.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{fused epilogue must yield the output element type 'f32', got 'f16'}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) fused {
  ^bb0(%acc: f32):
    %y = arith.truncf %acc : f32 to f16
    ukernel.yield %y : f16
  } candidates [#simt] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
// -----

// An op that is not elementwise in a fused body.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %t: tensor<4xf32>) -> tensor<?x?xf32> {
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) fused {
  ^bb0(%acc: f32):
    %i = arith.constant 0 : index
    // expected-error @below {{cannot be fused into a micro-kernel's epilogue (only elementwise ops without regions or side effects can)}}
    %e = tensor.extract %t[%i] : tensor<4xf32>
    ukernel.yield %e : f32
  } candidates [#simt] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A body that uses a value from outside it.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %s: f32) -> tensor<?x?xf32> {
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) fused {
  ^bb0(%acc: f32):
    // expected-error @below {{uses a value defined outside the fused epilogue body}}
    %y = arith.addf %acc, %s : f32
    ukernel.yield %y : f32
  } candidates [#simt] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// An unknown operand kind.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %s: f32) -> tensor<?x?xf32> {
  // expected-error @below {{unknown epilogue operand kind 'per_batch' (expected scalar, per_column, per_row or per_element)}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) fused(%s : f32) [per_batch] {
  ^bb0(%acc: f32, %x: f32):
    ukernel.yield %acc : f32
  } candidates [#simt] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A fill of another type than the output's.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{fill must be a float of the output element type 'f32', got 0.000000e+00 : f16}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) fill(0.0 : f16) candidates [#simt] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A tuned region names a candidate the dispatch has.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{tuned region #0 (t.db:5) selects candidate 1, but there are 1 candidates}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [#simt] tuned [#ukernel.tuned<candidate = 1, lower = 1x1x1x1, upper = 1x8x8x8, source = "t.db:5">] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// So does a select's.
#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%i: index) {
  // expected-error @below {{tuned region #1 (t.db:9) selects candidate 3, but there are 1 candidates}}
  %0:4 = ukernel.select %i, %i, %i, %i for f32 candidates [#simt] tuned [#ukernel.tuned<candidate = 0, lower = 1x1x1x1, upper = 1x8x8x8, source = "t.db:5">, #ukernel.tuned<candidate = 3, lower = 1x1x1x1, upper = 1x8x8x8, source = "t.db:9">]
  return
}
