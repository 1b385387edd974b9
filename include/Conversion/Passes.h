//===- Passes.h - Quilt conversion passes -----------------------*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_PASSES_H
#define QUILT_CONVERSION_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace amdgpu {
class AMDGPUDialect;
}
namespace arith {
class ArithDialect;
}
namespace bufferization {
class BufferizationDialect;
}
namespace func {
class FuncDialect;
}
namespace gpu {
class GPUDialect;
}
namespace LLVM {
class LLVMDialect;
}
namespace NVVM {
class NVVMDialect;
}
namespace ROCDL {
class ROCDLDialect;
}
namespace linalg {
class LinalgDialect;
}
namespace math {
class MathDialect;
}
namespace memref {
class MemRefDialect;
}
namespace nvgpu {
class NVGPUDialect;
}
namespace scf {
class SCFDialect;
}
namespace tensor {
class TensorDialect;
}
namespace vector {
class VectorDialect;
}
} // namespace mlir

namespace quilt {

/// Marks a function that frees buffers it did not allocate itself (an
/// already bufferized program with its deallocations lowered): it keeps its
/// own deallocations, and Quilt's buffer deallocation leaves it alone
/// (quilt-adopt-deallocations sets it, quilt-buffer-deallocation reads and
/// removes it).
inline constexpr llvm::StringLiteral kManagesItsMemoryAttrName =
    "quilt.manages_its_memory";

#define GEN_PASS_DECL
#include "Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Conversion/Passes.h.inc"

} // namespace quilt

#endif // QUILT_CONVERSION_PASSES_H
