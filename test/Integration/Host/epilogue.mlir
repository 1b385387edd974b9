// Fused epilogues (bias add, ReLU, GELU) on tensors: the front end fuses the
// elementwise consumer into the dispatch, the kernels apply it once after
// the last K block (and on their own when K = 0).
//
// DEFINE: %{options} = target=host max-candidates=4
// DEFINE: %{run} = cat %s %S/Inputs/gemm-helpers.mlir \
// DEFINE:   | quilt-opt --quilt-lower-to-host="%{options}" \
// DEFINE:   | mlir-runner -e main -entry-point-result=void \
// DEFINE:       -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%quilt_runtime \
// DEFINE:   | FileCheck %s
//
// RUN: %{run}
// REDEFINE: %{options} = target=host max-candidates=4 policy=patch
// RUN: %{run}
// REDEFINE: %{options} = target=host max-candidates=2 policy=fixed=1
// RUN: %{run}
//
// The epilogues are fused, not run as loops after the matmul:
// RUN: cat %s %S/Inputs/gemm-helpers.mlir \
// RUN:   | quilt-opt --quilt-lower-to-host="target=host max-candidates=1" \
// RUN:   | FileCheck %s --check-prefix=FUSED
// FUSED-DAG: llvm.func internal @__quilt_host_gemm_{{.*}}_f32_f32_fused_{{[0-9a-f]+}}_fill0(
// FUSED-DAG: llvm.func internal @__quilt_host_gemm_{{.*}}_bf16_f32_fused_{{[0-9a-f]+}}_fill0(
// FUSED-DAG: llvm.func internal @__quilt_host_gemm_{{.*}}_f32_f32_fused_{{[0-9a-f]+}}_fill0(
// FUSED-DAG: llvm.func internal @__quilt_host_gemm_{{.*}}_f16_f16_fused_{{[0-9a-f]+}}_fill0(

// CHECK-COUNT-10: case
// CHECK: max error
// CHECK-NEXT: PASS

memref.global "private" constant @shapes : memref<10x3xi64> = dense<[
  [0, 3, 3], [3, 0, 3], [3, 5, 0], [1, 1, 1], [7, 19, 5], [97, 101, 103],
  [130, 33, 257], [5, 300, 64],
  [16, 700, 301], [1, 4200, 17]]>

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

func.func @bias_relu(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %out = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%out : tensor<?x?xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %c0f = arith.constant 0.0 : f32
    %y = arith.maximumf %s, %c0f : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @bias_gelu_bf16(%x: tensor<?x?xbf16>, %w: tensor<?x?xbf16>, %bias: tensor<?xbf16>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %n = tensor.dim %w, %c1 : tensor<?x?xbf16>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x?xbf16>, tensor<?x?xbf16>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %out = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x?xf32>, tensor<?xbf16>) outs(%out : tensor<?x?xf32>) {
  ^bb0(%v: f32, %b: bf16, %o: f32):
    %bf = arith.extf %b : bf16 to f32
    %s = arith.addf %v, %bf : f32
    %half = arith.constant 0.5 : f32
    %sqrt2 = arith.constant 1.41421356237 : f32
    %one = arith.constant 1.0 : f32
    %t = arith.divf %s, %sqrt2 : f32
    %erf = math.erf %t : f32
    %p = arith.addf %one, %erf : f32
    %hs = arith.mulf %half, %s : f32
    %y = arith.mulf %hs, %p : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @gelu(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %out = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<?x?xf32>) outs(%out : tensor<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %sqrt2 = arith.constant 1.41421356237 : f32
    %one = arith.constant 1.0 : f32
    %t = arith.divf %v, %sqrt2 : f32
    %erf = math.erf %t : f32
    %p = arith.addf %one, %erf : f32
    %hv = arith.mulf %half, %v : f32
    %y = arith.mulf %hv, %p : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @relu_f16(%x: tensor<?x?xf16>, %w: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  %m = tensor.dim %x, %c0 : tensor<?x?xf16>
  %n = tensor.dim %w, %c1 : tensor<?x?xf16>
  %e = tensor.empty(%m, %n) : tensor<?x?xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<?x?xf16>) -> tensor<?x?xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<?x?xf16>, tensor<?x?xf16>) outs(%acc : tensor<?x?xf16>) -> tensor<?x?xf16>
  %out = tensor.empty(%m, %n) : tensor<?x?xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<?x?xf16>) outs(%out : tensor<?x?xf16>) {
  ^bb0(%v: f16, %o: f16):
    %c0h = arith.constant 0.0 : f16
    %y = arith.maximumf %v, %c0h : f16
    linalg.yield %y : f16
  } -> tensor<?x?xf16>
  return %r : tensor<?x?xf16>
}

