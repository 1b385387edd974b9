//===- AmdgcnLinking.h - Link the AMDGCN assembly of kernels ----*- C++ -*-===//
//
// Part of the Quilt project. Quilt compiles the kernels of an AMD device
// module one by one (so that each can come from the kernel cache) and the
// program still loads one code object: this joins their assembly, which
// the assembler then turns into that code object.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_UTILS_AMDGCNLINKING_H
#define QUILT_CONVERSION_UTILS_AMDGCNLINKING_H

#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <string>

namespace quilt {

/// Joins AMDGCN assembly files that the AMDGPU backend emitted for parts of
/// one device module (each kernel with the functions and variables it uses)
/// into one file.
///
/// The parts must agree on `.amdgcn_target`, `.amdhsa_code_object_version`
/// and every code-object metadata key but the kernel list. Each part's
/// code keeps its order. Assembler-local labels (`.L*`) of every part but
/// the first are renamed apart, as is any other symbol a part defines that
/// an earlier part defines too (a helper compiled into several kernels'
/// parts); two parts defining one kernel cannot be joined. The kernels'
/// metadata becomes one `amdhsa.kernels` list, the module-wide register
/// maximums (`.set amdgpu.max_num_*`) the largest of the parts', and the
/// padding after the code is kept after the last part's only. Returns
/// nullopt and sets `error` when the parts cannot be joined.
std::optional<std::string> linkAmdgcnAssembly(llvm::ArrayRef<std::string> parts,
                                              std::string &error);

} // namespace quilt

#endif // QUILT_CONVERSION_UTILS_AMDGCNLINKING_H
