// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=host-avx2 --convert-linalg-to-ukernel | FileCheck %s

// CHECK-LABEL: func.func @matmul_tensors
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?x?xf32>, %[[C:.*]]: tensor<?x?xf32>)
// CHECK: %[[R:.*]] = ukernel.dispatch matmul ins(%[[A]], %[[B]] : tensor<?x?xf32>, tensor<?x?xf32>) outs(%[[C]] : tensor<?x?xf32>) candidates [#ukernel.config<
// CHECK-SAME: instruction = cpu_fma
// CHECK-NOT: policy
// CHECK-SAME: -> tensor<?x?xf32>
// CHECK-NOT: linalg.matmul
// CHECK: return %[[R]]
func.func @matmul_tensors(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Transposed operands are read from the indexing maps.
// CHECK-LABEL: func.func @matmul_transposed
// CHECK: ukernel.dispatch matmul transpose_lhs transpose_rhs ins(%{{.*}}, %{{.*}} : tensor<64x?xf32>, tensor<?x64xf32>)
func.func @matmul_transposed(%a: tensor<64x?xf32>, %b: tensor<?x64xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %b : tensor<64x?xf32>, tensor<?x64xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// On memrefs the dispatch updates the output in place.
// CHECK-LABEL: func.func @matmul_memrefs
// CHECK: ukernel.dispatch matmul ins(%{{.*}}, %{{.*}} : memref<?x?xbf16>, memref<?x?xbf16>) outs(%{{.*}} : memref<?x?xf32>) candidates
// CHECK-NOT: ->
func.func @matmul_memrefs(%a: memref<?x?xbf16>, %b: memref<?x?xbf16>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xbf16>, memref<?x?xbf16>) outs(%c : memref<?x?xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @batch_matmul
// CHECK: ukernel.dispatch batch_matmul ins(%{{.*}}, %{{.*}} : tensor<?x?x?xf16>, tensor<?x?x?xf16>) outs(%{{.*}} : tensor<?x?x?xf16>)
func.func @batch_matmul(%a: tensor<?x?x?xf16>, %b: tensor<?x?x?xf16>, %c: tensor<?x?x?xf16>) -> tensor<?x?x?xf16> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<?x?x?xf16>, tensor<?x?x?xf16>) outs(%c : tensor<?x?x?xf16>) -> tensor<?x?x?xf16>
  return %0 : tensor<?x?x?xf16>
}

// -----

// Non-unit strides and dilations carry over; unit ones are implied.
// CHECK-LABEL: func.func @conv_nhwc
// CHECK: ukernel.dispatch conv2d_nhwc ins(%{{.*}}, %{{.*}} : tensor<?x?x?x8xf32>, tensor<3x3x8x16xf32>) outs(%{{.*}} : tensor<?x?x?x16xf32>) strides [2, 2] candidates
// CHECK-NOT: dilations
func.func @conv_nhwc(%i: tensor<?x?x?x8xf32>, %f: tensor<3x3x8x16xf32>, %o: tensor<?x?x?x16xf32>) -> tensor<?x?x?x16xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%i, %f : tensor<?x?x?x8xf32>, tensor<3x3x8x16xf32>) outs(%o : tensor<?x?x?x16xf32>) -> tensor<?x?x?x16xf32>
  return %0 : tensor<?x?x?x16xf32>
}

// -----

// CHECK-LABEL: func.func @conv_nchw
// CHECK: ukernel.dispatch conv2d_nchw ins(%{{.*}}, %{{.*}} : tensor<?x8x?x?xf32>, tensor<16x8x3x3xf32>) outs(%{{.*}} : tensor<?x16x?x?xf32>) dilations [2, 2] candidates
func.func @conv_nchw(%i: tensor<?x8x?x?xf32>, %f: tensor<16x8x3x3xf32>, %o: tensor<?x16x?x?xf32>) -> tensor<?x16x?x?xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%i, %f : tensor<?x8x?x?xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<?x16x?x?xf32>) -> tensor<?x16x?x?xf32>
  return %0 : tensor<?x16x?x?xf32>
}

// -----

