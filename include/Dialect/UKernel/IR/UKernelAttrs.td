//===- UKernelAttrs.td - ukernel attributes ----------------*- tablegen -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_DIALECT_UKERNEL_IR_UKERNELATTRS_TD
#define QUILT_DIALECT_UKERNEL_IR_UKERNELATTRS_TD

include "Dialect/UKernel/IR/UKernelDialect.td"
include "Dialect/UKernel/IR/UKernelEnums.td"
include "mlir/IR/AttrTypeBase.td"

class UKernel_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<UKernel_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def UKernel_ContractionKindAttr
    : EnumAttr<UKernel_Dialect, UKernel_ContractionKind, "contraction">;
def UKernel_EpilogueKindAttr
    : EnumAttr<UKernel_Dialect, UKernel_EpilogueKind, "epilogue">;
def UKernel_EpilogueArrayAttr
    : TypedArrayAttrBase<UKernel_EpilogueKindAttr, "epilogue steps">;
def UKernel_EpilogueOperandKindAttr
    : EnumAttr<UKernel_Dialect, UKernel_EpilogueOperandKind,
               "epilogue_operand">;
def UKernel_EpilogueOperandKindArrayAttr
    : TypedArrayAttrBase<UKernel_EpilogueOperandKindAttr,
                         "how each fused epilogue operand is indexed">;
def UKernel_SelectionPolicyAttr
    : EnumAttr<UKernel_Dialect, UKernel_SelectionPolicy, "policy">;

// `MxNxK` style shape, e.g. `128x64x32`.
def UKernel_ShapeParameter : ArrayRefParameter<"int64_t", "shape"> {
  let parser = "::mlir::ukernel::parseShape($_parser)";
  let printer = "::mlir::ukernel::printShape($_printer, $_self)";
}

// A double, parsed as a plain number and printed in its shortest
// round-tripping form.
def UKernel_F64Parameter : APFloatParameter<"floating-point value"> {
  let parser = "::mlir::ukernel::parseF64($_parser)";
  let printer = "::mlir::ukernel::printF64($_printer, $_self)";
}

// `{simt_fma = 67.0, wgmma = 989.4}`: dense peak TFLOP/s per instruction.
def UKernel_DefaultF64Parameter : APFloatParameter<"floating-point value"> {
  let parser = "::mlir::ukernel::parseF64($_parser)";
  let printer = "::mlir::ukernel::printF64($_printer, $_self)";
  let defaultValue = "::llvm::APFloat(0.0)";
}

def UKernel_PeakTableParameter
    : ArrayRefParameter<"::mlir::ukernel::InstructionPeak", "peak table"> {
  let parser = "::mlir::ukernel::parsePeakTable($_parser)";
  let printer = "::mlir::ukernel::printPeakTable($_printer, $_self)";
}

def UKernel_DefaultI64Parameter : DefaultValuedParameter<"int64_t", "0">;

