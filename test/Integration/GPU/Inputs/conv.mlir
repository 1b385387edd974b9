// A convolution with strides and dilations, run on GPUs as an implicit GEMM.
func.func @conv(%i: memref<?x?x?x?xf16>, %f: memref<?x?x?x?xf16>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[2, 1]> : tensor<2xi64>, dilations = dense<[1, 2]> : tensor<2xi64>}
    ins(%i, %f : memref<?x?x?x?xf16>, memref<?x?x?x?xf16>) outs(%o : memref<?x?x?x?xf32>)
  return
}
