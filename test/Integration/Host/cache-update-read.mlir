// A buffer updated in place through `bufferization.to_buffer` and read
// again through the same buffer, as exporters write a KV-cache update and
// the attention loop after it (Buddy Compiler's DeepSeek decode step). Both
// reads must see the stored row: Quilt's pipeline and the upstream lowering
// print the same numbers. Before the fix, the canonicalizer ahead of
// bufferization turned the loop's `memref.load`s of the buffer into
// `tensor.extract`s of the tensor it came from, and bufferization gave the
// stores a copy: the reader saw the cache as it was before the update.
//
// @update_then_read is the minimal program; @project_update_attend has a
// product on each side (the new row is x * W; the rows read back are
// multiplied by a weight, with a fused bias) and an elementwise consumer.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void \
// DEFINE:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%quilt_runtime
// RUN: quilt-opt %s --quilt-lower-to-host="target=host" | %{run} | FileCheck %s
// RUN: quilt-opt %s --quilt-lower-to-host-upstream | %{run} | FileCheck %s

// Cache of ones, row 3 overwritten with 16s: each column sums to 19.
// CHECK-LABEL: update_then_read
// CHECK: [19,  19,  19,  19,  19,  19,  19,  19]
// The returned cache holds the new row.
// CHECK: [1,   1,   1,   1,   1,   1,   1,   1]
// CHECK: [1,   1,   1,   1,   1,   1,   1,   1]
// CHECK: [1,   1,   1,   1,   1,   1,   1,   1]
// CHECK: [16,   16,   16,   16,   16,   16,   16,   16]

// x = [1 2], W = [[1 0 1 0], [0 1 0 1]]: the new row 2 is [1 2 1 2]; rows
// 0 and 1 hold ones. Column sums [3 4 3 4] times V = [[1 1], [1 -1],
// [2 0], [0 2]] give [13 7], plus the bias [0.5 0.5], through ReLU, then
// doubled by the consumer: [27 15].
// CHECK-LABEL: project_update_attend
// CHECK: {{\[}}[27,   15]]

func.func @update_then_read(%cache: tensor<4x8xf32>, %row: memref<8xf32>,
                            %sums: memref<8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %cb = bufferization.to_buffer %cache : tensor<4x8xf32> to memref<4x8xf32>
  scf.for %j = %c0 to %c8 step %c1 {
    %v = memref.load %row[%j] : memref<8xf32>
    memref.store %v, %cb[%c3, %j] : memref<4x8xf32>
  }
  %updated = bufferization.to_tensor %cb restrict : memref<4x8xf32> to tensor<4x8xf32>
  scf.for %j = %c0 to %c8 step %c1 {
    %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> f32 {
      %x = memref.load %cb[%i, %j] : memref<4x8xf32>
      %a = arith.addf %acc, %x : f32
      scf.yield %a : f32
    }
    memref.store %s, %sums[%j] : memref<8xf32>
  }
  return %updated : tensor<4x8xf32>
}

#map_rows = affine_map<(i, j) -> (i, j)>
#map_bias = affine_map<(i, j) -> (j)>

