//===- DeviceToolchain.h - Compile, join and assemble device code -*- C++ -*-//
//
// Part of the Quilt project. What quilt-compile-gpu-kernels needs to know of
// a vendor: NVIDIA kernels compile to PTX, join into one PTX module and
// ptxas assembles it into a cubin; AMD kernels compile to AMDGCN assembly,
// join into one file, and the assembler and ld.lld turn it into a code
// object (hsaco).
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_UKERNELTOGPU_DEVICETOOLCHAIN_H
#define QUILT_CONVERSION_UKERNELTOGPU_DEVICETOOLCHAIN_H

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/IR/Builders.h"

#include <optional>
#include <string>

namespace quilt {

class DeviceToolchain {
public:
  /// A toolchain for `target` (an #nvvm.target or #rocdl.target) with the
  /// vendor's toolkit in `toolkit` ("" looks on PATH).
  DeviceToolchain(mlir::gpu::TargetAttrInterface target,
                  llvm::StringRef toolkit)
      : target(target), toolkit(toolkit.str()) {}

  /// Whether `target` is a target this class knows.
  static bool supports(mlir::Attribute target);

  bool isNvidia() const;
  mlir::gpu::TargetAttrInterface getTarget() const { return target; }

  /// "PTX" or "AMDGCN assembly", for messages.
  llvm::StringRef codeName() const;
  /// The kernel cache's suffix for a part's code and for a binary.
  llvm::StringRef codeSuffix() const;
  llvm::StringRef binarySuffix() const;

  /// What else than a part's text determines its code: the code generator
  /// and the device libraries the target links from the toolkit.
  std::string keyContext() const;

  /// The parts' code joined into one module, or nullopt with `error` set.
  std::optional<std::string> link(llvm::ArrayRef<std::string> parts,
                                  std::string &error) const;

  /// The program a binary needs (ptxas, ld.lld), or nullopt with `error`
  /// saying where it was looked for.
  std::optional<std::string> findBinaryTool(std::string &error) const;

  /// What else than the linked code determines its binary, given the tool.
  std::string binaryKeyContext(llvm::StringRef tool) const;

  /// The binary of the linked `code`, or nullopt after an error at `loc`.
  std::optional<std::string> assemble(mlir::Location loc, llvm::StringRef code,
                                      llvm::StringRef tool) const;

  /// The properties gpu-module-to-binary gives an object of this format.
  mlir::DictionaryAttr objectProperties(mlir::Builder &builder,
                                        bool binary) const;

private:
  mlir::gpu::TargetAttrInterface target;
  std::string toolkit;
};

} // namespace quilt

#endif // QUILT_CONVERSION_UKERNELTOGPU_DEVICETOOLCHAIN_H