// A zero-initialized matmul followed by bias + ReLU becomes one dispatch that
// writes the epilogue's output from zero (the fill folds: C is not read), and
// whose fused body is the consumer's, op for op. No fill is left.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>, %[[W:.*]]: tensor<?x?xf32>, %[[BIAS:.*]]: tensor<?xf32>, %[[OUT:.*]]: tensor<?x?xf32>
// CHECK-NOT: linalg.fill
// CHECK: %[[R:.*]] = ukernel.dispatch matmul ins(%[[X]], %[[W]] : {{.*}}) outs(%[[OUT]] : tensor<?x?xf32>) fill(0.000000e+00 : f32) fused(%[[BIAS]] : tensor<?xf32>) [per_column] {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[ACC]], %[[B]] : f32
// CHECK-NEXT:   %[[C0:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   %[[Y:.*]] = arith.maximumf %[[S]], %[[C0]] : f32
// CHECK-NEXT:   ukernel.yield %[[Y]] : f32
// CHECK-NEXT: } candidates
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @matmul_bias_relu(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %bias: tensor<?xf32>, %out: tensor<?x?xf32>, %m: index, %n: index) -> tensor<?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%out : tensor<?x?xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %c0 = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %c0 : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// GELU in the erf form; ReLU spelled as cmpf + select on a batch matmul.
// CHECK-LABEL: func.func @gelu_and_select_relu
// CHECK: ukernel.dispatch matmul {{.*}} fused {
// CHECK: math.erf
// CHECK: ukernel.dispatch batch_matmul {{.*}} fused {
// CHECK: arith.cmpf ogt
// CHECK: arith.select
// CHECK-NOT: linalg.generic
func.func @gelu_and_select_relu(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %out: tensor<?x?xf32>,
                                %bx: tensor<?x?x?xf32>, %bw: tensor<?x?x?xf32>, %bout: tensor<?x?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%out : tensor<?x?xf32>) -> tensor<?x?xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<?x?xf32>) outs(%out : tensor<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %sqrt2 = arith.constant 1.41421356237 : f32
    %t = arith.divf %v, %sqrt2 : f32
    %e = math.erf %t : f32
    %one = arith.constant 1.0 : f32
    %p = arith.addf %one, %e : f32
    %hv = arith.mulf %half, %v : f32
    %y = arith.mulf %hv, %p : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  %bacc = linalg.fill ins(%zero : f32) outs(%bout : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %2 = linalg.batch_matmul ins(%bx, %bw : tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%bacc : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%2 : tensor<?x?x?xf32>) outs(%bout : tensor<?x?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c0 = arith.constant 0.0 : f32
    %gt = arith.cmpf ogt, %v, %c0 : f32
    %r = arith.select %gt, %v, %c0 : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>
  return %1, %3 : tensor<?x?xf32>, tensor<?x?x?xf32>
}

// -----

// The tanh approximation of GELU is fused as what it is: tanh, not erf.
// CHECK-LABEL: func.func @tanh_gelu
// CHECK: ukernel.dispatch matmul {{.*}} fused {
// CHECK-NOT: math.erf
// CHECK: math.tanh
// CHECK: ukernel.yield
// CHECK-NOT: linalg.generic
func.func @tanh_gelu(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %out: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%out : tensor<?x?xf32>) -> tensor<?x?xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<?x?xf32>) outs(%out : tensor<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %c = arith.constant 0.7978845608 : f32
    %k = arith.constant 0.044715 : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %kv3 = arith.mulf %k, %v3 : f32
    %in = arith.addf %v, %kv3 : f32
    %arg = arith.mulf %c, %in : f32
    %t = math.tanh %arg : f32
    %p = arith.addf %one, %t : f32
    %hv = arith.mulf %half, %v : f32
    %y = arith.mulf %hv, %p : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// An accumulator that is not zero-filled keeps the epilogue separate: the
// dispatch accumulates into it and the generic reads the sum.
// CHECK-LABEL: func.func @accumulate_then_relu
// CHECK: %[[MM:.*]] = ukernel.dispatch matmul ins(%{{.*}}, %{{.*}} : {{.*}}) outs(%arg2 : tensor<?x?xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[MM]] : tensor<?x?xf32>)
func.func @accumulate_then_relu(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %c: tensor<?x?xf32>, %out: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<?x?xf32>) outs(%out : tensor<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c0 = arith.constant 0.0 : f32
    %r = arith.maximumf %v, %c0 : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// A static size of 0 leaves nothing to multiply (an empty sum, or no
// output): such products stay linalg, with their fills.
// CHECK-LABEL: func.func @static_empty
// CHECK-NOT: ukernel.dispatch
// CHECK: linalg.fill
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x0xf16>, tensor<0x5xf16>)
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<0x?x?xf32>, tensor<0x?x?xf32>)
// CHECK: linalg.conv_2d_nhwc_hwcf
func.func @static_empty(%a: tensor<4x0xf16>, %b: tensor<0x5xf16>, %ba: tensor<0x?x?xf32>,
                        %bb: tensor<0x?x?xf32>, %bc: tensor<0x?x?xf32>, %in: tensor<?x?x?x?xf32>,
                        %f: tensor<3x3x?x0xf32>, %o: tensor<?x?x?x0xf32>)
    -> (tensor<4x5xf32>, tensor<0x?x?xf32>, tensor<?x?x?x0xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x5xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x0xf16>, tensor<0x5xf16>) outs(%acc : tensor<4x5xf32>) -> tensor<4x5xf32>
  %1 = linalg.batch_matmul ins(%ba, %bb : tensor<0x?x?xf32>, tensor<0x?x?xf32>) outs(%bc : tensor<0x?x?xf32>) -> tensor<0x?x?xf32>
  %2 = linalg.conv_2d_nhwc_hwcf ins(%in, %f : tensor<?x?x?x?xf32>, tensor<3x3x?x0xf32>) outs(%o : tensor<?x?x?x0xf32>) -> tensor<?x?x?x0xf32>
  return %0, %1, %2 : tensor<4x5xf32>, tensor<0x?x?xf32>, tensor<?x?x?x0xf32>
}

