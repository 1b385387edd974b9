// RUN: quilt-opt %s --ukernel-attach-target=target=host-avx512 --convert-linalg-to-ukernel="policy=patch max-candidates=3" | FileCheck %s --check-prefix=PATCH
// RUN: quilt-opt %s --ukernel-attach-target=target=host-avx512 --convert-linalg-to-ukernel="policy=fixed=1" | FileCheck %s --check-prefix=FIXED
// RUN: quilt-opt %s --ukernel-attach-target=target=h100 --convert-linalg-to-ukernel | FileCheck %s --check-prefix=H100
// RUN: quilt-opt %s --ukernel-attach-target=target=mi300x --convert-linalg-to-ukernel | FileCheck %s --check-prefix=MI300X
// RUN: quilt-opt %s --ukernel-attach-target=target=host-avx512 --convert-linalg-to-ukernel | FileCheck %s --check-prefix=ANALYTIC
// RUN: quilt-opt %s --ukernel-attach-target=target=host-avx512 --convert-linalg-to-ukernel="residual-model=%S/Inputs/slow-narrow.qrm" | FileCheck %s --check-prefix=RESIDUAL

// PATCH: ukernel.dispatch matmul {{.*}} candidates [#ukernel.config<{{[^>]*}}>, #ukernel.config<{{[^>]*}}>, #ukernel.config<{{[^>]*}}>] policy patch
// FIXED: candidates [{{.*}}] policy fixed = 1
// The GPU targets get tensor-core kernels for f16.
// H100: instruction = {{wgmma|mma_sync_f16}}
// MI300X: instruction = {{mfma_32x32x8|mfma_16x16x16}}
// Pruning on the analytic model keeps a register block of 2 rows; a residual
// model that prices every block of 1 or 2 rows 16x higher keeps none.
// ANALYTIC: ukernel.dispatch matmul {{.*}}thread_tile = {{[12]}}x
// RESIDUAL: ukernel.dispatch matmul
// RESIDUAL-NOT: thread_tile = {{[12]}}x
// RESIDUAL: return
func.func @f16_matmul(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
