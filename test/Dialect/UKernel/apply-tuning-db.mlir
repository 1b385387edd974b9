// RUN: quilt-opt %s --ukernel-attach-target=target=host-avx512 --convert-linalg-to-ukernel=max-candidates=2 --ukernel-apply-tuning-db="db=%S/Inputs/tuned-avx512.db" | FileCheck %s
// RUN: quilt-opt %s --ukernel-attach-target=target=host-avx512 --convert-linalg-to-ukernel=max-candidates=2 --ukernel-apply-tuning-db="db=%S/Inputs/tuned-avx512.db" --ukernel-cost-report="shapes=128x768x768,1500x32x32,300x768x768 top=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// Entries are matched by kind, input type and epilogue ("any" matches every
// epilogue); each adds its configuration to the candidates unless it is
// one already, and a region selecting it.

// CHECK-LABEL: func.func @plain
// CHECK: ukernel.dispatch matmul
// CHECK-SAME: candidates [#ukernel.config<tile = 128x64x128, {{[^>]*}}>, #ukernel.config<tile = 32x32x384, {{[^>]*}}>, #ukernel.config<tile = 48x256x128, threads = 1, warps = 1x1, thread_tile = 12x32, {{[^>]*}}>]
// CHECK-SAME: tuned [#ukernel.tuned<candidate = 2, lower = 1x100x768x768, upper = 1x140x768x768, source = "{{[^"]*}}tuned-avx512.db:7">, #ukernel.tuned<candidate = 1, lower = 1x1000x16x16, upper = 1x2000x64x64, source = "{{[^"]*}}tuned-avx512.db:14">]
func.func @plain(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// A fused epilogue takes the "any" and the "fused" entries.
// CHECK-LABEL: func.func @fused
// CHECK: ukernel.dispatch matmul
// CHECK: arith.maximumf
// CHECK: } candidates [#ukernel.config<tile = 128x64x128, {{[^>]*}}>, #ukernel.config<tile = 32x32x384, {{[^>]*}}>, #ukernel.config<tile = 48x256x128, {{[^>]*}}>, #ukernel.config<tile = 96x256x128, {{[^>]*}}>]
// CHECK-SAME: tuned [#ukernel.tuned<candidate = 2, {{[^"]*}}"{{[^"]*}}tuned-avx512.db:7">, #ukernel.tuned<candidate = 3, lower = 1x8x8x8, upper = 1x8x8x8, source = "{{[^"]*}}tuned-avx512.db:22">]
func.func @fused(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %m: index, %n: index) -> tensor<?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  return %relu : tensor<?x?xf32>
}

// The only batch_matmul entry is for a bias_add epilogue: nothing applies.
// CHECK-LABEL: func.func @batch
// CHECK: ukernel.dispatch batch_matmul
// CHECK-NOT: tuned
// CHECK: return
func.func @batch(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %c: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%c : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// The f16 entry applies to f16 inputs only.
// CHECK-LABEL: func.func @half
// CHECK: ukernel.dispatch matmul
// CHECK-SAME: tuned [#ukernel.tuned<candidate = 2, lower = 1x64x64x64, upper = 1x64x64x64, source = "{{[^"]*}}tuned-avx512.db:37">]
func.func @half(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// The cost report says which choices the database made, and what the
// model alone would have picked.
// REPORT: remark: cost report
// REPORT: workload: matmul f32 M=128 N=768 K=768
// REPORT: policy:   cost-model, 3 candidates, 2 tuned regions
// REPORT: chosen: #2 48x256x128 t1 w1x1 tt12x32 v16 s1 cpu_fma (tuned: {{.*}}tuned-avx512.db:7)
// REPORT: why:    tuning database: #2 48x256x128 t1 w1x1 tt12x32 v16 s1 cpu_fma measured fastest for b=1 m=100..140 n=768 k=768 ({{.*}}tuned-avx512.db:7); the model alone would pick #{{[01]}}
// REPORT: workload: matmul f32 M=1500 N=32 K=32
// REPORT: chosen: #1 32x32x384 t1 w1x1 tt8x16 v16 s1 cpu_fma (tuned: {{.*}}tuned-avx512.db:14)
// REPORT: workload: matmul f32 M=300 N=768 K=768
// REPORT-NOT: tuning database
// REPORT: why: {{ *}}{{[0-9]+}}x{{[0-9]+}} wins over
