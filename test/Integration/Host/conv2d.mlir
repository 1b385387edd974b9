// Convolutions on the host as implicit GEMMs, both layouts, against plain
// loop nests (Inputs/conv-helpers.mlir): unit, strided, dilated and mixed
// strides/dilations in f32, and f16/bf16 inputs with f32 or same-type
// outputs (an nchw or low-precision output is accumulated in an f32 copy,
// an f32 nhwc output in place). Shapes (N, OH, OW, C, F, R, S) include 0, 1,
// primes, 1x1 and 7x7 filters, and GEMM views (M = N*OH*OW, N = F,
// K = C*R*S) past every cache block of the host candidates (M = 1300,
// K = 360). The output starts non-zero, so accumulation is checked too.
//
// DEFINE: %{options} = target=host max-candidates=3 buffer-deallocation=false
// DEFINE: %{run} = cat %s %S/Inputs/gemm-helpers.mlir %S/Inputs/conv-helpers.mlir \
// DEFINE:   | quilt-opt --quilt-lower-to-host="%{options}" \
// DEFINE:   | mlir-runner -e main -entry-point-result=void \
// DEFINE:       -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%quilt_runtime \
// DEFINE:   | FileCheck %s
//
// RUN: %{run}
// REDEFINE: %{options} = target=host max-candidates=3 buffer-deallocation=false policy=patch
// RUN: %{run}
// REDEFINE: %{options} = target=host max-candidates=3 buffer-deallocation=false policy=fixed=1
// RUN: %{run}

// CHECK-COUNT-44: case
// CHECK: max error
// CHECK-NEXT: PASS

// N, OH, OW, C, F, R, S
memref.global "private" constant @shapes : memref<11x7xi64> = dense<[
  [0, 3, 3, 2, 4, 3, 3], [1, 1, 1, 1, 1, 1, 1], [1, 5, 7, 3, 0, 3, 3],
  [2, 4, 3, 0, 5, 2, 2], [1, 7, 11, 13, 17, 3, 3], [2, 9, 5, 8, 33, 3, 2],
  [3, 13, 17, 5, 19, 1, 1], [1, 2, 31, 16, 64, 5, 3], [2, 23, 19, 3, 7, 7, 7],
  [4, 1, 1, 29, 67, 2, 3], [2, 25, 26, 40, 37, 3, 3]]>

// Strides and dilations (H, W) of the variants @nhwc_v<i> and @nchw_v<i>.
memref.global "private" constant @variants : memref<4x4xi64> = dense<[
  [1, 1, 1, 1], [2, 3, 1, 1], [1, 1, 2, 3], [3, 2, 2, 1]]>

func.func @nhwc_v0(%i: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nhwc_hwcf
      ins(%i, %k : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%o : memref<?x?x?x?xf32>)
  return
}

func.func @nhwc_v1(%i: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[2, 3]> : tensor<2xi64>}
      ins(%i, %k : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%o : memref<?x?x?x?xf32>)
  return
}

func.func @nhwc_v2(%i: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<[2, 3]> : tensor<2xi64>}
      ins(%i, %k : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%o : memref<?x?x?x?xf32>)
  return
}

func.func @nhwc_v3(%i: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[3, 2]> : tensor<2xi64>}
      ins(%i, %k : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%o : memref<?x?x?x?xf32>)
  return
}

func.func @nchw_v0(%i: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nchw_fchw
      ins(%i, %k : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%o : memref<?x?x?x?xf32>)
  return
}

func.func @nchw_v1(%i: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nchw_fchw {strides = dense<[2, 3]> : tensor<2xi64>}
      ins(%i, %k : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%o : memref<?x?x?x?xf32>)
  return
}

func.func @nchw_v2(%i: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<[2, 3]> : tensor<2xi64>}
      ins(%i, %k : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%o : memref<?x?x?x?xf32>)
  return
}

func.func @nchw_v3(%i: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[3, 2]> : tensor<2xi64>}
      ins(%i, %k : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%o : memref<?x?x?x?xf32>)
  return
}

