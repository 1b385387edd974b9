// RUN: quilt-opt %s --quilt-guard-allocation-sizes -split-input-file -verify-diagnostics

// The runtime's entry point for failed checks is reserved.
// expected-error @+1 {{'quilt_rt_report_operand_error' is reserved for Quilt's runtime and must be declared as '(!llvm.ptr, i32, i64, i64) -> i32'}}
func.func private @quilt_rt_report_operand_error(i32) -> i32

func.func @result(%m: index) -> memref<?xf32> {
  %0 = memref.alloc(%m) : memref<?xf32>
  return %0 : memref<?xf32>
}
