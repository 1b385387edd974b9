// Contractions with a fused elementwise epilogue, for the emulator tests:
// matmul + bias + GELU (erf form), matmul + bias + ReLU, nhwc convolution +
// bias + GELU, nhwc convolution + bias + ReLU and nchw convolution + bias,
// f16 inputs accumulated in f32.
//
// What fuses (convert-linalg-to-ukernel, fuse-epilogues, on by default): on
// tensors, a contraction whose accumulator is a zero linalg.fill and whose
// result has one use, a linalg.generic reading it through an identity map,
// all loops parallel, plus optionally a rank-1 bias along N (a
// convolution's F), computing bias add, ReLU or GELU (erf form), or bias
// add then one of them. Not fused: contractions on memrefs, and one that
// accumulates into a live tensor (Integration/GPU/Inputs/contractions.mlir's
// @ffn_f16): their consumer stays a separate kernel.
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
#id4 = affine_map<(n, h, w, f) -> (n, h, w, f)>
#last = affine_map<(n, h, w, f) -> (f)>
#second = affine_map<(n, f, h, w) -> (f)>

// gelu(X * W + bias), erf form: 0.5 s (1 + erf(s / sqrt(2)))
func.func @mm_bias_gelu_f16(%x: tensor<?x?xf16>, %w: tensor<?x?xf16>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf16>
  %n = tensor.dim %w, %c1 : tensor<?x?xf16>
  %empty = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x?xf16>, tensor<?x?xf16>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%empty : tensor<?x?xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rsqrt2 = arith.constant 0.707106781186547524 : f32
    %s = arith.addf %v, %b : f32
    %t = arith.mulf %s, %rsqrt2 : f32
    %e = math.erf %t : f32
    %p = arith.addf %e, %one : f32
    %hs = arith.mulf %s, %half : f32
    %g = arith.mulf %hs, %p : f32
    linalg.yield %g : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// gelu(conv(I, F) + bias[f]), nhwc, strides 2, dilations 1; the result's
// sizes (N, OH, OW, F) are arguments.
func.func @conv_nhwc_bias_gelu_f16(%i: tensor<?x?x?x?xf16>, %f: tensor<?x?x?x?xf16>, %bias: tensor<?xf32>,
                                   %n: index, %oh: index, %ow: index, %nf: index) -> tensor<?x?x?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty(%n, %oh, %ow, %nf) : tensor<?x?x?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %c = linalg.conv_2d_nhwc_hwcf {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16>) outs(%acc : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %r = linalg.generic {indexing_maps = [#id4, #last, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<?x?x?x?xf32>, tensor<?xf32>) outs(%empty : tensor<?x?x?x?xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rsqrt2 = arith.constant 0.707106781186547524 : f32
    %s = arith.addf %v, %b : f32
    %t = arith.mulf %s, %rsqrt2 : f32
    %e = math.erf %t : f32
    %p = arith.addf %e, %one : f32
    %hs = arith.mulf %s, %half : f32
    %g = arith.mulf %hs, %p : f32
    linalg.yield %g : f32
  } -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// conv(I, F) + bias[f], nchw, strides [1, 2], dilations [2, 1]; the result's
// sizes (N, F, OH, OW) are arguments.
func.func @conv_nchw_bias_f16(%i: tensor<?x?x?x?xf16>, %f: tensor<?x?x?x?xf16>, %bias: tensor<?xf32>,
                              %n: index, %nf: index, %oh: index, %ow: index) -> tensor<?x?x?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty(%n, %nf, %oh, %ow) : tensor<?x?x?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<[2, 1]> : tensor<2xi64>}
    ins(%i, %f : tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16>) outs(%acc : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %r = linalg.generic {indexing_maps = [#id4, #second, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<?x?x?x?xf32>, tensor<?xf32>) outs(%empty : tensor<?x?x?x?xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// relu(X * W + bias)
func.func @mm_bias_relu_f16(%x: tensor<?x?xf16>, %w: tensor<?x?xf16>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf16>
  %n = tensor.dim %w, %c1 : tensor<?x?xf16>
  %empty = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x?xf16>, tensor<?x?xf16>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%empty : tensor<?x?xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %s, %z : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// relu(conv(I, F) + bias[f]), nhwc, strides 2, dilations 1; the result's
// sizes (N, OH, OW, F) are arguments. ReLU as compare and select here: the
// front end recognizes the function, not the ops, so it fuses the same.
func.func @conv_nhwc_bias_relu_f16(%i: tensor<?x?x?x?xf16>, %f: tensor<?x?x?x?xf16>, %bias: tensor<?xf32>,
                                   %n: index, %oh: index, %ow: index, %nf: index) -> tensor<?x?x?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty(%n, %oh, %ow, %nf) : tensor<?x?x?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %c = linalg.conv_2d_nhwc_hwcf {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16>) outs(%acc : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %r = linalg.generic {indexing_maps = [#id4, #last, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<?x?x?x?xf32>, tensor<?xf32>) outs(%empty : tensor<?x?x?x?xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    %z = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %s, %z : f32
    %y = arith.select %pos, %s, %z : f32
    linalg.yield %y : f32
  } -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}
