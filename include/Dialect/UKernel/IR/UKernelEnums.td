//===- UKernelEnums.td - ukernel enumerations --------------*- tablegen -*-===//
//
// Part of the Quilt project. The spellings match the cost-model library's
// (CostModel/Types.h), which the dialect converts to by value.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_DIALECT_UKERNEL_IR_UKERNELENUMS_TD
#define QUILT_DIALECT_UKERNEL_IR_UKERNELENUMS_TD

include "mlir/IR/EnumAttr.td"

def UKernel_Vendor : I32EnumAttr<"Vendor", "hardware vendor", [
    I32EnumAttrCase<"nvidia", 0>,
    I32EnumAttrCase<"amd", 1>,
    I32EnumAttrCase<"cpu", 2>]> {
  let cppNamespace = "::mlir::ukernel";
  let genSpecializedAttr = 0;
}

def UKernel_InstructionKind : I32EnumAttr<"InstructionKind",
    "instruction a micro-kernel's inner product is built from", [
    I32EnumAttrCase<"simt_fma", 0>,
    I32EnumAttrCase<"mma_sync_f16", 1>,
    I32EnumAttrCase<"mma_sync_tf32", 2>,
    I32EnumAttrCase<"wgmma", 3>,
    I32EnumAttrCase<"mfma_32x32x8", 4>,
    I32EnumAttrCase<"mfma_16x16x16", 5>,
    I32EnumAttrCase<"wmma_16x16x16", 6>,
    I32EnumAttrCase<"cpu_fma", 7>]> {
  let cppNamespace = "::mlir::ukernel";
  let genSpecializedAttr = 0;
}

def UKernel_BoundaryPolicy : I32EnumAttr<"BoundaryPolicy",
    "how a micro-kernel handles tiles that overhang the problem", [
    I32EnumAttrCase<"mask", 0>,
    I32EnumAttrCase<"pad", 1>,
    I32EnumAttrCase<"patch", 2>]> {
  let cppNamespace = "::mlir::ukernel";
  let genSpecializedAttr = 0;
}

def UKernel_ContractionKind : I32EnumAttr<"ContractionKind",
    "contraction computed by a dispatch", [
    I32EnumAttrCase<"matmul", 0>,
    I32EnumAttrCase<"batch_matmul", 1>,
    I32EnumAttrCase<"conv2d_nhwc", 2>,
    I32EnumAttrCase<"conv2d_nchw", 3>]> {
  let cppNamespace = "::mlir::ukernel";
  let genSpecializedAttr = 0;
}

def UKernel_EpilogueKind : I32EnumAttr<"EpilogueKind",
    "elementwise step applied to each accumulated result", [
    I32EnumAttrCase<"bias_add", 0>,
    I32EnumAttrCase<"relu", 1>,
    I32EnumAttrCase<"gelu", 2>]> {
  let cppNamespace = "::mlir::ukernel";
  let genSpecializedAttr = 0;
}

def UKernel_EpilogueOperandKind : I32EnumAttr<"EpilogueOperandKind",
    "how a fused epilogue's operand is indexed by the output element", [
    I32EnumAttrCase<"scalar", 0>,
    I32EnumAttrCase<"per_column", 1>,
    I32EnumAttrCase<"per_row", 2>,
    I32EnumAttrCase<"per_element", 3>]> {
  let cppNamespace = "::mlir::ukernel";
  let genSpecializedAttr = 0;
}

def UKernel_SelectionPolicy : I32EnumAttr<"SelectionPolicy",
    "how a dispatch chooses its micro-kernel at run time", [
    I32EnumAttrCase<"cost_model", 0>,
    I32EnumAttrCase<"fixed", 1>,
    I32EnumAttrCase<"pad", 2>,
    I32EnumAttrCase<"patch", 3>]> {
  let cppNamespace = "::mlir::ukernel";
  let genSpecializedAttr = 0;
}

#endif // QUILT_DIALECT_UKERNEL_IR_UKERNELENUMS_TD
