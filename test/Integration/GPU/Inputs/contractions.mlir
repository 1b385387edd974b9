// Dynamic-shape contractions of every GPU kernel family, for the device
// code checks: an f16 matmul (tensor cores), an f32 batch matmul
// with a transposed B (SIMT), a fused bias + GELU epilogue, and two
// convolutions as implicit GEMMs (f16 nhwc with strides, f32 nchw with
// strides and dilations).
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>

func.func @mm_f16(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
  return
}

func.func @bmm_f32(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)
  return
}

func.func @ffn_f16(%x: tensor<?x?xf16>, %w: tensor<?x?xf16>, %bias: tensor<?xf32>, %acc: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %mm = linalg.matmul ins(%x, %w : tensor<?x?xf16>, tensor<?x?xf16>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%acc : tensor<?x?xf32>) {
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

func.func @conv_nhwc_f16(%i: memref<?x?x?x?xf16>, %f: memref<?x?x?x?xf16>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%i, %f : memref<?x?x?x?xf16>, memref<?x?x?x?xf16>) outs(%o : memref<?x?x?x?xf32>)
  return
}

func.func @conv_nchw_f32(%i: memref<?x?x?x?xf32>, %f: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nchw_fchw {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<[2, 1]> : tensor<2xi64>}
    ins(%i, %f : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%o : memref<?x?x?x?xf32>)
  return
}