func.func @project_update_attend(%x: tensor<1x2xf32>, %w: tensor<2x4xf32>,
                                 %cache: tensor<3x4xf32>, %v: tensor<4x2xf32>,
                                 %bias: tensor<2xf32>) -> tensor<1x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  // The new row: a product.
  %empty_row = tensor.empty() : tensor<1x4xf32>
  %row_init = linalg.fill ins(%zero : f32) outs(%empty_row : tensor<1x4xf32>) -> tensor<1x4xf32>
  %new_row = linalg.matmul ins(%x, %w : tensor<1x2xf32>, tensor<2x4xf32>)
                           outs(%row_init : tensor<1x4xf32>) -> tensor<1x4xf32>
  // Stored into the cache in place, then read back through the buffer.
  %cb = bufferization.to_buffer %cache : tensor<3x4xf32> to memref<3x4xf32>
  scf.for %j = %c0 to %c4 step %c1 {
    %e = tensor.extract %new_row[%c0, %j] : tensor<1x4xf32>
    memref.store %e, %cb[%c2, %j] : memref<3x4xf32>
  }
  %sums_buf = memref.alloc() : memref<1x4xf32>
  scf.for %j = %c0 to %c4 step %c1 {
    %s = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> f32 {
      %e = memref.load %cb[%i, %j] : memref<3x4xf32>
      %a = arith.addf %acc, %e : f32
      scf.yield %a : f32
    }
    memref.store %s, %sums_buf[%c0, %j] : memref<1x4xf32>
  }
  %sums = bufferization.to_tensor %sums_buf restrict : memref<1x4xf32> to tensor<1x4xf32>
  // A product of what was read, with a fused bias and ReLU, and an
  // elementwise consumer after it.
  %empty_out = tensor.empty() : tensor<1x2xf32>
  %out_init = linalg.fill ins(%zero : f32) outs(%empty_out : tensor<1x2xf32>) -> tensor<1x2xf32>
  %prod = linalg.matmul ins(%sums, %v : tensor<1x4xf32>, tensor<4x2xf32>)
                        outs(%out_init : tensor<1x2xf32>) -> tensor<1x2xf32>
  %biased = linalg.generic {indexing_maps = [#map_rows, #map_bias, #map_rows],
                            iterator_types = ["parallel", "parallel"]}
      ins(%prod, %bias : tensor<1x2xf32>, tensor<2xf32>) outs(%empty_out : tensor<1x2xf32>) {
  ^bb0(%p: f32, %b: f32, %o: f32):
    %s = arith.addf %p, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x2xf32>
  %doubled = linalg.generic {indexing_maps = [#map_rows, #map_rows],
                             iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<1x2xf32>) outs(%empty_out : tensor<1x2xf32>) {
  ^bb0(%p: f32, %o: f32):
    %d = arith.mulf %p, %two : f32
    linalg.yield %d : f32
  } -> tensor<1x2xf32>
  memref.dealloc %sums_buf : memref<1x4xf32>
  return %doubled : tensor<1x2xf32>
}

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printString(!llvm.ptr)

llvm.mlir.global internal constant @first("update_then_read\0A\00")
llvm.mlir.global internal constant @second("project_update_attend\0A\00")

func.func @main() {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %sixteen = arith.constant 16.0 : f32

  %cache = arith.constant dense<1.0> : tensor<4x8xf32>
  %row = memref.alloc() : memref<8xf32>
  linalg.fill ins(%sixteen : f32) outs(%row : memref<8xf32>)
  %sums = memref.alloc() : memref<8xf32>
  %updated = call @update_then_read(%cache, %row, %sums)
      : (tensor<4x8xf32>, memref<8xf32>, memref<8xf32>) -> tensor<4x8xf32>
  %p1 = llvm.mlir.addressof @first : !llvm.ptr
  call @printString(%p1) : (!llvm.ptr) -> ()
  %sums_u = memref.cast %sums : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%sums_u) : (memref<*xf32>) -> ()
  %updated_buf = bufferization.to_buffer %updated : tensor<4x8xf32> to memref<4x8xf32>
  %updated_u = memref.cast %updated_buf : memref<4x8xf32> to memref<*xf32>
  call @printMemrefF32(%updated_u) : (memref<*xf32>) -> ()

  %x = arith.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %w = arith.constant dense<[[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]]> : tensor<2x4xf32>
  %kv = arith.constant dense<1.0> : tensor<3x4xf32>
  %v = arith.constant dense<[[1.0, 1.0], [1.0, -1.0], [2.0, 0.0], [0.0, 2.0]]> : tensor<4x2xf32>
  %bias = arith.constant dense<0.5> : tensor<2xf32>
  %out = call @project_update_attend(%x, %w, %kv, %v, %bias)
      : (tensor<1x2xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  %p2 = llvm.mlir.addressof @second : !llvm.ptr
  call @printString(%p2) : (!llvm.ptr) -> ()
  %out_buf = bufferization.to_buffer %out : tensor<1x2xf32> to memref<1x2xf32>
  %out_u = memref.cast %out_buf : memref<1x2xf32> to memref<*xf32>
  call @printMemrefF32(%out_u) : (memref<*xf32>) -> ()
  memref.dealloc %row : memref<8xf32>
  memref.dealloc %sums : memref<8xf32>
  return
}
