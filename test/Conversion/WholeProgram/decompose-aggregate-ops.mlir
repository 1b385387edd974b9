// RUN: quilt-opt %s -split-input-file --quilt-decompose-aggregate-ops | FileCheck %s

// A softmax after a matmul is what it stands for: a max reduction, the
// exponential of the difference, a sum reduction and a division, each a
// generic that every pipeline lowers; the matmul is left to the front end.
// CHECK-LABEL: func.func @scores
// CHECK: %[[C:.*]] = linalg.matmul
// CHECK-NOT: linalg.softmax
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[C]] :
// CHECK: arith.maxnumf
// CHECK: %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[C]], %[[MAX]] :
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[EXP]] :
// CHECK: arith.addf
// CHECK: %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[EXP]], %[[SUM]] :
// CHECK: arith.divf
// CHECK: return %[[OUT]]
func.func @scores(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %mm = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.softmax dimension(1) ins(%mm : tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// -----

// Along another dimension of a static 3-D tensor.
// CHECK-LABEL: func.func @heads
// CHECK-NOT: linalg.softmax
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: return
func.func @heads(%x: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %o = tensor.empty() : tensor<2x16x8xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<2x16x8xf32>) outs(%o : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  return %s : tensor<2x16x8xf32>
}

// -----

// A pack is the pad, reshape and transpose it stands for; an unpack the
// transpose, reshape and slice.
// CHECK-LABEL: func.func @pack_unpack
// CHECK-NOT: linalg.pack
// CHECK: tensor.pad
// CHECK: tensor.expand_shape
// CHECK: linalg.transpose
// CHECK-NOT: linalg.unpack
// CHECK: linalg.transpose
// CHECK: tensor.collapse_shape
// CHECK: tensor.extract_slice
func.func @pack_unpack(%x: tensor<13x15xf32>, %p: tensor<4x2x4x8xf32>, %y: tensor<13x15xf32>) -> (tensor<4x2x4x8xf32>, tensor<13x15xf32>) {
  %zero = arith.constant 0.0 : f32
  %packed = linalg.pack %x padding_value(%zero : f32) inner_dims_pos = [0, 1] inner_tiles = [4, 8] into %p : tensor<13x15xf32> -> tensor<4x2x4x8xf32>
  %unpacked = linalg.unpack %packed inner_dims_pos = [0, 1] inner_tiles = [4, 8] into %y : tensor<4x2x4x8xf32> -> tensor<13x15xf32>
  return %packed, %unpacked : tensor<4x2x4x8xf32>, tensor<13x15xf32>
}
