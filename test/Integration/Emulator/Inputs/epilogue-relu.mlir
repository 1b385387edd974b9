// The ReLU forms of Inputs/epilogue.mlir, in a module of their own: their
// kernels apply ReLU as arith.maximumf, which NVPTX emits as max.NaN.f32,
// a modifier the emulator does not decode (epilogue-known-failure.test).
// A module the emulator cannot load fails every kernel in it, so these stay
// apart from the GELU and bias forms that run.
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
#id4 = affine_map<(n, h, w, f) -> (n, h, w, f)>
#last = affine_map<(n, h, w, f) -> (f)>

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
