//===- CostModelBridge.h - ukernel attributes <-> cost model ----*- C++ -*-===//
//
// Part of the Quilt project. The dialect's attributes and the MLIR-free
// cost-model library describe the same things; these conversions are the
// only place that maps one onto the other.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_DIALECT_UKERNEL_IR_COSTMODELBRIDGE_H
#define QUILT_DIALECT_UKERNEL_IR_COSTMODELBRIDGE_H

#include "CostModel/CostModel.h"
#include "CostModel/KernelConfig.h"
#include "CostModel/Target.h"
#include "CostModel/TunedRegion.h"
#include "Dialect/UKernel/IR/UKernelAttrs.h"

#include <optional>
#include <vector>

namespace mlir::ukernel {

quilt::InstKind toCostModel(InstructionKind kind);
quilt::BoundaryPolicy toCostModel(BoundaryPolicy policy);
quilt::Vendor toCostModel(Vendor vendor);
quilt::SelectionPolicy toCostModel(SelectionPolicy policy);
InstructionKind fromCostModel(quilt::InstKind kind);
BoundaryPolicy fromCostModel(quilt::BoundaryPolicy policy);
Vendor fromCostModel(quilt::Vendor vendor);
quilt::OpKind toCostModel(ContractionKind kind);

/// nullopt for element types the cost model does not know.
std::optional<quilt::ElemType> toCostModelElemType(Type type);

quilt::KernelConfig toKernelConfig(ConfigAttr config);
ConfigAttr getConfigAttr(MLIRContext *context, const quilt::KernelConfig &cfg);

/// A dispatch's or select's `tuned` attribute (null reads as none).
std::vector<quilt::TunedRegion> toTunedRegions(ArrayAttr tuned);
TunedAttr getTunedAttr(MLIRContext *context, const quilt::TunedRegion &region);

quilt::TargetDesc toTargetDesc(TargetAttr target);
TargetAttr getTargetAttr(MLIRContext *context, const quilt::TargetDesc &desc);

} // namespace mlir::ukernel

#endif // QUILT_DIALECT_UKERNEL_IR_COSTMODELBRIDGE_H