func.func @nhwc_v1_f16_f32(%i: memref<?x?x?x?xf16>, %k: memref<?x?x?x?xf16>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[2, 3]> : tensor<2xi64>}
      ins(%i, %k : memref<?x?x?x?xf16>, memref<?x?x?x?xf16>) outs(%o : memref<?x?x?x?xf32>)
  return
}

func.func @nhwc_v3_bf16_bf16(%i: memref<?x?x?x?xbf16>, %k: memref<?x?x?x?xbf16>, %o: memref<?x?x?x?xbf16>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[3, 2]> : tensor<2xi64>}
      ins(%i, %k : memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>) outs(%o : memref<?x?x?x?xbf16>)
  return
}

func.func @nchw_v2_bf16_f32(%i: memref<?x?x?x?xbf16>, %k: memref<?x?x?x?xbf16>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<[2, 3]> : tensor<2xi64>}
      ins(%i, %k : memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>) outs(%o : memref<?x?x?x?xf32>)
  return
}

func.func @nchw_v0_f16_f16(%i: memref<?x?x?x?xf16>, %k: memref<?x?x?x?xf16>, %o: memref<?x?x?x?xf16>) {
  linalg.conv_2d_nchw_fchw
      ins(%i, %k : memref<?x?x?x?xf16>, memref<?x?x?x?xf16>) outs(%o : memref<?x?x?x?xf16>)
  return
}

// The f32 convolution of variant %v, in each layout.
func.func @run_f32(%v: index, %nhwc: i1, %i: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  scf.if %nhwc {
    scf.index_switch %v
    case 0 { func.call @nhwc_v0(%i, %k, %o) : (memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) -> ()
             scf.yield }
    case 1 { func.call @nhwc_v1(%i, %k, %o) : (memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) -> ()
             scf.yield }
    case 2 { func.call @nhwc_v2(%i, %k, %o) : (memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) -> ()
             scf.yield }
    default { func.call @nhwc_v3(%i, %k, %o) : (memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) -> () }
  } else {
    scf.index_switch %v
    case 0 { func.call @nchw_v0(%i, %k, %o) : (memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) -> ()
             scf.yield }
    case 1 { func.call @nchw_v1(%i, %k, %o) : (memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) -> ()
             scf.yield }
    case 2 { func.call @nchw_v2(%i, %k, %o) : (memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) -> ()
             scf.yield }
    default { func.call @nchw_v3(%i, %k, %o) : (memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) -> () }
  }
  return
}