// -----

// What the pass does not handle passes through untouched: integer
// contractions, f64 inputs into an f32 output (f64 products accumulate in
// f64), a broadcasting matmul, other linalg ops.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: ukernel.dispatch
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x?xi32>, tensor<?x?xi32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x?xf64>, tensor<?x?xf64>) outs(%{{.*}} : tensor<?x?xf32>)
// CHECK: linalg.matmul indexing_maps
// CHECK: linalg.add
func.func @untouched(%ai: tensor<?x?xi32>, %ci: tensor<?x?xi32>, %ad: tensor<?x?xf64>, %cd: tensor<?x?xf32>,
                     %v: tensor<?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>)
    -> (tensor<?x?xi32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = linalg.matmul ins(%ai, %ai : tensor<?x?xi32>, tensor<?x?xi32>) outs(%ci : tensor<?x?xi32>) -> tensor<?x?xi32>
  %1 = linalg.matmul ins(%ad, %ad : tensor<?x?xf64>, tensor<?x?xf64>) outs(%cd : tensor<?x?xf32>) -> tensor<?x?xf32>
  %2 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%v, %b : tensor<?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  %3 = linalg.add ins(%b, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0, %1, %2, %3 : tensor<?x?xi32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// f64 products get CPU FMA candidates on f64 lanes (4 of AVX2's 256 bits)
// and accumulate in f64; a fused consumer keeps f64.
// CHECK-LABEL: func.func @matmul_f64
// CHECK: ukernel.dispatch matmul ins(%{{.*}}, %{{.*}} : tensor<?x?xf64>, tensor<?x?xf64>) outs(%{{.*}} : tensor<?x?xf64>) fill(0.000000e+00 : f64) fused(%{{.*}} : tensor<?xf64>) [per_column] {
// CHECK-NEXT: ^bb0(%{{.*}}: f64, %{{.*}}: f64):
// CHECK: } candidates [#ukernel.config<{{[^>]*}}vector_width = 4, stages = 1, instruction = cpu_fma
// CHECK-NOT: vector_width = 8
// CHECK: return
func.func @matmul_f64(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %bias: tensor<?xf64>, %e: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %f = linalg.fill ins(%zero : f64) outs(%e : tensor<?x?xf64>) -> tensor<?x?xf64>
  %p = linalg.matmul ins(%a, %b : tensor<?x?xf64>, tensor<?x?xf64>) outs(%f : tensor<?x?xf64>) -> tensor<?x?xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<?x?xf64>, tensor<?xf64>) outs(%e : tensor<?x?xf64>) {
  ^bb0(%v: f64, %w: f64, %o: f64):
    %s = arith.addf %v, %w : f64
    linalg.yield %s : f64
  } -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}

// -----

// A chain: the second matmul reads the first one's fused epilogue.
// CHECK-LABEL: func.func @chained_layers
// CHECK: %[[H:.*]] = ukernel.dispatch matmul {{.*}} fused {
// CHECK: arith.maximumf
// CHECK: ukernel.dispatch matmul ins(%[[H]], %{{.*}} : tensor<?x64xf32>, tensor<64x32xf32>) {{.*}} fused {
// CHECK: arith.maximumf
func.func @chained_layers(%x: tensor<?x16xf32>, %w1: tensor<16x64xf32>, %w2: tensor<64x32xf32>, %m: index) -> tensor<?x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty(%m) : tensor<?x64xf32>
  %a1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %mm1 = linalg.matmul ins(%x, %w1 : tensor<?x16xf32>, tensor<16x64xf32>) outs(%a1 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm1 : tensor<?x64xf32>) outs(%e1 : tensor<?x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c0 = arith.constant 0.0 : f32
    %r = arith.maximumf %v, %c0 : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  %e2 = tensor.empty(%m) : tensor<?x32xf32>
  %a2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %mm2 = linalg.matmul ins(%h, %w2 : tensor<?x64xf32>, tensor<64x32xf32>) outs(%a2 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm2 : tensor<?x32xf32>) outs(%e2 : tensor<?x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c0 = arith.constant 0.0 : f32
    %r = arith.maximumf %v, %c0 : f32
    linalg.yield %r : f32
  } -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// A clamp, written as canonicalization leaves it (constants above the
// consumer): the bound is copied into the body, so the clamp stays a clamp.
// CHECK-LABEL: func.func @clamp_outer_constants
// CHECK: ukernel.dispatch matmul {{.*}} fused(%{{.*}} : tensor<?xf32>) [per_column] {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[ACC]], %[[B]]
// CHECK-NEXT:   %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   %[[R:.*]] = arith.maximumf %[[S]], %[[Z]]
// CHECK-NEXT:   %[[TEN:.*]] = arith.constant 1.000000e+01 : f32
// CHECK-NEXT:   %[[Y:.*]] = arith.minimumf %[[R]], %[[TEN]]
// CHECK-NEXT:   ukernel.yield %[[Y]] : f32
func.func @clamp_outer_constants(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %bias: tensor<?xf32>, %out: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %ten = arith.constant 10.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%out : tensor<?x?xf32>) -> tensor<?x?xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%out : tensor<?x?xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    %y = arith.minimumf %r, %ten : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// A chain of consumers: a scale by a function argument (a scalar operand),
// a residual add of a matrix (linalg.add, generalized) and a per-row
// shift, in one body, in order.
// CHECK-LABEL: func.func @scale_residual_rows
// CHECK-SAME: (%[[X:[^:]*]]: {{.*}}, %[[W:[^:]*]]: {{.*}}, %[[RES:[^:]*]]: tensor<?x?xf32>, %[[ROWS:[^:]*]]: tensor<?xf32>, %[[ALPHA:[^:]*]]: f32
// CHECK: ukernel.dispatch matmul {{.*}} fused(%[[ALPHA]], %[[RES]], %[[ROWS]] : f32, tensor<?x?xf32>, tensor<?xf32>) [scalar, per_element, per_row] {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[A:.*]]: f32, %[[R:.*]]: f32, %[[RW:.*]]: f32):
// CHECK-NEXT:   %[[S:.*]] = arith.mulf %[[ACC]], %[[A]]
// CHECK-NEXT:   %[[T:.*]] = arith.addf %[[S]], %[[R]]
// CHECK-NEXT:   %[[U:.*]] = arith.subf %[[T]], %[[RW]]
// CHECK-NEXT:   ukernel.yield %[[U]] : f32
// CHECK-NOT: linalg.add
// CHECK-NOT: linalg.generic
func.func @scale_residual_rows(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %res: tensor<?x?xf32>, %rows: tensor<?xf32>, %alpha: f32, %out: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%out : tensor<?x?xf32>) -> tensor<?x?xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<?x?xf32>) outs(%out : tensor<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %alpha : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  %2 = linalg.add ins(%1, %res : tensor<?x?xf32>, tensor<?x?xf32>) outs(%out : tensor<?x?xf32>) -> tensor<?x?xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%2, %rows : tensor<?x?xf32>, tensor<?xf32>) outs(%out : tensor<?x?xf32>) {
  ^bb0(%v: f32, %r: f32, %o: f32):
    %s = arith.subf %v, %r : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %3 : tensor<?x?xf32>
}

// -----

// An f16 matmul accumulated in f32 whose epilogue rounds to an f16 output;
// a rank-0 tensor is read once, as a scalar.
// CHECK-LABEL: func.func @f16_output
// CHECK: %[[S:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK: ukernel.dispatch matmul {{.*}} outs(%{{.*}} : tensor<?x?xf16>) fill(0.000000e+00 : f16) fused(%[[S]] : f32) [scalar] {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[K:.*]]: f32):
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: ukernel.yield %{{.*}} : f16
// CHECK: -> tensor<?x?xf16>
func.func @f16_output(%x: tensor<?x?xf16>, %w: tensor<?x?xf16>, %k: tensor<f32>, %acc32: tensor<?x?xf32>, %out: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%acc32 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<?x?xf16>, tensor<?x?xf16>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%0, %k : tensor<?x?xf32>, tensor<f32>) outs(%out : tensor<?x?xf16>) {
  ^bb0(%v: f32, %s: f32, %o: f16):
    %m = arith.mulf %v, %s : f32
    %t = arith.truncf %m : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x?xf16>
  return %1 : tensor<?x?xf16>
}

// -----

// A convolution's bias along its output channels and a ReLU whose zero is
// defined above the consumer.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK: ukernel.dispatch conv2d_nhwc {{.*}} fused(%{{.*}} : tensor<16xf32>) [per_column] {
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK-NOT: linalg.generic
func.func @conv_bias_relu(%i: tensor<?x?x?x8xf32>, %f: tensor<3x3x8x16xf32>, %bias: tensor<16xf32>, %o: tensor<?x?x?x16xf32>) -> tensor<?x?x?x16xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%o : tensor<?x?x?x16xf32>) -> tensor<?x?x?x16xf32>
  %0 = linalg.conv_2d_nhwc_hwcf ins(%i, %f : tensor<?x?x?x8xf32>, tensor<3x3x8x16xf32>) outs(%acc : tensor<?x?x?x16xf32>) -> tensor<?x?x?x16xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0, %bias : tensor<?x?x?x16xf32>, tensor<16xf32>) outs(%o : tensor<?x?x?x16xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?x16xf32>
  return %1 : tensor<?x?x?x16xf32>
}

