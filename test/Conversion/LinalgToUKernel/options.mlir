// RUN: quilt-opt %s --ukernel-attach-target=target=host-avx512 --convert-linalg-to-ukernel="policy=patch max-candidates=3" | FileCheck %s --check-prefix=PATCH
// RUN: quilt-opt %s --ukernel-attach-target=target=host-avx512 --convert-linalg-to-ukernel="policy=fixed=1" | FileCheck %s --check-prefix=FIXED
// RUN: quilt-opt %s --ukernel-attach-target=target=h100 --convert-linalg-to-ukernel | FileCheck %s --check-prefix=H100
// RUN: quilt-opt %s --ukernel-attach-target=target=mi300x --convert-linalg-to-ukernel | FileCheck %s --check-prefix=MI300X

// PATCH: ukernel.dispatch matmul {{.*}} candidates [#ukernel.config<{{[^>]*}}>, #ukernel.config<{{[^>]*}}>, #ukernel.config<{{[^>]*}}>] policy patch
// FIXED: candidates [{{.*}}] policy fixed = 1
// The GPU targets get tensor-core kernels for f16.
// H100: instruction = {{wgmma|mma_sync_f16}}
// MI300X: instruction = {{mfma_32x32x8|mfma_16x16x16}}
func.func @f16_matmul(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
