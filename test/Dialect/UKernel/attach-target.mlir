// RUN: quilt-opt %s --ukernel-attach-target=target=h100 | FileCheck %s --check-prefix=H100
// RUN: quilt-opt %s --ukernel-attach-target=target=mi300x | FileCheck %s --check-prefix=MI300X
// RUN: quilt-opt %s --ukernel-attach-target=target=host | FileCheck %s --check-prefix=HOST
// RUN: quilt-opt %s --ukernel-attach-target="target=h100-pcie target-file=%S/Inputs/lab-targets.db" | FileCheck %s --check-prefix=USER
// RUN: quilt-opt %s --ukernel-attach-target=target=host-avx2 --ukernel-attach-target=target=a100 | FileCheck %s --check-prefix=LAST
// RUN: quilt-opt %S/../../../examples/dispatch-h100.mlir --ukernel-attach-target=target=h100 | FileCheck %s --check-prefix=CHECKED

// The target lands on the module, replacing any earlier one; the candidate
// checks of the ops inside then run against it (CHECKED).

// H100: module attributes {ukernel.target = #ukernel.target<name = "h100", vendor = nvidia, chip = "sm_90a", description = "NVIDIA H100 SXM5 80GB (Hopper GH100)", compute_units = 132, warp_size = 32
// H100-SAME: shared_mem_per_block = 232448
// H100-SAME: wgmma = 989.4
// H100-SAME: calibration = <compute_efficiency = {{[0-9.]+}}, memory_efficiency = {{[0-9.]+}}, launch_overhead_us = {{[0-9.]+}}, tile_overhead_us = {{[0-9.]+}}>
// MI300X: #ukernel.target<name = "mi300x", vendor = amd, chip = "gfx942", description = {{.*}}, compute_units = 304, warp_size = 64
// MI300X-SAME: mfma_32x32x8
// HOST: #ukernel.target<name = "host", vendor = cpu
// HOST-SAME: warp_size = 1
// HOST-SAME: cpu_fma =
// HOST-SAME: vector_bits =
// USER: #ukernel.target<name = "h100-pcie", vendor = nvidia, chip = "sm_90a", description = "NVIDIA H100 PCIe 80GB", compute_units = 114
// USER-SAME: mem_bandwidth_gbs = 2000.0
// LAST: #ukernel.target<name = "a100", vendor = nvidia, chip = "sm_80", description = {{.*}}, compute_units = 108
// LAST-NOT: host-avx2

// CHECKED: ukernel.target = #ukernel.target<name = "h100"
// CHECKED: ukernel.dispatch matmul transpose_rhs

func.func @empty() {
  return
}
