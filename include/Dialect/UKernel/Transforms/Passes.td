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

def UKernelApplyTuningDb : Pass<"ukernel-apply-tuning-db", "::mlir::ModuleOp"> {
  let summary = "Add a tuning database's measured winners to the dispatches";
  let description = [{
    Reads a tuning database (`quiltc tune` writes one; docs/tuning.md) and,
    for every `ukernel.dispatch` with entries for its kind, input element
    type and epilogue, appends each entry's configuration to the candidates
    (unless it is one already) and records the entry's shape region as a
    `#ukernel.tuned` region selecting it. Under `cost_model` selection, a
    call whose sizes fall in a region then runs the measured winner; the
    model decides every other call. The database must have been tuned for
    the dispatch's target (and, on CPUs, for `threads`): otherwise, and for
    a malformed or stale file, the error names the file, line and field.

    ```
    quilt-opt --ukernel-apply-tuning-db="db=tuned.db threads=1" in.mlir
    ```
  }];
  let options = [
    Option<"databasePath", "db", "std::string", /*default=*/"",
           "The tuning database file">,
    Option<"targetFile", "target-file", "std::string", /*default=*/"",
           "Extra target database file the tuning database's target is in">,
    Option<"threads", "threads", "int64_t", /*default=*/"1",
           "Threads the host kernels run on (must match the database's)">
  ];
}

def UKernelCostReport : Pass<"ukernel-cost-report", "::mlir::ModuleOp"> {
  let summary = "Report the cost model's ranking of each dispatch's candidates";
  let description = [{
    For every `ukernel.dispatch`, evaluates Quilt's cost model on its own
    candidates and policy, for its target, at the given GEMM-view `shapes`
    (`MxNxK` or `BxMxNxK`; a dispatch whose sizes are all static is also
    reported at those), and reports what `quiltc explain` reports: every
    candidate ranked with every named term, the choice (or patch) and why.
    The report is a remark on the op, or JSON on stdout with `json`. The IR
    is not changed.

    ```
    quilt-opt --ukernel-cost-report="shapes=1000x768x3072,1024x768x3072 top=3" in.mlir
    ```
  }];
  let options = [
    ListOption<"shapes", "shapes", "std::string",
               "GEMM-view shapes to report at: MxNxK or BxMxNxK">,
    Option<"top", "top", "int", /*default=*/"0",
           "Candidates shown per report, best first (0: all)">,
    Option<"json", "json", "bool", /*default=*/"false",
           "Print the reports as a JSON list on stdout instead of remarks">
  ];
}

#endif // QUILT_DIALECT_UKERNEL_TRANSFORMS_PASSES_TD