// -----

// Consumers that are not elementwise on the result stay as they are: one
// that reads the result transposed, and one that reads its own output.
// CHECK-LABEL: func.func @not_fusable
// CHECK: %[[MM:.*]] = ukernel.dispatch matmul
// CHECK-NOT: fused
// CHECK: linalg.generic {{.*}} ins(%[[MM]] : tensor<?x?xf32>)
// CHECK: %[[MM2:.*]] = ukernel.dispatch matmul
// CHECK-NOT: fused
// CHECK: linalg.generic {{.*}} ins(%[[MM2]] : tensor<?x?xf32>)
func.func @not_fusable(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %out: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%out : tensor<?x?xf32>) -> tensor<?x?xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<?x?xf32>) outs(%out : tensor<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %2 = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%2 : tensor<?x?xf32>) outs(%out : tensor<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %1, %3 : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// examples/bert-ffn.mlir keeps both fusions after --canonicalize --cse,
// which hoists its constants out of the consumers.
// RUN: quilt-opt %quilt_src_root/examples/bert-ffn.mlir --canonicalize --cse \
// RUN:   | quilt-opt --ukernel-attach-target=target=host --convert-linalg-to-ukernel \
// RUN:   | FileCheck %s --check-prefix=BERT
// BERT-LABEL: func.func @bert_ffn
// BERT: ukernel.dispatch matmul {{.*}} fused(%{{.*}} : tensor<3072xf32>) [per_column] {
// BERT: math.erf
// BERT: ukernel.dispatch matmul {{.*}} fused(%{{.*}} : tensor<768xf32>) [per_column] {
// BERT-NOT: linalg.generic

// -----

// A fill of another constant folds too: C starts as it. A fill that
// something else also reads stays for that reader.
// CHECK-LABEL: func.func @fill_folds
// CHECK-SAME: (%[[X:[^:]*]]: {{.*}}, %[[W:[^:]*]]: {{.*}}, %[[OUT:[^:]*]]: tensor<?x?xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[OUT]]
// CHECK: %[[R:.*]] = ukernel.dispatch matmul ins(%[[X]], %[[W]] : {{.*}}) outs(%[[OUT]] : tensor<?x?xf32>) fill(2.500000e-01 : f32) candidates
// CHECK: return %[[R]], %[[F]]
func.func @fill_folds(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %out: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %q = arith.constant 0.25 : f32
  %acc = linalg.fill ins(%q : f32) outs(%out : tensor<?x?xf32>) -> tensor<?x?xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0, %acc : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// Consumers that write into the value they read (what
// convert-elementwise-to-linalg makes of arith on whole tensors: the init
// only gives the shape) are fused; the product's own destination is the
// dispatch's.
// CHECK-LABEL: func.func @init_is_the_read_value
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?x?xf32>, %[[R:.*]]: tensor<?x?xf32>)
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: %[[D:.*]] = ukernel.dispatch matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[E]] : tensor<?x?xf32>) fill(0.000000e+00 : f32) fused(%[[R]] : tensor<?x?xf32>) [per_element] {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[X:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[S]] : f32
// CHECK-NEXT: ukernel.yield %[[T]] : f32
// CHECK: return %[[D]]
// CHECK-NOT: linalg.generic
#id = affine_map<(i, j) -> (i, j)>
func.func @init_is_the_read_value(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %r: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %c = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %r : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %v = arith.addf %x, %y : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<?x?xf32>) outs(%s : tensor<?x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %v = math.tanh %x : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

// -----

// A named elementwise op that cannot join (it reads the product
// transposed) is left as it was written, not generalized.
// CHECK-LABEL: func.func @named_not_fusable_stays_named
// CHECK: ukernel.dispatch matmul
// CHECK: linalg.elementwise kind=#linalg.elementwise_kind<add>
// CHECK-NOT: linalg.generic
func.func @named_not_fusable_stays_named(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %r: tensor<?x?xf32>, %o: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %c = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.elementwise kind=#linalg.elementwise_kind<add>
      indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>]
      ins(%c, %r : tensor<?x?xf32>, tensor<?x?xf32>) outs(%o : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// -----

// The dispatch would take the consumer's place, after a store through a
// buffer of the product's operand (an in-place cache update): the product
// would read the updated A. It stays where it is, unfused, and the
// consumer stays a generic after the store.
// CHECK-LABEL: func.func @no_fusion_across_a_write
// CHECK: %[[R:.*]] = ukernel.dispatch matmul
// CHECK-NOT: fused
// CHECK: memref.store
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]]
func.func @no_fusion_across_a_write(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %v: f32) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  %xb = bufferization.to_buffer %x : tensor<4x8xf32> to memref<4x8xf32>
  memref.store %v, %xb[%c0, %c0] : memref<4x8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// -----

// A consumer inside a loop is not fused: the dispatch would move into the
// loop and multiply once per iteration.
// CHECK-LABEL: func.func @no_fusion_into_a_loop
// CHECK: %[[R:.*]] = ukernel.dispatch matmul
// CHECK-NOT: fused
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]]
func.func @no_fusion_into_a_loop(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %n: index) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %e) -> tensor<4x16xf32> {
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%0 : tensor<4x16xf32>) outs(%it : tensor<4x16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.addf %a, %o : f32
      linalg.yield %s : f32
    } -> tensor<4x16xf32>
    scf.yield %1 : tensor<4x16xf32>
  }
  return %r : tensor<4x16xf32>
}