// Low-precision inputs with an f32 output (nhwc variant 1: f16; nchw
// variant 2: bf16). `init` is the output's initial value, `ref` the f32
// reference; returns the largest error.
func.func @lowp_f32_out(%nhwc: i1, %i: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>,
                        %init: memref<?x?x?x?xf32>, %ref: memref<?x?x?x?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %i0 = memref.dim %i, %c0 : memref<?x?x?x?xf32>
  %i1 = memref.dim %i, %c1 : memref<?x?x?x?xf32>
  %i2 = memref.dim %i, %c2 : memref<?x?x?x?xf32>
  %i3 = memref.dim %i, %c3 : memref<?x?x?x?xf32>
  %k0 = memref.dim %k, %c0 : memref<?x?x?x?xf32>
  %k1 = memref.dim %k, %c1 : memref<?x?x?x?xf32>
  %k2 = memref.dim %k, %c2 : memref<?x?x?x?xf32>
  %k3 = memref.dim %k, %c3 : memref<?x?x?x?xf32>
  %fi = func.call @flat(%i) : (memref<?x?x?x?xf32>) -> memref<?x?xf32>
  %fk = func.call @flat(%k) : (memref<?x?x?x?xf32>) -> memref<?x?xf32>
  %fo = func.call @flat(%init) : (memref<?x?x?x?xf32>) -> memref<?x?xf32>
  %fr = func.call @flat(%ref) : (memref<?x?x?x?xf32>) -> memref<?x?xf32>
  scf.if %nhwc {
    %ih = memref.alloc(%i0, %i1, %i2, %i3) : memref<?x?x?x?xf16>
    %kh = memref.alloc(%k0, %k1, %k2, %k3) : memref<?x?x?x?xf16>
    %fih = func.call @flat_f16(%ih) : (memref<?x?x?x?xf16>) -> memref<?x?xf16>
    %fkh = func.call @flat_f16(%kh) : (memref<?x?x?x?xf16>) -> memref<?x?xf16>
    func.call @to_f16(%fi, %fih) : (memref<?x?xf32>, memref<?x?xf16>) -> ()
    func.call @to_f16(%fk, %fkh) : (memref<?x?xf32>, memref<?x?xf16>) -> ()
    func.call @nhwc_v1_f16_f32(%ih, %kh, %init) : (memref<?x?x?x?xf16>, memref<?x?x?x?xf16>, memref<?x?x?x?xf32>) -> ()
  } else {
    %ib = memref.alloc(%i0, %i1, %i2, %i3) : memref<?x?x?x?xbf16>
    %kb = memref.alloc(%k0, %k1, %k2, %k3) : memref<?x?x?x?xbf16>
    %fib = func.call @flat_bf16(%ib) : (memref<?x?x?x?xbf16>) -> memref<?x?xbf16>
    %fkb = func.call @flat_bf16(%kb) : (memref<?x?x?x?xbf16>) -> memref<?x?xbf16>
    func.call @to_bf16(%fi, %fib) : (memref<?x?xf32>, memref<?x?xbf16>) -> ()
    func.call @to_bf16(%fk, %fkb) : (memref<?x?xf32>, memref<?x?xbf16>) -> ()
    func.call @nchw_v2_bf16_f32(%ib, %kb, %init) : (memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>, memref<?x?x?x?xf32>) -> ()
  }
  %e = func.call @max_error(%fo, %fr) : (memref<?x?xf32>, memref<?x?xf32>) -> f32
  return %e : f32
}

