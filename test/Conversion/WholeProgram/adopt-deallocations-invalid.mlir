// RUN: quilt-opt %s -split-input-file --quilt-adopt-deallocations -verify-diagnostics

// The caller's buffer: the deallocation pipeline never frees what a
// function does not own, so this cannot be expressed to it.
func.func @frees_an_argument(%x: memref<?xf32>) {
  // expected-error @+1 {{frees a buffer this function did not allocate}}
  memref.dealloc %x : memref<?xf32>
  return
}

// -----

// A buffer another function allocated.
func.func private @make() -> memref<4xf32>

func.func @frees_a_call_result() {
  %t = func.call @make() : () -> memref<4xf32>
  // expected-error @+1 {{frees a buffer this function did not allocate}}
  memref.dealloc %t : memref<4xf32>
  return
}
