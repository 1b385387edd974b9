// Helpers for the convolution execution tests, appended after
// gemm-helpers.mlir (`cat %s %S/Inputs/gemm-helpers.mlir
// %S/Inputs/conv-helpers.mlir | ...`). Plain loops only, like the GEMM
// helpers: the reference is independent of the code under test.
//
// Tensors are dense 4-D buffers; @flat* view one as a 1 x size matrix, so
// that gemm-helpers' @fill, conversions and @max_error apply unchanged.

func.func @flat(%x: memref<?x?x?x?xf32>) -> memref<?x?xf32> {
  %c1 = arith.constant 1 : index
  %size = func.call @size4(%x) : (memref<?x?x?x?xf32>) -> index
  %v = memref.reinterpret_cast %x to offset: [0], sizes: [%c1, %size], strides: [%size, 1]
      : memref<?x?x?x?xf32> to memref<?x?xf32>
  return %v : memref<?x?xf32>
}

func.func @flat_f16(%x: memref<?x?x?x?xf16>) -> memref<?x?xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %d0 = memref.dim %x, %c0 : memref<?x?x?x?xf16>
  %d1 = memref.dim %x, %c1 : memref<?x?x?x?xf16>
  %d2 = memref.dim %x, %c2 : memref<?x?x?x?xf16>
  %d3 = memref.dim %x, %c3 : memref<?x?x?x?xf16>
  %s0 = arith.muli %d0, %d1 : index
  %s1 = arith.muli %s0, %d2 : index
  %size = arith.muli %s1, %d3 : index
  %v = memref.reinterpret_cast %x to offset: [0], sizes: [%c1, %size], strides: [%size, 1]
      : memref<?x?x?x?xf16> to memref<?x?xf16>
  return %v : memref<?x?xf16>
}

func.func @flat_bf16(%x: memref<?x?x?x?xbf16>) -> memref<?x?xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %d0 = memref.dim %x, %c0 : memref<?x?x?x?xbf16>
  %d1 = memref.dim %x, %c1 : memref<?x?x?x?xbf16>
  %d2 = memref.dim %x, %c2 : memref<?x?x?x?xbf16>
  %d3 = memref.dim %x, %c3 : memref<?x?x?x?xbf16>
  %s0 = arith.muli %d0, %d1 : index
  %s1 = arith.muli %s0, %d2 : index
  %size = arith.muli %s1, %d3 : index
  %v = memref.reinterpret_cast %x to offset: [0], sizes: [%c1, %size], strides: [%size, 1]
      : memref<?x?x?x?xbf16> to memref<?x?xbf16>
  return %v : memref<?x?xbf16>
}

func.func @size4(%x: memref<?x?x?x?xf32>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %d0 = memref.dim %x, %c0 : memref<?x?x?x?xf32>
  %d1 = memref.dim %x, %c1 : memref<?x?x?x?xf32>
  %d2 = memref.dim %x, %c2 : memref<?x?x?x?xf32>
  %d3 = memref.dim %x, %c3 : memref<?x?x?x?xf32>
  %s0 = arith.muli %d0, %d1 : index
  %s1 = arith.muli %s0, %d2 : index
  %s2 = arith.muli %s1, %d3 : index
  return %s2 : index
}

// Input extent along one spatial dimension for `out` output positions:
// (out - 1) * stride + dilation * (filter - 1) + 1.
func.func @input_size(%out: index, %filter: index, %stride: index, %dilation: index) -> index {
  %c1 = arith.constant 1 : index
  %o = arith.subi %out, %c1 : index
  %a = arith.muli %o, %stride : index
  %f = arith.subi %filter, %c1 : index
  %b = arith.muli %f, %dilation : index
  %s = arith.addi %a, %b : index
  %r = arith.addi %s, %c1 : index
  return %r : index
}