def UKernel_ConfigAttr : UKernel_Attr<"Config", "config"> {
  let summary = "One micro-kernel configuration";
  let description = [{
    A static-shape tile program: one thread block's (on a CPU, one core's
    register/cache block's) work on a `tile` of M x N x K, with `threads`
    threads laid out as `warps` (M x N warps), each thread owning a
    `thread_tile` (M x N) of accumulators, `vector_width`-element global
    accesses, a software pipeline of `stages` K-steps, built from
    `instruction`, handling partial tiles by `boundary`. `split_k` splits the
    K loop across blocks (default 1); `stream_k` (GPU only, default 0: off)
    runs that many persistent blocks, each taking an equal contiguous range
    of all the tiles' K steps, so that tiles left over by whole waves are
    shared by every block.

    ```mlir
    #ukernel.config<tile = 128x128x32, threads = 256, warps = 2x4,
                    thread_tile = 8x8, vector_width = 8, stages = 3,
                    instruction = mma_sync_f16, boundary = mask>
    ```

    The attribute verifier checks what holds on any target (positive sizes,
    tiles that are multiples of the instruction shape, warp layout and thread
    tiles that cover the tile). Limits that depend on the hardware (warp size,
    threads, shared memory, registers) are checked where a target is known:
    see `ukernel.dispatch`.
  }];
  let parameters = (ins
    UKernel_ShapeParameter:$tile,
    "int64_t":$threads,
    UKernel_ShapeParameter:$warps,
    UKernel_ShapeParameter:$thread_tile,
    "int64_t":$vector_width,
    "int64_t":$stages,
    EnumParameter<UKernel_InstructionKind>:$instruction,
    EnumParameter<UKernel_BoundaryPolicy>:$boundary,
    DefaultValuedParameter<"int64_t", "1">:$split_k,
    DefaultValuedParameter<"int64_t", "0">:$stream_k
  );
  let assemblyFormat = [{
    `<` `tile` `=` $tile `,` `threads` `=` $threads `,` `warps` `=` $warps `,`
    `thread_tile` `=` $thread_tile `,` `vector_width` `=` $vector_width `,`
    `stages` `=` $stages `,` `instruction` `=` $instruction `,`
    `boundary` `=` $boundary `` custom<TileSharing>($split_k, $stream_k) ``
    `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getTileM() const { return getTile()[0]; }
    int64_t getTileN() const { return getTile()[1]; }
    int64_t getTileK() const { return getTile()[2]; }
  }];
}

def UKernel_TunedAttr : UKernel_Attr<"Tuned", "tuned"> {
  let summary = "Shapes whose kernel a tuning database chose";
  let description = [{
    One entry of a tuning database applied to a dispatch (see
    docs/tuning.md): for (batched) GEMM shapes with `lower <= (b, m, n, k)
    <= upper` in every dimension, the policy `cost_model` runs candidate
    `candidate`, which measured fastest there, instead of the model's pick.
    When several regions hold a shape, the one whose centre is nearest
    wins. `source` says where the entry came from.

    ```mlir
    #ukernel.tuned<candidate = 16, lower = 1x100x768x768,
                   upper = 1x140x768x768, source = "tuned.db:5">
    ```
  }];
  let parameters = (ins
    "int64_t":$candidate,
    UKernel_ShapeParameter:$lower,
    UKernel_ShapeParameter:$upper,
    StringRefParameter<"where the entry came from">:$source
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def UKernel_CalibrationAttr : UKernel_Attr<"Calibration", "calibration"> {
  let summary = "Per-target coefficients of the cost model";
  let description = [{
    The fitted coefficients of the analytic model for one target (see
    docs/cost-model.md): the fraction of the instruction peak and of the
    memory bandwidth a kernel sustains, and fixed costs per launch and per
    tile, in microseconds. `quiltc calibrate` fits them from measurements.
  }];
  let parameters = (ins
    UKernel_F64Parameter:$compute_efficiency,
    UKernel_F64Parameter:$memory_efficiency,
    UKernel_F64Parameter:$launch_overhead_us,
    UKernel_F64Parameter:$tile_overhead_us
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def UKernel_TargetAttr : UKernel_Attr<"Target", "target"> {
  let summary = "Hardware facts of one GPU or CPU";
  let description = [{
    Everything the candidate generator and the cost model need to know about
    a target, normally filled from Quilt's target database by
    `ukernel-attach-target{target=NAME}` (the database cites the source of
    every number). Fields that do not apply to a vendor may be omitted and
    read as 0: `vector_bits` and `fma_units_per_core` are CPU facts, most
    per-block limits are GPU facts. `onchip_bytes_per_clock` is the shared
    memory (LDS) bandwidth per compute unit and clock. `f64_tflops` is a
    GPU's f64 FMA peak (no f64 kernels without it; a CPU's f64 rate follows
    from its vector width). `l2_bytes_per_clock` is a GPU's L2 read
    bandwidth over the whole chip per clock: split-K and stream-K partial
    sums that stay in L2 are priced at it (at the DRAM rate without it).
    Without a `calibration`, the cost model's default coefficients apply.

    ```mlir
    #ukernel.target<name = "h100", vendor = nvidia, chip = "sm_90a",
                    compute_units = 132, warp_size = 32, ...,
                    peak_tflops = {simt_fma = 66.9, wgmma = 989.4}>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"database name">:$name,
    EnumParameter<UKernel_Vendor>:$vendor,
    StringRefParameter<"chip or ISA level">:$chip,
    StringRefParameter<"what the target is, for people", "\"\"">:$description,
    "int64_t":$compute_units,
    "int64_t":$warp_size,
    UKernel_DefaultI64Parameter:$sub_partitions,
    "int64_t":$max_threads_per_block,
    UKernel_DefaultI64Parameter:$max_threads_per_cu,
    UKernel_DefaultI64Parameter:$max_blocks_per_cu,
    UKernel_DefaultI64Parameter:$registers_per_block,
    UKernel_DefaultI64Parameter:$registers_per_cu,
    UKernel_DefaultI64Parameter:$max_registers_per_thread,
    UKernel_DefaultI64Parameter:$shared_mem_per_block,
    UKernel_DefaultI64Parameter:$shared_mem_per_cu,
    UKernel_DefaultI64Parameter:$l1_bytes,
    UKernel_DefaultI64Parameter:$l2_bytes,
    UKernel_DefaultI64Parameter:$l3_bytes,
    UKernel_F64Parameter:$mem_bandwidth_gbs,
    UKernel_F64Parameter:$clock_ghz,
    UKernel_DefaultF64Parameter:$onchip_bytes_per_clock,
    UKernel_PeakTableParameter:$peak_tflops,
    OptionalParameter<"CalibrationAttr">:$calibration,
    UKernel_DefaultI64Parameter:$vector_bits,
    UKernel_DefaultI64Parameter:$fma_units_per_core,
    UKernel_DefaultF64Parameter:$f64_tflops,
    UKernel_DefaultF64Parameter:$l2_bytes_per_clock
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Peak TFLOP/s of `kind` on this target, 0 when it lacks it.
    double getPeak(InstructionKind kind) const;
  }];
}

#endif // QUILT_DIALECT_UKERNEL_IR_UKERNELATTRS_TD
