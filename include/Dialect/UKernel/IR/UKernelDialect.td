//===- UKernelDialect.td - The ukernel dialect -------------*- tablegen -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_DIALECT_UKERNEL_IR_UKERNELDIALECT_TD
#define QUILT_DIALECT_UKERNEL_IR_UKERNELDIALECT_TD

include "mlir/IR/OpBase.td"

def UKernel_Dialect : Dialect {
  let name = "ukernel";
  let cppNamespace = "::mlir::ukernel";
  let summary = "Dynamic-shape contractions over hardware-selected micro-kernels";
  let description = [{
    The `ukernel` dialect represents a contraction whose dimensions are only
    known at run time (matmul, batch_matmul, conv2d as implicit GEMM, with an
    optional fused elementwise epilogue) as a *dispatch* over a small list of
    compiled micro-kernel configurations. At run time the cost model picks a
    configuration for the actual shape (or patches the shape with two of
    them), and each micro-kernel is invoked tile by tile.

    Hardware is described by `#ukernel.target`, usually attached to the module
    as the discardable attribute `ukernel.target` by
    `ukernel-attach-target`; configurations are `#ukernel.config` attributes,
    checked against the target they will run on.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();

    /// Name of the discardable attribute carrying a #ukernel.target.
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("ukernel.target");
    }
    /// Name of the unit attribute on a GPU kernel that takes its tensor
    /// maps by value (quilt-gpu-tensor-maps-as-params).
    static constexpr ::llvm::StringLiteral getTensorMapsAsParamsAttrName() {
      return ::llvm::StringLiteral("ukernel.tensor_maps_as_params");
    }
  }];
}

class UKernel_Op<string mnemonic, list<Trait> traits = []>
    : Op<UKernel_Dialect, mnemonic, traits>;

#endif // QUILT_DIALECT_UKERNEL_IR_UKERNELDIALECT_TD