// Low-precision inputs and output (nhwc variant 3: bf16; nchw variant 0:
// f16), against the reference rounded the same way.
func.func @lowp_out(%nhwc: i1, %i: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>,
                    %init: memref<?x?x?x?xf32>, %ref: memref<?x?x?x?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %i0 = memref.dim %i, %c0 : memref<?x?x?x?xf32>
  %i1 = memref.dim %i, %c1 : memref<?x?x?x?xf32>
  %i2 = memref.dim %i, %c2 : memref<?x?x?x?xf32>
  %i3 = memref.dim %i, %c3 : memref<?x?x?x?xf32>
  %k0 = memref.dim %k, %c0 : memref<?x?x?x?xf32>
  %k1 = memref.dim %k, %c1 : memref<?x?x?x?xf32>
  %k2 = memref.dim %k, %c2 : memref<?x?x?x?xf32>
  %k3 = memref.dim %k, %c3 : memref<?x?x?x?xf32>
  %o0 = memref.dim %init, %c0 : memref<?x?x?x?xf32>
  %o1 = memref.dim %init, %c1 : memref<?x?x?x?xf32>
  %o2 = memref.dim %init, %c2 : memref<?x?x?x?xf32>
  %o3 = memref.dim %init, %c3 : memref<?x?x?x?xf32>
  %fi = func.call @flat(%i) : (memref<?x?x?x?xf32>) -> memref<?x?xf32>
  %fk = func.call @flat(%k) : (memref<?x?x?x?xf32>) -> memref<?x?xf32>
  %fo = func.call @flat(%init) : (memref<?x?x?x?xf32>) -> memref<?x?xf32>
  %fr = func.call @flat(%ref) : (memref<?x?x?x?xf32>) -> memref<?x?xf32>
  %got4 = memref.alloc(%o0, %o1, %o2, %o3) : memref<?x?x?x?xf32>
  %want4 = memref.alloc(%o0, %o1, %o2, %o3) : memref<?x?x?x?xf32>
  %got = func.call @flat(%got4) : (memref<?x?x?x?xf32>) -> memref<?x?xf32>
  %want = func.call @flat(%want4) : (memref<?x?x?x?xf32>) -> memref<?x?xf32>
  scf.if %nhwc {
    %ib = memref.alloc(%i0, %i1, %i2, %i3) : memref<?x?x?x?xbf16>
    %kb = memref.alloc(%k0, %k1, %k2, %k3) : memref<?x?x?x?xbf16>
    %ob = memref.alloc(%o0, %o1, %o2, %o3) : memref<?x?x?x?xbf16>
    %rb = memref.alloc(%o0, %o1, %o2, %o3) : memref<?x?x?x?xbf16>
    %fib = func.call @flat_bf16(%ib) : (memref<?x?x?x?xbf16>) -> memref<?x?xbf16>
    %fkb = func.call @flat_bf16(%kb) : (memref<?x?x?x?xbf16>) -> memref<?x?xbf16>
    %fob = func.call @flat_bf16(%ob) : (memref<?x?x?x?xbf16>) -> memref<?x?xbf16>
    %frb = func.call @flat_bf16(%rb) : (memref<?x?x?x?xbf16>) -> memref<?x?xbf16>
    func.call @to_bf16(%fi, %fib) : (memref<?x?xf32>, memref<?x?xbf16>) -> ()
    func.call @to_bf16(%fk, %fkb) : (memref<?x?xf32>, memref<?x?xbf16>) -> ()
    func.call @to_bf16(%fo, %fob) : (memref<?x?xf32>, memref<?x?xbf16>) -> ()
    func.call @nhwc_v3_bf16_bf16(%ib, %kb, %ob) : (memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>) -> ()
    func.call @to_bf16(%fr, %frb) : (memref<?x?xf32>, memref<?x?xbf16>) -> ()
    func.call @from_bf16(%fob, %got) : (memref<?x?xbf16>, memref<?x?xf32>) -> ()
    func.call @from_bf16(%frb, %want) : (memref<?x?xbf16>, memref<?x?xf32>) -> ()
  } else {
    %ih = memref.alloc(%i0, %i1, %i2, %i3) : memref<?x?x?x?xf16>
    %kh = memref.alloc(%k0, %k1, %k2, %k3) : memref<?x?x?x?xf16>
    %oh = memref.alloc(%o0, %o1, %o2, %o3) : memref<?x?x?x?xf16>
    %rh = memref.alloc(%o0, %o1, %o2, %o3) : memref<?x?x?x?xf16>
    %fih = func.call @flat_f16(%ih) : (memref<?x?x?x?xf16>) -> memref<?x?xf16>
    %fkh = func.call @flat_f16(%kh) : (memref<?x?x?x?xf16>) -> memref<?x?xf16>
    %foh = func.call @flat_f16(%oh) : (memref<?x?x?x?xf16>) -> memref<?x?xf16>
    %frh = func.call @flat_f16(%rh) : (memref<?x?x?x?xf16>) -> memref<?x?xf16>
    func.call @to_f16(%fi, %fih) : (memref<?x?xf32>, memref<?x?xf16>) -> ()
    func.call @to_f16(%fk, %fkh) : (memref<?x?xf32>, memref<?x?xf16>) -> ()
    func.call @to_f16(%fo, %foh) : (memref<?x?xf32>, memref<?x?xf16>) -> ()
    func.call @nchw_v0_f16_f16(%ih, %kh, %oh) : (memref<?x?x?x?xf16>, memref<?x?x?x?xf16>, memref<?x?x?x?xf16>) -> ()
    func.call @to_f16(%fr, %frh) : (memref<?x?xf32>, memref<?x?xf16>) -> ()
    func.call @from_f16(%foh, %got) : (memref<?x?xf16>, memref<?x?xf32>) -> ()
    func.call @from_f16(%frh, %want) : (memref<?x?xf16>, memref<?x?xf32>) -> ()
  }
  %e = func.call @max_error(%got, %want) : (memref<?x?xf32>, memref<?x?xf32>) -> f32
  return %e : f32
}

