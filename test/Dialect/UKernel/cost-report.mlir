// RUN: quilt-opt %s --ukernel-attach-target=target=h100 --ukernel-cost-report="shapes=1000x768x3072,1024x768x3072 top=2" -o /dev/null 2>&1 | FileCheck %s
// RUN: quilt-opt %s --ukernel-attach-target=target=h100 --ukernel-cost-report="shapes=1000x768x3072 json" -o /dev/null | %python %S/../../CostModel/Inputs/check_explain_json.py 3 | FileCheck %s --check-prefix=JSON
// RUN: quilt-opt %s --ukernel-attach-target=target=h100 --ukernel-cost-report="shapes=1000x768x3072" | FileCheck %s --check-prefix=IR
// RUN: not quilt-opt %s --ukernel-attach-target=target=h100 --ukernel-cost-report="shapes=4611686018427387904x4096x4096" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OVERFLOW

// The report is quiltc explain's table for the dispatch's own candidates.
// CHECK: remark: cost report
// CHECK-NEXT: workload: matmul f16 M=1000 N=768 K=3072
// CHECK-NEXT: target: h100 (NVIDIA H100 SXM5 80GB (Hopper GH100), sm_90a)
// CHECK: rank idx config{{.*}}total_us{{.*}}wave_efficiency
// CHECK: * 1
// CHECK: chosen: #
// CHECK: why:
// CHECK: C: accumulated into (read and written; the model counts the write)
// CHECK: remark: cost report
// CHECK-NEXT: workload: matmul f16 M=1024 N=768 K=3072
// The batch matmul is reported at the given shapes and at its own sizes.
// CHECK: workload: batch_matmul f16 B=1 M=1000 N=768 K=3072
// CHECK: workload: batch_matmul f16 B=1 M=1024 N=768 K=3072
// CHECK: workload: batch_matmul f16 B=12 M=64 N=64 K=32
// CHECK: C: starts as the fill 0, written and never read (beta = 0)

// Three reports: two dispatches at the given shape, one at its static sizes.
// JSON: ok: 3 report(s)

// Shapes the model cannot evaluate are errors, not wrong numbers.
// OVERFLOW: error: cannot report costs at 1x4611686018427387904x4096x4096:

// The IR is unchanged.
// IR: ukernel.dispatch matmul transpose_rhs
// IR: ukernel.dispatch batch_matmul

#big = #ukernel.config<tile = 128x128x32, threads = 256, warps = 2x4, thread_tile = 8x8, vector_width = 8, stages = 3, instruction = mma_sync_f16, boundary = mask>
#small = #ukernel.config<tile = 64x64x32, threads = 128, warps = 2x2, thread_tile = 4x8, vector_width = 8, stages = 4, instruction = mma_sync_f16, boundary = mask>

func.func @dense(%x: tensor<?x768xf16>, %w: tensor<3072x768xf16>, %y: tensor<?x3072xf32>) -> tensor<?x3072xf32> {
  %r = ukernel.dispatch matmul transpose_rhs ins(%x, %w : tensor<?x768xf16>, tensor<3072x768xf16>) outs(%y : tensor<?x3072xf32>)
         candidates [#big, #small] -> tensor<?x3072xf32>
  return %r : tensor<?x3072xf32>
}

func.func @heads(%a: tensor<12x64x32xf16>, %b: tensor<12x32x64xf16>, %c: tensor<12x64x64xf32>) -> tensor<12x64x64xf32> {
  %r = ukernel.dispatch batch_matmul ins(%a, %b : tensor<12x64x32xf16>, tensor<12x32x64xf16>) outs(%c : tensor<12x64x64xf32>) fill(0.0 : f32)
         candidates [#big, #small] policy patch -> tensor<12x64x64xf32>
  return %r : tensor<12x64x64xf32>
}
