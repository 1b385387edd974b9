// RUN: quilt-opt %s --ukernel-attach-target=target=host-avx512 --convert-linalg-to-ukernel=max-candidates=1 --convert-ukernel-to-host | FileCheck %s

// An f64 product on the host packs f64 panels and multiplies on 8 f64
// lanes of AVX-512's registers (vector width 8), updating the f64 C in
// place: nothing is widened, rounded or staged.
// CHECK-LABEL: func.func @matmul_f64
// CHECK: call @quilt_rt_select
// CHECK-LABEL: func.func private @__quilt_host_gemm_{{.*}}_v8_f64_f64(
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<{{[0-9]+}}xf64>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<{{[0-9]+}}xf64>
// CHECK-NOT: xf32
// CHECK: vector.fma {{.*}} : vector<8xf64>
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @matmul_f64(%x: memref<?x?xf64>, %w: memref<?x?xf64>, %out: memref<?x?xf64>) {
  linalg.matmul ins(%x, %w : memref<?x?xf64>, memref<?x?xf64>) outs(%out : memref<?x?xf64>)
  return
}
