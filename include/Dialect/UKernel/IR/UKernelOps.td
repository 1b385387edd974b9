//===- UKernelOps.td - ukernel operations ------------------*- tablegen -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_DIALECT_UKERNEL_IR_UKERNELOPS_TD
#define QUILT_DIALECT_UKERNEL_IR_UKERNELOPS_TD

include "Dialect/UKernel/IR/UKernelAttrs.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

def UKernel_ConfigArrayAttr
    : TypedArrayAttrBase<UKernel_ConfigAttr, "micro-kernel configurations">;
def UKernel_TunedArrayAttr
    : TypedArrayAttrBase<UKernel_TunedAttr, "tuned regions">;

def UKernel_ContractionElementType : AnyTypeOf<[F32, F16, BF16, F64]>;

//===----------------------------------------------------------------------===//
// DispatchOp
//===----------------------------------------------------------------------===//

def UKernel_DispatchOp : UKernel_Op<"dispatch", [
    AttrSizedOperandSegments,
    DestinationStyleOpInterface,
    IsolatedFromAbove,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "A dynamic-shape contraction over candidate micro-kernels";
  let description = [{
    Computes one contraction whose sizes are known only at run time, by one
    (or, when patching, two) of the `candidates` micro-kernels chosen per call
    by `policy`:

    - `cost_model`: the analytic model's cheapest candidate for the actual
      sizes, or a main + remainder patch when the model says it wins;
    - `fixed = i`: always candidate `i` (the lowerings build only its
      kernel);
    - `pad`: the cheapest candidate with the problem padded to its tile;
    - `patch`: always a main + remainder split.

    `kind` is the contraction in GEMM terms:

    | kind | lhs | rhs | init | GEMM view |
    |---|---|---|---|---|
    | `matmul` | MxK (KxM with `transpose_lhs`) | KxN (NxK with `transpose_rhs`) | MxN | M, N, K |
    | `batch_matmul` | BxMxK | BxKxN | BxMxN | B x (M, N, K) |
    | `conv2d_nhwc` | NxHxWxC | RxSxCxF (HWCF) | NxOHxOWxF | M = N*OH*OW, N = F, K = R*S*C |
    | `conv2d_nchw` | NxCxHxW | FxCxRxS (FCHW) | NxFxOHxOW | same |

    The optional `epilogue` applies elementwise steps to each accumulated
    value in order; `bias_add` adds `bias[n]` (a 1-D operand of size N).
    Accumulation is in f32 (`init` is f32 or the input element type), or in
    f64 for f64 inputs (`init` is f64). On
    tensors the op returns the updated `init`; on memrefs it writes `init` in
    place. Size-0 dimensions are legal and compute nothing.

    With `fill(value)`, C starts as that constant (of C's element type)
    instead of `init`'s contents, which are not read: a fill folded into the
    dispatch (`fill(0.0 : f32)` computes C = A x B without reading C).

    A `fused` epilogue is any elementwise computation instead, given as a
    body: its first argument is the accumulated value (f32, or the output's
    element type to round it first), then one element of each fused
    operand, and it yields the output's element. Each operand is indexed
    by the output element (m, n) of the GEMM view, as its kind says:

    | kind | operand | element read for (m, n) |
    |---|---|---|
    | `scalar` | a value (not shaped) | itself |
    | `per_column` | 1-D, size N (a bias; a convolution's output channels) | `x[n]` |
    | `per_row` | 1-D, size M (not on convolutions) | `x[m]` |
    | `per_element` | the output's shape (not on convolutions) | `x[b, m, n]` |

    The body holds only side-effect-free elementwise ops without regions
    (arith, math) and refers to no value defined outside it: the
    micro-kernels clone it into their update of C, on vectors on the host.

    ```mlir
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
           outs(%c : tensor<?x?xf16>)
           fused(%bias, %lim : tensor<?xf32>, f32) [per_column, scalar] {
           ^bb0(%acc: f32, %bj: f32, %l: f32):
             %0 = arith.addf %acc, %bj : f32
             %1 = arith.minimumf %0, %l : f32
             %2 = arith.truncf %1 : f32 to f16
             ukernel.yield %2 : f16
           }
           candidates [...] -> tensor<?x?xf16>
    ```

    `tuned` regions (#ukernel.tuned, from a tuning database) name the
    candidate that measured fastest for a box of shapes; under `cost_model`
    it runs there instead of the model's pick.

    Candidates are checked against the target they run on: the op's `target`
    attribute if present, else the `ukernel.target` attribute of the nearest
    enclosing op that has one.

    ```mlir
    %r = ukernel.dispatch matmul transpose_rhs
           ins(%x, %w : tensor<?x?xf16>, tensor<?x?xf16>)
           outs(%acc : tensor<?x?xf32>)
           bias(%b : tensor<?xf32>) epilogue [bias_add, gelu]
           candidates [#ukernel.config<...>, #ukernel.config<...>]
           policy cost_model -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins
    UKernel_ContractionKindAttr:$kind,
    AnyShaped:$lhs,
    AnyShaped:$rhs,
    AnyShaped:$init,
    Optional<AnyShaped>:$bias,
    Variadic<AnyType>:$epilogue_operands,
    UKernel_ConfigArrayAttr:$candidates,
    DefaultValuedAttr<UKernel_SelectionPolicyAttr,
                      "::mlir::ukernel::SelectionPolicy::cost_model">:$policy,
    OptionalAttr<I64Attr>:$fixed_candidate,
    DefaultValuedAttr<UKernel_EpilogueArrayAttr, "{}">:$epilogue,
    UnitAttr:$transpose_lhs,
    UnitAttr:$transpose_rhs,
    OptionalAttr<DenseI64ArrayAttr>:$strides,
    OptionalAttr<DenseI64ArrayAttr>:$dilations,
    OptionalAttr<UKernel_TargetAttr>:$target,
    DefaultValuedAttr<UKernel_EpilogueOperandKindArrayAttr, "{}">:
        $epilogue_operand_kinds,
    OptionalAttr<TypedAttrInterface>:$fill,
    OptionalAttr<UKernel_TunedArrayAttr>:$tuned
  );
  let results = (outs Optional<AnyRankedTensor>:$result);
  let regions = (region AnyRegion:$epilogue_body);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) (`transpose_lhs` $transpose_lhs^)? (`transpose_rhs` $transpose_rhs^)?
    `ins` `(` $lhs `,` $rhs `:` type($lhs) `,` type($rhs) `)`
    `outs` `(` $init `:` type($init) `)`
    (`fill` `(` $fill^ `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`epilogue` custom<EpilogueList>($epilogue)^)?
    custom<FusedEpilogue>($epilogue_operands, type($epilogue_operands),
                          $epilogue_operand_kinds, $epilogue_body)
    (`strides` $strides^)? (`dilations` $dilations^)?
    `candidates` $candidates
    (`tuned` $tuned^)?
    (`policy` custom<EnumKeyword>($policy)^)? (`=` $fixed_candidate^)?
    (`target` $target^)?
    attr-dict (`->` type($result)^)?
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }

    /// The target the candidates run on: the `target` attribute, else the
    /// nearest enclosing `ukernel.target`; null when there is none.
    TargetAttr getEffectiveTarget();

    /// Element type of the contraction inputs.
    Type getInputElementType() {
      return ::llvm::cast<ShapedType>(getLhs().getType()).getElementType();
    }

    /// The indices of the candidates a call can run: the fixed one under
    /// `policy fixed`, else all of them. The lowerings build and call
    /// kernels for these only.
    ::llvm::SmallVector<int64_t> getRunnableCandidates();

    /// Whether the epilogue is a fused body (rather than named steps).
    bool hasFusedEpilogue() { return !getEpilogueBody().empty(); }

    /// The fused epilogue's operand kinds, in operand order.
    ::llvm::SmallVector<EpilogueOperandKind> getEpilogueOperandKindList() {
      ::llvm::SmallVector<EpilogueOperandKind> kinds;
      for (::mlir::Attribute kind : getEpilogueOperandKinds())
        kinds.push_back(
            ::llvm::cast<EpilogueOperandKindAttr>(kind).getValue());
      return kinds;
    }

    /// The epilogue's steps, in order.
    ::llvm::SmallVector<EpilogueKind> getEpilogueSteps() {
      ::llvm::SmallVector<EpilogueKind> steps;
      for (::mlir::Attribute step : getEpilogue())
        steps.push_back(::llvm::cast<EpilogueKindAttr>(step).getValue());
      return steps;
    }
  }];
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

def UKernel_YieldOp : UKernel_Op<"yield", [
    Pure, Terminator, ReturnLike, HasParent<"DispatchOp">]> {
  let summary = "The element a fused epilogue computes";
  let description = [{
    Ends a dispatch's fused epilogue body with the output element.
  }];
  let arguments = (ins AnyType:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

//===----------------------------------------------------------------------===//
// SelectOp
//===----------------------------------------------------------------------===//

def UKernel_SelectOp : UKernel_Op<"select", [Pure]> {
  let summary = "Choose micro-kernels for run-time sizes with the cost model";
  let description = [{
    Evaluates Quilt's analytic cost model for the GEMM-view sizes
    (`batch`, `m`, `n`, `k`) on every candidate, applies `policy`, and
    returns (under `cost_model`, a shape inside a `tuned` region takes that
    region's candidate, as on `ukernel.dispatch`):

    - `kernel`: the candidate to run, or a patch's main candidate;
    - `remainder`: a patch's remainder candidate (equal to `kernel` when
      there is no patch);
    - `split_m`, `split_n`: the main candidate covers rows `[0, split_m)` and
      columns `[0, split_n)`. A patch splits one dimension: the remainder
      covers rows `[split_m, m)` (all columns) or columns `[split_n, n)` (all
      rows). Without a patch, `split_m = m` and `split_n = n`.

    This is the computation `quiltc explain` performs, so what the compiler
    reports is what the program runs.

    ```mlir
    %kernel, %rem, %split_m, %split_n = ukernel.select %b, %m, %n, %k for f16
        candidates [#ukernel.config<...>, #ukernel.config<...>]
        policy patch
    ```
  }];
  let arguments = (ins
    Index:$batch, Index:$m, Index:$n, Index:$k,
    TypeAttrOf<UKernel_ContractionElementType>:$element_type,
    UKernel_ConfigArrayAttr:$candidates,
    DefaultValuedAttr<UKernel_SelectionPolicyAttr,
                      "::mlir::ukernel::SelectionPolicy::cost_model">:$policy,
    OptionalAttr<I64Attr>:$fixed_candidate,
    OptionalAttr<UKernel_TargetAttr>:$target,
    OptionalAttr<UKernel_TunedArrayAttr>:$tuned
  );
  let results = (outs Index:$kernel, Index:$remainder, Index:$split_m,
                      Index:$split_n);
  let assemblyFormat = [{
    $batch `,` $m `,` $n `,` $k `for` $element_type
    `candidates` $candidates
    (`tuned` $tuned^)?
    (`policy` custom<EnumKeyword>($policy)^)? (`=` $fixed_candidate^)?
    (`target` $target^)?
    attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    TargetAttr getEffectiveTarget();
  }];
}

//===----------------------------------------------------------------------===//
// InvokeOp
//===----------------------------------------------------------------------===//

def UKernel_InvokeOp : UKernel_Op<"invoke", [AttrSizedOperandSegments]> {
  let summary = "Run one micro-kernel on one output tile";
  let description = [{
    Computes `acc[offsets + (i, j)] = epilogue(acc[...] + sum_k lhs * rhs)`
    for the `sizes` = (m, n, k) extents of one tile with the micro-kernel
    `config`. `offsets` index the accumulator: (m0, n0), or (b, m0, n0) for a
    batched contraction. A tile may be smaller than the configuration's tile
    only when `masked` is set: masked tiles guard every access, unmasked ones
    must be full (their M and N extents equal the tile's).

    ```mlir
    ukernel.invoke #ukernel.config<...>
        ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>)
        outs(%c : memref<?x?xf32>)
        offsets [%i, %j] sizes [%tm, %tn, %k] masked
    ```
  }];
  let arguments = (ins
    UKernel_ConfigAttr:$config,
    Arg<AnyMemRef, "left operand", [MemRead]>:$lhs,
    Arg<AnyMemRef, "right operand", [MemRead]>:$rhs,
    Arg<AnyMemRef, "accumulator", [MemRead, MemWrite]>:$acc,
    Arg<Optional<AnyMemRef>, "bias", [MemRead]>:$bias,
    Variadic<Index>:$offsets,
    Variadic<Index>:$sizes,
    DefaultValuedAttr<UKernel_EpilogueArrayAttr, "{}">:$epilogue,
    UnitAttr:$transpose_lhs,
    UnitAttr:$transpose_rhs,
    UnitAttr:$masked
  );
  let assemblyFormat = [{
    $config (`transpose_lhs` $transpose_lhs^)? (`transpose_rhs` $transpose_rhs^)?
    `ins` `(` $lhs `,` $rhs `:` type($lhs) `,` type($rhs) `)`
    `outs` `(` $acc `:` type($acc) `)`
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`epilogue` custom<EpilogueList>($epilogue)^)?
    `offsets` ` ` `[` $offsets `]` `sizes` ` ` `[` $sizes `]`
    (`masked` $masked^)?
    attr-dict
  }];
  let hasVerifier = 1;
}

#endif // QUILT_DIALECT_UKERNEL_IR_UKERNELOPS_TD
