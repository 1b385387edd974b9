// RUN: quilt-opt %s -split-input-file --quilt-check-lowered -verify-diagnostics

// What no pattern lowered is an error at its first occurrence, with the
// number of others of its kind: never output with exit status 0.
module {
  llvm.func @f(%n: i64) {
    %i = builtin.unrealized_conversion_cast %n : i64 to index
    // expected-error @+1 {{'memref.alloca' was not lowered (nor 1 more): no pattern of the pipeline converts it for this target}}
    %a = memref.alloca(%i)[%i] : memref<?xf32, strided<[?], offset: 0>>
    %b = memref.alloca(%i)[%i] : memref<?xf32, strided<[?], offset: 0>>
    llvm.return
  }
}

// -----

// A nested module, which the pipelines' function passes never enter.
module {
  // expected-error @+1 {{nested 'builtin.module' is not lowered: Quilt's pipelines compile the ops of the top-level module}}
  module {
    func.func @g() {
      return
    }
  }
}

// -----

// Casts alone are reported when nothing else is left.
module {
  llvm.func @h(%n: i64) -> i64 {
    // expected-error @+1 {{'builtin.unrealized_conversion_cast' was not lowered (nor 1 more)}}
    %i = builtin.unrealized_conversion_cast %n : i64 to index
    %j = builtin.unrealized_conversion_cast %i : index to i64
    llvm.return %j : i64
  }
}

// -----

// LLVM, OpenMP and GPU binaries with their launches are lowered.
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, "">]
  llvm.func @ok() {
    omp.parallel {
      omp.terminator
    }
    llvm.return
  }
}
