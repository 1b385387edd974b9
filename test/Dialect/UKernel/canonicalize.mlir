// RUN: quilt-opt %s -split-input-file --canonicalize | FileCheck %s

// Casts that only erase static sizes fold into the dispatch, whose result
// is cast back to the type its users expect (upstream's pattern for
// destination-style ops crashed on the dispatch's empty epilogue region).
#cfg = #ukernel.config<tile = 24x64x128, threads = 1, warps = 1x1, thread_tile = 6x32, vector_width = 16, stages = 1, instruction = cpu_fma, boundary = mask>
// CHECK-LABEL: func.func @static_operands
// CHECK-SAME: (%[[A:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<4x?xf32>, %[[C:.*]]: tensor<3x?xf32>)
// CHECK: %[[R:.*]] = ukernel.dispatch matmul ins(%[[A]], %[[B]] : tensor<3x4xf32>, tensor<4x?xf32>) outs(%[[C]] : tensor<3x?xf32>) {{.*}} -> tensor<3x?xf32>
// CHECK: return %[[R]] : tensor<3x?xf32>
func.func @static_operands(%a: tensor<3x4xf32>, %b: tensor<4x?xf32>, %c: tensor<3x?xf32>) -> tensor<3x?xf32> {
  %ta = tensor.cast %a : tensor<3x4xf32> to tensor<?x?xf32>
  %tb = tensor.cast %b : tensor<4x?xf32> to tensor<?x?xf32>
  %tc = tensor.cast %c : tensor<3x?xf32> to tensor<?x?xf32>
  %r = ukernel.dispatch matmul ins(%ta, %tb : tensor<?x?xf32>, tensor<?x?xf32>) outs(%tc : tensor<?x?xf32>) candidates [#cfg] -> tensor<?x?xf32>
  %s = tensor.cast %r : tensor<?x?xf32> to tensor<3x?xf32>
  return %s : tensor<3x?xf32>
}

// -----

// With a fused epilogue (its region is kept) and a result whose users keep
// the dynamic type.
#cfg = #ukernel.config<tile = 24x64x128, threads = 1, warps = 1x1, thread_tile = 6x32, vector_width = 16, stages = 1, instruction = cpu_fma, boundary = mask>
// CHECK-LABEL: func.func @fused_dynamic_users
// CHECK: %[[R:.*]] = ukernel.dispatch matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<8x32xf32>) fill(0.000000e+00 : f32) fused(%{{.*}} : tensor<32xf32>) [per_column] {
// CHECK: arith.addf
// CHECK: ukernel.yield
// CHECK: } {{.*}} -> tensor<8x32xf32>
// CHECK: %[[BACK:.*]] = tensor.cast %[[R]] : tensor<8x32xf32> to tensor<?x?xf32>
// CHECK: return %[[BACK]]
func.func @fused_dynamic_users(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<8x32xf32>, %bias: tensor<32xf32>) -> tensor<?x?xf32> {
  %ta = tensor.cast %a : tensor<8x16xf32> to tensor<?x?xf32>
  %tb = tensor.cast %b : tensor<16x32xf32> to tensor<?x?xf32>
  %tc = tensor.cast %c : tensor<8x32xf32> to tensor<?x?xf32>
  %tbias = tensor.cast %bias : tensor<32xf32> to tensor<?xf32>
  %r = ukernel.dispatch matmul ins(%ta, %tb : tensor<?x?xf32>, tensor<?x?xf32>) outs(%tc : tensor<?x?xf32>) fill(0.0 : f32) fused(%tbias : tensor<?xf32>) [per_column] {
  ^bb0(%acc: f32, %x: f32):
    %s = arith.addf %acc, %x : f32
    ukernel.yield %s : f32
  } candidates [#cfg] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A cast that adds static sizes is a check, not a fold: it stays.
#cfg = #ukernel.config<tile = 24x64x128, threads = 1, warps = 1x1, thread_tile = 6x32, vector_width = 16, stages = 1, instruction = cpu_fma, boundary = mask>
// CHECK-LABEL: func.func @refining_cast_stays
// CHECK: %[[T:.*]] = tensor.cast %{{.*}} : tensor<?x?xf32> to tensor<4x4xf32>
// CHECK: ukernel.dispatch matmul ins(%[[T]],
func.func @refining_cast_stays(%a: tensor<?x?xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %t = tensor.cast %a : tensor<?x?xf32> to tensor<4x4xf32>
  %r = ukernel.dispatch matmul ins(%t, %t : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) candidates [#cfg] -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
