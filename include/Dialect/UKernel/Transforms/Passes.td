//===- Passes.td - ukernel transformation passes -----------*- tablegen -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_DIALECT_UKERNEL_TRANSFORMS_PASSES_TD
#define QUILT_DIALECT_UKERNEL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def UKernelAttachTarget : Pass<"ukernel-attach-target", "ModuleOp"> {
  let summary = "Attach a hardware target from Quilt's database to the module";
  let description = [{
    Looks `target` up in Quilt's target database (the built-in targets, the
    detected `host`, and any targets from `target-file`) and attaches it to
    the module as the discardable attribute `ukernel.target`, which the
    passes that generate, check and cost micro-kernels read. An unknown name
    is an error that lists the known ones.

    ```
    quilt-opt --ukernel-attach-target=target=h100 in.mlir
    ```
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"",
           "Name of the target in the database (see `quiltc targets`)">,
    Option<"targetFile", "target-file", "std::string", /*default=*/"",
           "Extra target database file to read before looking `target` up">
  ];
  let dependentDialects = ["::mlir::ukernel::UKernelDialect"];
}

#endif // QUILT_DIALECT_UKERNEL_TRANSFORMS_PASSES_TD