// The reference epilogue on r (MxN) with the bias as a 1 x N matrix:
// step 0: bias + relu, 1: bias + gelu, 2: gelu, 3: relu.
func.func @ref_epilogue(%r: memref<?x?xf32>, %bias: memref<?x?xf32>, %kind: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.707106781186547524 : f32
  %rows = memref.dim %r, %c0 : memref<?x?xf32>
  %cols = memref.dim %r, %c1 : memref<?x?xf32>
  %withBias = arith.cmpi ult, %kind, %c2 : index
  %kindMod2 = arith.remui %kind, %c2 : index
  %isGelu = arith.cmpi eq, %kind, %c1 : index
  %isGelu2 = arith.cmpi eq, %kind, %c2 : index
  %gelu = arith.ori %isGelu, %isGelu2 : i1
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %v = memref.load %r[%i, %j] : memref<?x?xf32>
      %s = scf.if %withBias -> f32 {
        %b = memref.load %bias[%c0, %j] : memref<?x?xf32>
        %vb = arith.addf %v, %b : f32
        scf.yield %vb : f32
      } else {
        scf.yield %v : f32
      }
      %y = scf.if %gelu -> f32 {
        %t = arith.mulf %s, %rsqrt2 : f32
        %erf = math.erf %t : f32
        %p = arith.addf %one, %erf : f32
        %hs = arith.mulf %half, %s : f32
        %g = arith.mulf %hs, %p : f32
        scf.yield %g : f32
      } else {
        %relu = arith.maximumf %s, %zero : f32
        scf.yield %relu : f32
      }
      memref.store %y, %r[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

func.func @check(%m: index, %n: index, %k: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc(%m, %k) : memref<?x?xf32>
  %b = memref.alloc(%k, %n) : memref<?x?xf32>
  %bias2 = memref.alloc(%c1, %n) : memref<?x?xf32>
  func.call @fill(%a, %c1) : (memref<?x?xf32>, index) -> ()
  func.call @fill(%b, %c2) : (memref<?x?xf32>, index) -> ()
  func.call @fill(%bias2, %c4) : (memref<?x?xf32>, index) -> ()
  %bias = memref.subview %bias2[0, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1]>>
  %biasv = memref.alloc(%n) : memref<?xf32>
  memref.copy %bias, %biasv : memref<?xf32, strided<[1]>> to memref<?xf32>
  %mm = memref.alloc(%m, %n) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%mm : memref<?x?xf32>)
  func.call @reference(%a, %b, %mm) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  %want = memref.alloc(%m, %n) : memref<?x?xf32>

  %at = bufferization.to_tensor %a restrict : memref<?x?xf32> to tensor<?x?xf32>
  %bt = bufferization.to_tensor %b restrict : memref<?x?xf32> to tensor<?x?xf32>
  %biast = bufferization.to_tensor %biasv restrict : memref<?xf32> to tensor<?xf32>

  // bias + relu, f32.
  memref.copy %mm, %want : memref<?x?xf32> to memref<?x?xf32>
  func.call @ref_epilogue(%want, %bias2, %c0) : (memref<?x?xf32>, memref<?x?xf32>, index) -> ()
  %r0 = func.call @bias_relu(%at, %bt, %biast) : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %g0 = bufferization.to_buffer %r0 : tensor<?x?xf32> to memref<?x?xf32>
  %e0 = func.call @max_error(%g0, %want) : (memref<?x?xf32>, memref<?x?xf32>) -> f32

  // bias + gelu, bf16 inputs and bias.
  %ab = memref.alloc(%m, %k) : memref<?x?xbf16>
  %bb = memref.alloc(%k, %n) : memref<?x?xbf16>
  %biasb2 = memref.alloc(%c1, %n) : memref<?x?xbf16>
  func.call @to_bf16(%a, %ab) : (memref<?x?xf32>, memref<?x?xbf16>) -> ()
  func.call @to_bf16(%b, %bb) : (memref<?x?xf32>, memref<?x?xbf16>) -> ()
  func.call @to_bf16(%bias2, %biasb2) : (memref<?x?xf32>, memref<?x?xbf16>) -> ()
  %biasb = memref.alloc(%n) : memref<?xbf16>
  %biasbv = memref.subview %biasb2[0, 0] [1, %n] [1, 1] : memref<?x?xbf16> to memref<?xbf16, strided<[1]>>
  memref.copy %biasbv, %biasb : memref<?xbf16, strided<[1]>> to memref<?xbf16>
  %abt = bufferization.to_tensor %ab restrict : memref<?x?xbf16> to tensor<?x?xbf16>
  %bbt = bufferization.to_tensor %bb restrict : memref<?x?xbf16> to tensor<?x?xbf16>
  %biasbt = bufferization.to_tensor %biasb restrict : memref<?xbf16> to tensor<?xbf16>
  memref.copy %mm, %want : memref<?x?xf32> to memref<?x?xf32>
  func.call @ref_epilogue(%want, %bias2, %c1) : (memref<?x?xf32>, memref<?x?xf32>, index) -> ()
  %r1 = func.call @bias_gelu_bf16(%abt, %bbt, %biasbt) : (tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<?xbf16>) -> tensor<?x?xf32>
  %g1 = bufferization.to_buffer %r1 : tensor<?x?xf32> to memref<?x?xf32>
  %e1 = func.call @max_error(%g1, %want) : (memref<?x?xf32>, memref<?x?xf32>) -> f32

  // gelu, f32.
  memref.copy %mm, %want : memref<?x?xf32> to memref<?x?xf32>
  func.call @ref_epilogue(%want, %bias2, %c2) : (memref<?x?xf32>, memref<?x?xf32>, index) -> ()
  %r2 = func.call @gelu(%at, %bt) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %g2 = bufferization.to_buffer %r2 : tensor<?x?xf32> to memref<?x?xf32>
  %e2 = func.call @max_error(%g2, %want) : (memref<?x?xf32>, memref<?x?xf32>) -> f32

  // relu, f16 throughout: against the reference rounded to f16.
  %ah = memref.alloc(%m, %k) : memref<?x?xf16>
  %bh = memref.alloc(%k, %n) : memref<?x?xf16>
  func.call @to_f16(%a, %ah) : (memref<?x?xf32>, memref<?x?xf16>) -> ()
  func.call @to_f16(%b, %bh) : (memref<?x?xf32>, memref<?x?xf16>) -> ()
  %aht = bufferization.to_tensor %ah restrict : memref<?x?xf16> to tensor<?x?xf16>
  %bht = bufferization.to_tensor %bh restrict : memref<?x?xf16> to tensor<?x?xf16>
  memref.copy %mm, %want : memref<?x?xf32> to memref<?x?xf32>
  func.call @ref_epilogue(%want, %bias2, %c3) : (memref<?x?xf32>, memref<?x?xf32>, index) -> ()
  %wanth = memref.alloc(%m, %n) : memref<?x?xf16>
  func.call @to_f16(%want, %wanth) : (memref<?x?xf32>, memref<?x?xf16>) -> ()
  func.call @from_f16(%wanth, %want) : (memref<?x?xf16>, memref<?x?xf32>) -> ()
  %r3 = func.call @relu_f16(%aht, %bht) : (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf16>
  %g3h = bufferization.to_buffer %r3 : tensor<?x?xf16> to memref<?x?xf16>
  %g3 = memref.alloc(%m, %n) : memref<?x?xf32>
  func.call @from_f16(%g3h, %g3) : (memref<?x?xf16>, memref<?x?xf32>) -> ()
  %e3 = func.call @max_error(%g3, %want) : (memref<?x?xf32>, memref<?x?xf32>) -> f32

  %w0 = func.call @worse(%e0, %e1) : (f32, f32) -> f32
  %w1 = func.call @worse(%w0, %e2) : (f32, f32) -> f32
  %w2 = func.call @worse(%w1, %e3) : (f32, f32) -> f32
  return %w2 : f32
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %count = arith.constant 10 : index
  %zero = arith.constant 0.0 : f32
  // GELU: the kernels and the reference evaluate the same erf polynomial,
  // in vector and scalar form.
  %tolerance = arith.constant 1.0e-5 : f32
  %shapes = memref.get_global @shapes : memref<10x3xi64>
  %worst = scf.for %s = %c0 to %count step %c1 iter_args(%w = %zero) -> f32 {
    %m64 = memref.load %shapes[%s, %c0] : memref<10x3xi64>
    %n64 = memref.load %shapes[%s, %c1] : memref<10x3xi64>
    %k64 = memref.load %shapes[%s, %c2] : memref<10x3xi64>
    %m = arith.index_cast %m64 : i64 to index
    %n = arith.index_cast %n64 : i64 to index
    %k = arith.index_cast %k64 : i64 to index
    %e = func.call @check(%m, %n, %k) : (index, index, index) -> f32
    func.call @print_case(%m, %n, %k, %e) : (index, index, index, f32) -> ()
    %next = func.call @worse(%w, %e) : (f32, f32) -> f32
    scf.yield %next : f32
  }
  func.call @report(%worst, %tolerance) : (f32, f32) -> ()
  return
}
