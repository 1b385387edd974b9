// Upstream mlir-opt with Quilt loaded as a plugin: the ukernel dialect
// parses and verifies, and Quilt's passes run inside mlir-opt's pipeline.
//
// REQUIRES: quilt-plugin
// DEFINE: %{opt} = %upstream_mlir_opt --load-dialect-plugin=%quilt_plugin --load-pass-plugin=%quilt_plugin
//
// RUN: %{opt} %s | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: %{opt} %s \
// RUN:   --pass-pipeline="builtin.module(ukernel-attach-target{target=h100})" \
// RUN:   | FileCheck %s --check-prefix=ATTACH
// RUN: %{opt} %S/../../examples/bert-ffn.mlir \
// RUN:   --pass-pipeline="builtin.module(ukernel-attach-target{target=host-avx2},convert-linalg-to-ukernel)" \
// RUN:   | FileCheck %s --check-prefix=CONVERT

// ROUNDTRIP-LABEL: func.func @dense
// ROUNDTRIP: ukernel.dispatch matmul transpose_rhs
// ROUNDTRIP-SAME: candidates [#ukernel.config<tile = 64x64x32
// ATTACH: module attributes {ukernel.target = #ukernel.target<name = "h100"
// ATTACH-LABEL: func.func @dense
// CONVERT: module attributes {ukernel.target = #ukernel.target<name = "host-avx2"
// CONVERT-LABEL: func.func @bert_ffn
// CONVERT-COUNT-2: ukernel.dispatch matmul
// CONVERT-NOT: linalg.matmul
#small = #ukernel.config<tile = 64x64x32, threads = 128, warps = 2x2, thread_tile = 4x8, vector_width = 8, stages = 4, instruction = mma_sync_f16, boundary = mask>
func.func @dense(%x: tensor<?x768xf16>, %w: tensor<3072x768xf16>,
                 %y: tensor<?x3072xf32>) -> tensor<?x3072xf32> {
  %r = ukernel.dispatch matmul transpose_rhs
         ins(%x, %w : tensor<?x768xf16>, tensor<3072x768xf16>)
         outs(%y : tensor<?x3072xf32>) candidates [#small] -> tensor<?x3072xf32>
  return %r : tensor<?x3072xf32>
}
