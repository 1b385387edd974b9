//===- ChipCheck.h - Whether a chip runs a GPU module's kernels -*- C++ -*-===//
//
// Part of the Quilt project. Internal to convert-ukernel-to-gpu's passes.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_LIB_CONVERSION_UKERNELTOGPU_CHIPCHECK_H
#define QUILT_LIB_CONVERSION_UKERNELTOGPU_CHIPCHECK_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::ukernel::gpucg {

/// Checks that `chip` is a chip LLVM's backend for it knows, of the vendor
/// the module's ops are for, with every instruction they need: cp.async
/// and mma.sync (sm_80), ldmatrix (sm_75), TMA and mbarrier waits (sm_90),
/// wgmma (sm_90a exactly); MFMA (CDNA's matrix cores), WMMA (RDNA 3 and
/// later). Otherwise emits an error naming `option` (how the user gave the
/// chip), the instruction and the op that needs it, and fails: the backend
/// would abort in instruction selection instead.
LogicalResult checkChipRunsModule(gpu::GPUModuleOp module, StringRef chip,
                                  StringRef option);

} // namespace mlir::ukernel::gpucg

#endif // QUILT_LIB_CONVERSION_UKERNELTOGPU_CHIPCHECK_H
