// The convolutions of conv.mlir with bf16 operands (f32 output), for
// conv-bf16.test.
func.func @conv_nhwc_bf16(%i: memref<?x?x?x?xbf16>, %f: memref<?x?x?x?xbf16>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%i, %f : memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>) outs(%o : memref<?x?x?x?xf32>)
  return
}

func.func @conv_nchw_bf16(%i: memref<?x?x?x?xbf16>, %f: memref<?x?x?x?xbf16>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nchw_fchw {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<[2, 1]> : tensor<2xi64>}
    ins(%i, %f : memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>) outs(%o : memref<?x?x?x?xf32>)
  return
}