// out[n, oh, ow, f] += sum over (r, s, c) of
//   img[n, oh * sh + r * dh, ow * sw + s * dw, c] * fil[r, s, c, f]
func.func @reference_nhwc(%img: memref<?x?x?x?xf32>, %fil: memref<?x?x?x?xf32>,
                          %out: memref<?x?x?x?xf32>, %sh: index, %sw: index,
                          %dh: index, %dw: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %n = memref.dim %out, %c0 : memref<?x?x?x?xf32>
  %oh = memref.dim %out, %c1 : memref<?x?x?x?xf32>
  %ow = memref.dim %out, %c2 : memref<?x?x?x?xf32>
  %f = memref.dim %out, %c3 : memref<?x?x?x?xf32>
  %r = memref.dim %fil, %c0 : memref<?x?x?x?xf32>
  %s = memref.dim %fil, %c1 : memref<?x?x?x?xf32>
  %c = memref.dim %fil, %c2 : memref<?x?x?x?xf32>
  scf.for %in = %c0 to %n step %c1 {
    scf.for %ih = %c0 to %oh step %c1 {
      scf.for %iw = %c0 to %ow step %c1 {
        scf.for %if = %c0 to %f step %c1 {
          %init = memref.load %out[%in, %ih, %iw, %if] : memref<?x?x?x?xf32>
          %sum = scf.for %ir = %c0 to %r step %c1 iter_args(%a0 = %init) -> f32 {
            %a1 = scf.for %is = %c0 to %s step %c1 iter_args(%b0 = %a0) -> f32 {
              %b1 = scf.for %ic = %c0 to %c step %c1 iter_args(%acc = %b0) -> f32 {
                %h0 = arith.muli %ih, %sh : index
                %h1 = arith.muli %ir, %dh : index
                %h = arith.addi %h0, %h1 : index
                %w0 = arith.muli %iw, %sw : index
                %w1 = arith.muli %is, %dw : index
                %w = arith.addi %w0, %w1 : index
                %x = memref.load %img[%in, %h, %w, %ic] : memref<?x?x?x?xf32>
                %y = memref.load %fil[%ir, %is, %ic, %if] : memref<?x?x?x?xf32>
                %xy = arith.mulf %x, %y : f32
                %next = arith.addf %acc, %xy : f32
                scf.yield %next : f32
              }
              scf.yield %b1 : f32
            }
            scf.yield %a1 : f32
          }
          memref.store %sum, %out[%in, %ih, %iw, %if] : memref<?x?x?x?xf32>
        }
      }
    }
  }
  return
}

// out[n, f, oh, ow] += sum over (c, r, s) of
//   img[n, c, oh * sh + r * dh, ow * sw + s * dw] * fil[f, c, r, s]
func.func @reference_nchw(%img: memref<?x?x?x?xf32>, %fil: memref<?x?x?x?xf32>,
                          %out: memref<?x?x?x?xf32>, %sh: index, %sw: index,
                          %dh: index, %dw: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %n = memref.dim %out, %c0 : memref<?x?x?x?xf32>
  %f = memref.dim %out, %c1 : memref<?x?x?x?xf32>
  %oh = memref.dim %out, %c2 : memref<?x?x?x?xf32>
  %ow = memref.dim %out, %c3 : memref<?x?x?x?xf32>
  %c = memref.dim %fil, %c1 : memref<?x?x?x?xf32>
  %r = memref.dim %fil, %c2 : memref<?x?x?x?xf32>
  %s = memref.dim %fil, %c3 : memref<?x?x?x?xf32>
  scf.for %in = %c0 to %n step %c1 {
    scf.for %if = %c0 to %f step %c1 {
      scf.for %ih = %c0 to %oh step %c1 {
        scf.for %iw = %c0 to %ow step %c1 {
          %init = memref.load %out[%in, %if, %ih, %iw] : memref<?x?x?x?xf32>
          %sum = scf.for %ic = %c0 to %c step %c1 iter_args(%a0 = %init) -> f32 {
            %a1 = scf.for %ir = %c0 to %r step %c1 iter_args(%b0 = %a0) -> f32 {
              %b1 = scf.for %is = %c0 to %s step %c1 iter_args(%acc = %b0) -> f32 {
                %h0 = arith.muli %ih, %sh : index
                %h1 = arith.muli %ir, %dh : index
                %h = arith.addi %h0, %h1 : index
                %w0 = arith.muli %iw, %sw : index
                %w1 = arith.muli %is, %dw : index
                %w = arith.addi %w0, %w1 : index
                %x = memref.load %img[%in, %ic, %h, %w] : memref<?x?x?x?xf32>
                %y = memref.load %fil[%if, %ic, %ir, %is] : memref<?x?x?x?xf32>
                %xy = arith.mulf %x, %y : f32
                %next = arith.addf %acc, %xy : f32
                scf.yield %next : f32
              }
              scf.yield %b1 : f32
            }
            scf.yield %a1 : f32
          }
          memref.store %sum, %out[%in, %if, %ih, %iw] : memref<?x?x?x?xf32>
        }
      }
    }
  }
  return
}
