// RUN: quilt-opt %s --ukernel-attach-target=target=mi300x --convert-linalg-to-ukernel=max-candidates=1 --convert-ukernel-to-gpu | FileCheck %s
// RUN: quilt-opt %s --ukernel-attach-target=target=h100 --convert-linalg-to-ukernel=max-candidates=1 --convert-ukernel-to-gpu | FileCheck %s --check-prefix=H100

// An f64 product runs on SIMT FMA kernels that keep f64 from the shared
// tiles to C: f64 vector FMAs, no widening or rounding. Its fused tanh becomes expm1 arithmetic (AMDGPU has no f64
// tanh; every target computes it this way).

// CHECK: gpu.module
// CHECK: gpu.func @quilt_simt_fma_{{.*}}_f64_f64_fused_{{.*}}(%{{.*}}: memref<?x?xf64
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: vector.fma {{.*}} : vector<{{[0-9]+}}xf64>
// CHECK: math.absf {{.*}} : f64
// CHECK: math.expm1 {{.*}} : f64
// CHECK: math.copysign {{.*}} : f64
// CHECK-NOT: math.tanh
// CHECK: gpu.return

// H100: gpu.func @quilt_simt_fma_{{.*}}_v2_f64_f64_fused_
// H100: vector.fma {{.*}} : vector<{{[0-9]+}}xf64>
// H100-NOT: math.tanh

func.func @dense_tanh(%x: memref<?x?xf64>, %w: memref<?x?xf64>, %bias: memref<?xf64>, %out: memref<?x?xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%out : memref<?x?xf64>)
  linalg.matmul ins(%x, %w : memref<?x?xf64>, memref<?x?xf64>) outs(%out : memref<?x?xf64>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<?xf64>) outs(%out : memref<?x?xf64>) {
  ^bb0(%b: f64, %o: f64):
    %s = arith.addf %o, %b : f64
    %t = math.tanh %s : f64
    linalg.yield %t : f64
  }
  return
}
