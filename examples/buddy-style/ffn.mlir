// A SwiGLU feed-forward block (LLaMA/Qwen style: down(silu(x Wg) * x Wu) + x)
// written the way Buddy Compiler writes model subgraphs: TOSA ops on static
// shapes, batch 1, a main that builds its inputs and prints the result with
// printMemrefF32. Lowered by upstream's tosa-to-linalg passes, then by any
// of Quilt's pipelines (docs/buddy.md).
func.func @ffn(%x: tensor<1x7x16xf32>, %wg: tensor<1x16x24xf32>, %wu: tensor<1x16x24xf32>,
               %wd: tensor<1x24x16xf32>) -> tensor<1x7x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %g = tosa.matmul %x, %wg, %zp, %zp : (tensor<1x7x16xf32>, tensor<1x16x24xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x7x24xf32>
  %u = tosa.matmul %x, %wu, %zp, %zp : (tensor<1x7x16xf32>, tensor<1x16x24xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x7x24xf32>
  %s = tosa.sigmoid %g : (tensor<1x7x24xf32>) -> tensor<1x7x24xf32>
  %silu = tosa.mul %g, %s, %shift : (tensor<1x7x24xf32>, tensor<1x7x24xf32>, tensor<1xi8>) -> tensor<1x7x24xf32>
  %h = tosa.mul %silu, %u, %shift : (tensor<1x7x24xf32>, tensor<1x7x24xf32>, tensor<1xi8>) -> tensor<1x7x24xf32>
  %y = tosa.matmul %h, %wd, %zp, %zp : (tensor<1x7x24xf32>, tensor<1x24x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x7x16xf32>
  %r = tosa.add %y, %x : (tensor<1x7x16xf32>, tensor<1x7x16xf32>) -> tensor<1x7x16xf32>
  return %r : tensor<1x7x16xf32>
}

// Deterministic inputs: element (b, i, j) of a tensor with seed s is
// ((i * 3 + j * 5 + s) mod 11 - 5) / 16.
func.func @pattern(%seed: index, %rows: index, %cols: index) -> tensor<?x?xf32> {
  %t = tensor.generate %rows, %cols {
  ^bb0(%i: index, %j: index):
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c11 = arith.constant 11 : index
    %a = arith.muli %i, %c3 : index
    %b = arith.muli %j, %c5 : index
    %ab = arith.addi %a, %b : index
    %abs = arith.addi %ab, %seed : index
    %r = arith.remui %abs, %c11 : index
    %ri = arith.index_cast %r : index to i32
    %f = arith.sitofp %ri : i32 to f32
    %five = arith.constant 5.0 : f32
    %sixteenth = arith.constant 0.0625 : f32
    %d = arith.subf %f, %five : f32
    %v = arith.mulf %d, %sixteenth : f32
    tensor.yield %v : f32
  } : tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

func.func @batch_of_one(%t: tensor<?x?xf32>, %rows: index, %cols: index) -> tensor<1x?x?xf32> {
  %e = tensor.expand_shape %t [[0, 1], [2]] output_shape [1, %rows, %cols] : tensor<?x?xf32> into tensor<1x?x?xf32>
  return %e : tensor<1x?x?xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c16 = arith.constant 16 : index
  %c24 = arith.constant 24 : index
  %x2 = call @pattern(%c0, %c7, %c16) : (index, index, index) -> tensor<?x?xf32>
  %g2 = call @pattern(%c1, %c16, %c24) : (index, index, index) -> tensor<?x?xf32>
  %u2 = call @pattern(%c2, %c16, %c24) : (index, index, index) -> tensor<?x?xf32>
  %d2 = call @pattern(%c3, %c24, %c16) : (index, index, index) -> tensor<?x?xf32>
  %x3 = call @batch_of_one(%x2, %c7, %c16) : (tensor<?x?xf32>, index, index) -> tensor<1x?x?xf32>
  %g3 = call @batch_of_one(%g2, %c16, %c24) : (tensor<?x?xf32>, index, index) -> tensor<1x?x?xf32>
  %u3 = call @batch_of_one(%u2, %c16, %c24) : (tensor<?x?xf32>, index, index) -> tensor<1x?x?xf32>
  %d3 = call @batch_of_one(%d2, %c24, %c16) : (tensor<?x?xf32>, index, index) -> tensor<1x?x?xf32>
  %x = tensor.cast %x3 : tensor<1x?x?xf32> to tensor<1x7x16xf32>
  %wg = tensor.cast %g3 : tensor<1x?x?xf32> to tensor<1x16x24xf32>
  %wu = tensor.cast %u3 : tensor<1x?x?xf32> to tensor<1x16x24xf32>
  %wd = tensor.cast %d3 : tensor<1x?x?xf32> to tensor<1x24x16xf32>
  %y = call @ffn(%x, %wg, %wu, %wd)
    : (tensor<1x7x16xf32>, tensor<1x16x24xf32>, tensor<1x16x24xf32>, tensor<1x24x16xf32>) -> tensor<1x7x16xf32>
  %p = tensor.cast %y : tensor<1x7x16xf32> to tensor<*xf32>
  call @printMemrefF32(%p) : (tensor<*xf32>) -> ()
  return
}
