# Precompiled MLIR headers for the libraries, tools and tests that use MLIR.
#
# Most of a Quilt source file's compile time is spent parsing MLIR's headers,
# not Quilt's code: a 100-line pass that includes the NVVM dialect takes about
# 50 s with GCC, 6 s with these headers precompiled (docs/testing.md). The
# headers are precompiled once, by QuiltMlirHeaders, and every target below
# reuses that one precompiled header, so the compile flags that matter to it
# (exceptions, PIC, the LLVM definitions) are those of an MLIR library:
# llvm_update_compile_flags gives both the same. A target whose flags differ
# still builds correctly (the compiler reads the headers as text and, with
# -Winvalid-pch, says why), only without the speed-up.
option(QUILT_PRECOMPILE_HEADERS
  "Precompile MLIR's headers once for every MLIR-using target" ON)

# The headers most Quilt sources include, directly or through Quilt's own
# headers. Every header here is parsed once per build instead of once per
# source; a source that does not need one pays only for loading it.
set(QUILT_PRECOMPILED_MLIR_HEADERS
  <mlir/IR/Builders.h>
  <mlir/IR/BuiltinOps.h>
  <mlir/IR/PatternMatch.h>
  <mlir/IR/SymbolTable.h>
  <mlir/Pass/Pass.h>
  <mlir/Pass/PassManager.h>
  <mlir/Transforms/DialectConversion.h>
  <mlir/Dialect/Arith/IR/Arith.h>
  <mlir/Dialect/Bufferization/IR/Bufferization.h>
  <mlir/Dialect/Func/IR/FuncOps.h>
  <mlir/Dialect/GPU/IR/GPUDialect.h>
  <mlir/Dialect/Linalg/IR/Linalg.h>
  <mlir/Dialect/LLVMIR/LLVMDialect.h>
  <mlir/Dialect/LLVMIR/NVVMDialect.h>
  <mlir/Dialect/LLVMIR/ROCDLDialect.h>
  <mlir/Dialect/Math/IR/Math.h>
  <mlir/Dialect/MemRef/IR/MemRef.h>
  <mlir/Dialect/NVGPU/IR/NVGPUDialect.h>
  <mlir/Dialect/SCF/IR/SCF.h>
  <mlir/Dialect/Tensor/IR/Tensor.h>
  <mlir/Dialect/Vector/IR/VectorOps.h>
  )

if(QUILT_PRECOMPILE_HEADERS)
  add_library(QuiltMlirHeaders OBJECT
    ${QUILT_SOURCE_DIR}/cmake/QuiltMlirHeaders.cpp)
  llvm_update_compile_flags(QuiltMlirHeaders)
  target_precompile_headers(QuiltMlirHeaders PRIVATE
    ${QUILT_PRECOMPILED_MLIR_HEADERS})
endif()

# Compiles each named target with the precompiled MLIR headers. An MLIR
# library's sources are compiled in its object library (obj.<name>), so that
# is the target that gets them.
function(quilt_use_precompiled_mlir_headers)
  if(NOT QUILT_PRECOMPILE_HEADERS)
    return()
  endif()
  foreach(name ${ARGN})
    if(TARGET obj.${name})
      set(name obj.${name})
    elseif(NOT TARGET ${name})
      continue()
    endif()
    target_precompile_headers(${name} REUSE_FROM QuiltMlirHeaders)
  endforeach()
endfunction()
