//===- Registration.h - What a Quilt compiler front end registers -*- C++ -*-===//
//
// Part of the Quilt project. The dialects, extensions, passes and LLVM
// targets that compileSource, runPipelineOnSource and the Python module
// parse and run with, registered in one place so they agree.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COMPILER_REGISTRATION_H
#define QUILT_COMPILER_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace quilt {

/// Every upstream dialect, extension and LLVM IR translation plus Quilt's.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// Every upstream and Quilt pass and pipeline, and every LLVM target, in the
/// process-wide registries. Safe to call any number of times from any thread.
void registerCompilerPassesOnce();

} // namespace quilt

#endif // QUILT_COMPILER_REGISTRATION_H