// One layout of one shape and variant: the f32 convolution, and the
// low-precision one of that variant if there is one.
func.func @check_layout(%nhwc: i1, %n: index, %oh: index, %ow: index, %c: index,
                        %f: index, %r: index, %s: index, %v: index, %sh: index,
                        %sw: index, %dh: index, %dw: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %h = func.call @input_size(%oh, %r, %sh, %dh) : (index, index, index, index) -> index
  %w = func.call @input_size(%ow, %s, %sw, %dw) : (index, index, index, index) -> index
  %img, %fil, %init = scf.if %nhwc -> (memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) {
    %i = memref.alloc(%n, %h, %w, %c) : memref<?x?x?x?xf32>
    %k = memref.alloc(%r, %s, %c, %f) : memref<?x?x?x?xf32>
    %o = memref.alloc(%n, %oh, %ow, %f) : memref<?x?x?x?xf32>
    scf.yield %i, %k, %o : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>
  } else {
    %i = memref.alloc(%n, %c, %h, %w) : memref<?x?x?x?xf32>
    %k = memref.alloc(%f, %c, %r, %s) : memref<?x?x?x?xf32>
    %o = memref.alloc(%n, %f, %oh, %ow) : memref<?x?x?x?xf32>
    scf.yield %i, %k, %o : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>
  }
  %o0 = memref.dim %init, %c0 : memref<?x?x?x?xf32>
  %o1 = memref.dim %init, %c1 : memref<?x?x?x?xf32>
  %o2 = memref.dim %init, %c2 : memref<?x?x?x?xf32>
  %o3 = memref.dim %init, %c3 : memref<?x?x?x?xf32>
  %ref = memref.alloc(%o0, %o1, %o2, %o3) : memref<?x?x?x?xf32>
  %out = memref.alloc(%o0, %o1, %o2, %o3) : memref<?x?x?x?xf32>
  %fi = func.call @flat(%img) : (memref<?x?x?x?xf32>) -> memref<?x?xf32>
  %fk = func.call @flat(%fil) : (memref<?x?x?x?xf32>) -> memref<?x?xf32>
  %fr = func.call @flat(%ref) : (memref<?x?x?x?xf32>) -> memref<?x?xf32>
  %fo = func.call @flat(%out) : (memref<?x?x?x?xf32>) -> memref<?x?xf32>
  func.call @fill(%fi, %c1) : (memref<?x?xf32>, index) -> ()
  func.call @fill(%fk, %c2) : (memref<?x?xf32>, index) -> ()
  func.call @fill(%fr, %c3) : (memref<?x?xf32>, index) -> ()
  func.call @fill(%fo, %c3) : (memref<?x?xf32>, index) -> ()
  scf.if %nhwc {
    func.call @reference_nhwc(%img, %fil, %ref, %sh, %sw, %dh, %dw) : (memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, index, index, index, index) -> ()
  } else {
    func.call @reference_nchw(%img, %fil, %ref, %sh, %sw, %dh, %dw) : (memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, index, index, index, index) -> ()
  }
  func.call @run_f32(%v, %nhwc, %img, %fil, %out) : (index, i1, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) -> ()
  %e0 = func.call @max_error(%fo, %fr) : (memref<?x?xf32>, memref<?x?xf32>) -> f32

  // The variant's low-precision run: nhwc 1 and nchw 2 with an f32 output,
  // nhwc 3 and nchw 0 with an output of the input type.
  %f32Out = arith.select %nhwc, %c1, %c2 : index
  %lowOut = arith.select %nhwc, %c3, %c0 : index
  %isF32Out = arith.cmpi eq, %v, %f32Out : index
  %isLowOut = arith.cmpi eq, %v, %lowOut : index
  %lowInit = memref.alloc(%o0, %o1, %o2, %o3) : memref<?x?x?x?xf32>
  %fl = func.call @flat(%lowInit) : (memref<?x?x?x?xf32>) -> memref<?x?xf32>
  func.call @fill(%fl, %c3) : (memref<?x?xf32>, index) -> ()
  %e1 = scf.if %isF32Out -> f32 {
    %e = func.call @lowp_f32_out(%nhwc, %img, %fil, %lowInit, %ref) : (i1, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) -> f32
    scf.yield %e : f32
  } else {
    %e = scf.if %isLowOut -> f32 {
      %e2 = func.call @lowp_out(%nhwc, %img, %fil, %lowInit, %ref) : (i1, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) -> f32
      scf.yield %e2 : f32
    } else {
      scf.yield %zero : f32
    }
    scf.yield %e : f32
  }
  %worst = func.call @worse(%e0, %e1) : (f32, f32) -> f32
  return %worst : f32
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %count = arith.constant 11 : index
  %true = arith.constant true
  %false = arith.constant false
  %zero = arith.constant 0.0 : f32
  %tolerance = arith.constant 1.0e-6 : f32
  %shapes = memref.get_global @shapes : memref<11x7xi64>
  %variants = memref.get_global @variants : memref<4x4xi64>
  %worst = scf.for %i = %c0 to %count step %c1 iter_args(%w0 = %zero) -> f32 {
    %n64 = memref.load %shapes[%i, %c0] : memref<11x7xi64>
    %oh64 = memref.load %shapes[%i, %c1] : memref<11x7xi64>
    %ow64 = memref.load %shapes[%i, %c2] : memref<11x7xi64>
    %ch64 = memref.load %shapes[%i, %c3] : memref<11x7xi64>
    %f64 = memref.load %shapes[%i, %c4] : memref<11x7xi64>
    %r64 = memref.load %shapes[%i, %c5] : memref<11x7xi64>
    %s64 = memref.load %shapes[%i, %c6] : memref<11x7xi64>
    %n = arith.index_cast %n64 : i64 to index
    %oh = arith.index_cast %oh64 : i64 to index
    %ow = arith.index_cast %ow64 : i64 to index
    %ch = arith.index_cast %ch64 : i64 to index
    %f = arith.index_cast %f64 : i64 to index
    %r = arith.index_cast %r64 : i64 to index
    %s = arith.index_cast %s64 : i64 to index
    %w3 = scf.for %v = %c0 to %c4 step %c1 iter_args(%w1 = %w0) -> f32 {
      %sh64 = memref.load %variants[%v, %c0] : memref<4x4xi64>
      %sw64 = memref.load %variants[%v, %c1] : memref<4x4xi64>
      %dh64 = memref.load %variants[%v, %c2] : memref<4x4xi64>
      %dw64 = memref.load %variants[%v, %c3] : memref<4x4xi64>
      %sh = arith.index_cast %sh64 : i64 to index
      %sw = arith.index_cast %sw64 : i64 to index
      %dh = arith.index_cast %dh64 : i64 to index
      %dw = arith.index_cast %dw64 : i64 to index
      %ea = func.call @check_layout(%true, %n, %oh, %ow, %ch, %f, %r, %s, %v, %sh, %sw, %dh, %dw)
          : (i1, index, index, index, index, index, index, index, index, index, index, index, index) -> f32
      %eb = func.call @check_layout(%false, %n, %oh, %ow, %ch, %f, %r, %s, %v, %sh, %sw, %dh, %dw)
          : (i1, index, index, index, index, index, index, index, index, index, index, index, index) -> f32
      %e = func.call @worse(%ea, %eb) : (f32, f32) -> f32
      // The case line shows the GEMM view: M = N*OH*OW, N = F, K = C*R*S.
      %p = arith.muli %oh, %ow : index
      %m = arith.muli %n, %p : index
      %rs = arith.muli %r, %s : index
      %k = arith.muli %ch, %rs : index
      func.call @print_case(%m, %f, %k, %e) : (index, index, index, f32) -> ()
      %w2 = func.call @worse(%w1, %e) : (f32, f32) -> f32
      scf.yield %w2 : f32
    }
    scf.yield %w3 : f32
  }
  func.call @report(%worst, %tolerance) : (f32, f32) -> ()
  return
}
