//===- Passes.td - Quilt conversion passes -----------------*- tablegen -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_PASSES_TD
#define QUILT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// LinalgToUKernel
//===----------------------------------------------------------------------===//

def ConvertLinalgToUKernel : Pass<"convert-linalg-to-ukernel", "::mlir::ModuleOp"> {
  let summary = "Turn dynamic-shape linalg contractions into ukernel dispatches";
  let description = [{
    Rewrites every product a dispatch computes into a `ukernel.dispatch`
    whose candidates the cost-model library generates for the module's
    target (`ukernel.target`, attached by `ukernel-attach-target`):
    `linalg.conv_2d_nhwc_hwcf` and `linalg.conv_2d_nchw_fchw`, and any
    linalg op (`linalg.matmul`, `linalg.batch_matmul`, `linalg.contract`,
    `linalg.generic`, ...) whose body is a multiply-add of its two inputs
    (each at most extended) into its output and whose indexing maps are a
    matmul's or batch matmul's up to a permutation of loops: A and B
    transposed or not, the output transposed (C^T = A x B becomes C = B^T x
    A^T), and a batched product's operand without the batch dimension (a
    shared B folds the batch into M; a shared A is broadcast first, on
    tensors). Recognition reads the IR's structure; nothing is evaluated.
    Operands are tensors or memrefs with f32, f16 or bf16 inputs, or f64
    inputs into an f64 output (SIMT and CPU FMA candidates). A fill of
    the output with a float constant folds into the dispatch (on memrefs,
    when it is the last op before the contraction that touches memory).
    When the contraction's init is a fill, the chain of elementwise
    consumers of its result (`linalg.generic` with parallel loops and
    identity maps on the result and output, or elementwise named ops such
    as `linalg.add`, generalized) is fused as the dispatch's epilogue body,
    op by op, whatever it computes: other inputs become `scalar` (rank 0,
    or scalars defined above), `per_column` (1-D along N), `per_row` (1-D
    along M) or `per_element` (the output's shape) operands, constants
    defined above are copied in, and the output may be f32 or the input
    element type (f64 for f64). With a shared B the consumers fold into
    rows with the product (no `per_row` operand then). On memrefs the
    dispatch takes the last consumer's place, so each consumer must follow
    its writer with nothing that touches memory in between, and update the
    buffer in place or read a temporary allocation nothing else uses. See
    `ukernel.dispatch`.

    Ops it does not handle (other linalg ops, integer and 8-bit types, f64
    inputs into another output type, contractions whose accumulator is not
    f32 or the input type, several M, N or K loops, a shared operand on
    buffers that needs a broadcast) are left untouched, for the upstream
    lowering.

    With `residual-model=FILE`, candidate pruning compares the analytic
    predictions corrected by that learned residual (docs/tuning.md); the
    run-time selection among the kept candidates stays analytic.
  }];
  let options = [
    Option<"maxCandidates", "max-candidates", "int64_t", /*default=*/"16",
           "Largest number of micro-kernel candidates per dispatch">,
    Option<"policy", "policy", "std::string", /*default=*/"\"cost_model\"",
           "Run-time selection policy: cost_model, pad, patch or fixed=<i>">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", /*default=*/"true",
           "Fuse the chain of elementwise consumers into the dispatch">,
    Option<"residualModel", "residual-model", "std::string",
           /*default=*/"\"\"",
           "Learned residual model (bench/host/train_residual.py) whose "
           "corrected predictions decide which candidates are kept">
  ];
  let dependentDialects = [
    "::mlir::ukernel::UKernelDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

//===----------------------------------------------------------------------===//
// UKernelToHost
//===----------------------------------------------------------------------===//

def ConvertUKernelToHost : Pass<"convert-ukernel-to-host", "::mlir::ModuleOp"> {
  let summary = "Generate CPU micro-kernels and run-time selection";
  let description = [{
    Lowers `ukernel.dispatch` ops on memrefs for a CPU target (vendor `cpu`):
    each call computes the GEMM-view sizes, lets `ukernel.select` (the cost
    model, at run time) pick a candidate or a main + remainder patch, and
    calls the chosen micro-kernel function on the main and the remainder
    region. Each (candidate, kind, element types, epilogue, transposes,
    operand layouts) becomes one private function in the BLIS structure:
    the candidate's tile M/N/K are the cache blocks mc/nc/kc, its thread
    tile the mr x nr register block; B panels and A blocks are packed into
    contiguous f32 buffers (zero-padded, f16/bf16 converted, with vector
    loads along whichever dimension of the stored operand is contiguous),
    and the micro-kernel keeps the accumulators in vector registers across
    the K block. A kernel loops over the batch of a `batch_matmul` itself.
    The epilogue is applied once, after the last K block; `math.erf` (GELU)
    becomes a polynomial, so the code needs no libm. An f16/bf16 or
    non-contiguous C is accumulated in an f32 copy.

    A call whose problem is small enough not to need the cache blocks
    (M <= mc, N <= nc, 0 < K, M*K + K*N <= mc*kc + kc*nc), with f32
    operands and B's rows contiguous along N, is not packed: the
    micro-kernel reads A and B where they are stored, over all of K, with
    masked loads at the N edge.

    Convolutions (`conv2d_nhwc`, `conv2d_nchw`, with their strides and
    dilations) run as implicit GEMMs (M = N*OH*OW, N = F, K = R*S*C): A
    blocks are packed straight from the image (im2col inside the packing:
    runs of 8 channels per panel row, transposed in registers, for an NHWC
    image with contiguous channels and C a multiple of 8; otherwise one
    gather per k step of a micro-panel), B is the filter read as a matrix,
    and C is the output: updated in place for an f32 NHWC output with an
    identity layout, accumulated in an f32 M x F copy otherwise.

    With `threads` other than 1 the cache blocks (batch element, N block, M
    block) of each kernel call run as the iterations of one `scf.parallel`,
    each packing its own blocks (or, for problems read in place, one
    iteration per batch element); `quilt-lower-to-host` lowers it to
    OpenMP.
    The cost model is then told the code runs on that many of the target's
    cores (all of them for 0).

    Every `ukernel.select` (the ones this pass creates and any already in the
    module) then becomes a call of Quilt's runtime, `quilt_rt_select`, with
    the selection spec (`quilt::formatSelectionSpec`) as a constant string
    and a per-select cache slot, so the program evaluates the same cost model
    as `quiltc explain`.

    Before any of that, each dispatch checks its operands at run time: the
    sizes that must agree (K of A and B, C's M and N, batch sizes, the
    bias's length, a convolution's images, channels, filters and output
    size) and a non-null data pointer for every operand with elements. On
    the first failed check it calls `quilt_rt_report_operand_error` (the
    message is then `quilt_rt_last_error()`, the status `quilt_rt_status()`)
    and does nothing else.

    Dispatches on tensors, for non-CPU targets, with candidates that are not
    `cpu_fma` or operands that are not strided are diagnosed.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"1",
           "Threads the kernels run on: 1 generates sequential loops; N > 1 "
           "parallel loops for N threads; 0 parallel loops for as many "
           "threads as the OpenMP runtime gives (OMP_NUM_THREADS)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

//===----------------------------------------------------------------------===//
// UKernelToGPU
//===----------------------------------------------------------------------===//

def ConvertUKernelToGPU : Pass<"convert-ukernel-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Generate GPU micro-kernels, run-time selection and launches";
  let description = [{
    Lowers `ukernel.dispatch` ops on memrefs for an NVIDIA or AMD target.
    Each (candidate, element types, epilogue, transposes, operand layouts)
    becomes one `gpu.func` kernel in a `gpu.module` per vendor
    (`@quilt_nvidia_kernels`, `@quilt_amdgpu_kernels`). A block computes a
    TM x TN tile of C (the candidate's tile): it stages TM x TK and TK x TN
    operand tiles in dynamic workgroup memory (vector global loads when the
    host found the operand aligned, element loads with zero fill at the
    edges), then accumulates in registers with the candidate's instruction:

    - `simt_fma`: a thread_tile M x N block of f32 FMAs per thread;
    - `mma_sync_f16` / `mma_sync_tf32`: `nvgpu.mma.sync` m16n8k16 / m16n8k8
      per warp over a warp tile of tile / warps;
    - `wgmma`: the same warp tiles, issued as mma.sync m16n8k16; with
      `native-wgmma`, as `wgmma.mma_async` m64nNk16 per warpgroup (4
      consecutive warps) reading 128-byte-swizzled tiles through matrix
      descriptors, for sm_90a and f16/bf16 candidates with a 64-deep K
      tile (others stay mma.sync). Off by default until it has been run on
      an H100 (docs/gpu-codegen.md). With `tma` as well, those kernels of
      matmuls and batch matmuls load their tiles with TMA
      (`cp.async.bulk.tensor`, an mbarrier per stage) from tensor maps the
      host encodes per launch (`quilt_gpu_tile_map`) and passes by value
      (the kernel is marked for `quilt-gpu-tensor-maps-as-params`, which
      must run before `gpu-module-to-binary`); a launch whose operands a
      tensor map cannot describe (rows not 16-byte aligned) runs the same
      candidate staged by `cp.async`;
    - `mfma_32x32x8`, `mfma_16x16x16`, `wmma_16x16x16`: `amdgpu.mfma` /
      `amdgpu.wmma` per wavefront.

    The epilogue (bias, ReLU, GELU with a polynomial erf) is applied when C
    is updated, masked to the matrix. On the host each dispatch becomes the
    GEMM-view sizes, a `ukernel.select` (lowered to `quilt_rt_select`, the
    cost model at run time) and one `gpu.launch_func` per candidate in an
    `scf.index_switch`, for the main region and a patch's remainder.

    Each dispatch first checks its operands' sizes and (device) pointers
    as `convert-ukernel-to-host` does, and on a failed check reports it
    through `quilt_rt_report_operand_error` instead of launching.

    Dispatches on tensors, for CPU targets, convolutions whose filter is not
    a contiguous buffer and candidates with split-K are diagnosed.
  }];
  let options = [
    Option<"nativeWgmma", "native-wgmma", "bool", /*default=*/"false",
           "Issue wgmma candidates as wgmma.mma_async on sm_90a (else as "
           "mma.sync)">,
    Option<"tmaLoads", "tma", "bool", /*default=*/"false",
           "Load the tiles of native wgmma kernels with TMA where the "
           "operands allow (needs native-wgmma)">
  ];
  let dependentDialects = [
    "::mlir::amdgpu::AMDGPUDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::ROCDL::ROCDLDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def QuiltGpuDeviceBuffers : Pass<"quilt-gpu-device-buffers", "::mlir::ModuleOp"> {
  let summary = "Put the host code's buffers of a GPU program in device memory";
  let description = [{
    A function compiled for a GPU target takes and returns device memory
    (the C ABI of a Quilt GPU library, like cuBLAS). Bufferization, however,
    allocates its temporaries with `memref.alloc`, which the host lowering
    turns into `malloc`. This pass rewrites, in functions outside
    `gpu.module`s: `memref.alloc` to `gpu.alloc`, `memref.dealloc` to an
    asynchronous `gpu.dealloc` that is waited for, and `memref.copy` to
    `gpu.memcpy`, so that every buffer the kernels touch is device memory.
    Each is issued asynchronously and waited for at once, the form
    `gpu-to-llvm` lowers.

    Copies between buffers of different layouts and `memref.alloca` have no
    device counterpart here and are diagnosed.

    A function the program only declares (MLIR's `printMemrefF32`, a C
    helper) runs on the host, which cannot dereference device memory: each
    device buffer a call passes it is copied into a new host buffer for the
    call, and back after it unless the declaration marks the argument
    `bufferization.access = "read"`. An unranked argument is staged through
    the ranked buffer it was cast from; a strided view or an unranked buffer
    of unknown origin is diagnosed at the call.

    The deallocation pipeline's bookkeeping stays in host memory: a
    `memref<N x index>` or `memref<N x i1>` allocation that is only loaded,
    stored, cast, freed and passed to a private helper of the module (the
    base pointers and ownership flags `bufferization.dealloc` lowers to,
    and `@dealloc_helper`), which host code fills and reads.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def QuiltGpuHostAccessesToKernels
    : Pass<"quilt-gpu-host-accesses-to-kernels", "::mlir::ModuleOp"> {
  let summary = "Run a GPU program's own element loads and stores on the "
                "device";
  let description = [{
    In a GPU program every buffer is device memory
    (`quilt-gpu-device-buffers`), which host code cannot dereference. The
    `memref.load`s and `memref.store`s a program writes itself, outside
    any linalg op (an exporter's KV-cache update, a hand-written attention
    loop), would dereference device pointers on the host: a crash on a GPU,
    and silently fine on an emulator whose device memory is host memory.

    This pass moves each outermost piece of host code that accesses
    device memory, defines no value, and holds nothing but scalar
    arithmetic (`arith`, `math`, `index`), structured control flow
    (`scf.for`, `scf.if`, `scf.while`) and buffer loads, stores, sizes and
    views into a `gpu.launch` of one block of one thread, in place: it runs
    in program order, serially, on the device. Inside any other piece (one
    holding host work such as a product, a call or an allocation, one that
    also accesses host memory, or one whose results the host uses), each
    access of device memory moves alone: a store into a kernel of its own;
    a load into a kernel that writes the element to a device cell, copied
    into a host cell that the host code loads. Host memory is what
    `memref.alloc` still allocates after `quilt-gpu-device-buffers` (the
    deallocation pipeline's bookkeeping), globals, and the arguments of
    private functions that every call gives host memory; it stays on the
    host. An atomic update of device memory whose old value the host uses
    is an error at its location.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def QuiltAttachGpuTarget : Pass<"quilt-attach-gpu-target", "::mlir::ModuleOp"> {
  let summary = "Give every gpu.module the chip it is compiled for";
  let description = [{
    `convert-ukernel-to-gpu` compiles its kernel modules for the chip of the
    dispatch's `ukernel.target`. Kernels that other passes outline later
    (e.g. a `linalg.fill` mapped to the GPU) start without a target; this
    pass gives them the same `#nvvm.target` / `#rocdl.target` as Quilt's
    kernel module. With `chip` set, every gpu.module is compiled for that
    chip instead (`sm_*` for NVVM with PTX ISA 8.0, `gfx*` for ROCDL).
    With `vendor` set (as `quilt-lower-to-nvvm` and `quilt-lower-to-rocdl`
    set it), a module whose chip is the other vendor's is an error.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Chip for every gpu.module (sm_80, sm_90a, gfx942, ...); empty "
           "keeps the chip the kernels were generated for">,
    Option<"targetChip", "target-chip", "std::string", /*default=*/"\"\"",
           "The program's target's chip, for modules when no Quilt kernel "
           "module says one (a program without contractions)">,
    Option<"vendor", "vendor", "std::string", /*default=*/"\"\"",
           "The GPU vendor the surrounding pipeline lowers for (nvidia, "
           "amd): a module targeting the other vendor's chip is an error "
           "naming the pipeline to use; empty accepts either">,
    Option<"pipeline", "pipeline", "std::string", /*default=*/"\"\"",
           "The surrounding pipeline's name, for that error">
  ];
  let dependentDialects = [
    "::mlir::NVVM::NVVMDialect",
    "::mlir::ROCDL::ROCDLDialect",
  ];
}

def QuiltMergeGpuModules
    : Pass<"quilt-merge-gpu-modules", "::mlir::ModuleOp"> {
  let summary = "Put all device code of a program in one gpu.module";
  let description = [{
    Kernel outlining gives every kernel that upstream passes map to the GPU
    its own `gpu.module`, next to Quilt's kernel module. This pass moves
    every gpu.module's symbols into one (Quilt's, which carries the target,
    else the first), renaming symbols that collide, and points every
    `gpu.launch_func` at it: a compilation's device code is one PTX file,
    cubin or hsaco, and the host code loads one module.
  }];
}

def QuiltLowerGpuKernels
    : Pass<"quilt-lower-gpu-kernels", "::mlir::ModuleOp"> {
  let summary = "Run the device pipeline on each kernel, through the kernel "
                "cache";
  let description = [{
    Runs `device-pipeline` (a pipeline anchored on `gpu.module`, such as
    `gpu.module(convert-gpu-to-nvvm,canonicalize)`) on every `gpu.module`,
    as a pipeline nested in the pass manager would.

    With `kernel-cache` set, each kernel (with the functions and variables
    it uses, the parts of quilt-compile-gpu-kernels) is lowered on its own
    and kept in that directory under the BLAKE3 hash of its unlowered ops, the
    pipeline, the module's target and the code that runs the pipeline (the
    LLVM and MLIR libraries, and Quilt's when the pipeline holds a Quilt
    pass); a kernel found there is not lowered again, and the kernels it
    lacks are lowered side by side on the context's threads (as sibling
    `gpu.module`s of a nested `builtin.module`). The lowered parts are
    then put back into their module, each function and variable once. Parts
    that lower one function or variable two different ways cannot share a
    module: that module is then lowered whole. An entry that does not parse
    is lowered again and replaced.
  }];
  let options = [
    Option<"devicePipeline", "device-pipeline", "std::string",
           /*default=*/"\"gpu.module()\"",
           "The pipeline that lowers a gpu.module's device code, in MLIR's "
           "textual form anchored on gpu.module">,
    Option<"kernelCache", "kernel-cache", "std::string", /*default=*/"\"\"",
           "Directory of lowered kernels to reuse and fill; empty lowers "
           "each module whole">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def QuiltCompileGpuKernels
    : Pass<"quilt-compile-gpu-kernels", "::mlir::ModuleOp"> {
  let summary = "Compile NVIDIA and AMD device modules kernel by kernel, in "
                "parallel and through a kernel cache";
  let description = [{
    Replaces every `gpu.module` with one `#nvvm.target` or `#rocdl.target`
    by a `gpu.binary`, as `gpu-module-to-binary` does, but hands LLVM one
    kernel at a time: each kernel (`gpu.kernel`, `nvvm.kernel`,
    `rocdl.kernel`) with the functions and variables it uses is compiled on
    its own, on the context's threads, and the parts are linked back into
    one module, so the program still loads one binary.

    NVIDIA: each part is compiled to PTX and the PTX modules are joined (a
    function or variable several kernels use is kept once; an internal one
    the optimizer changed differently for two kernels is renamed in one);
    with `format=bin` ptxas assembles the linked PTX, as gpu-module-to-binary
    runs it. AMD: each part is compiled to AMDGCN assembly and the files are
    joined (one header, assembler-local labels and a symbol two parts define
    renamed apart, one metadata block listing every kernel, the module's
    register maximums the largest of the parts'); with `format=bin` LLVM's
    assembler and ld.lld make the code object (hsaco), as
    gpu-module-to-binary does, and an assembler error is reported.

    With `kernel-cache` set, a kernel's code is looked up in that directory
    under the BLAKE3 hash of its module's text, the LLVM version, the LLVM and
    MLIR libraries of the running process and the toolkit's device
    libraries (libdevice; ROCm's amdgcn bitcode), and kept there when
    compiled; so is each binary, under its linked code, the tool that
    made it and that tool's options (ptxas: the chip, the optimization
    level and the target's `ptxas-cmd-options`). Entries are written to a private file and renamed into place,
    so concurrent compiles may share a directory.

    Kernels that share a variable in device memory (a non-constant global
    outside shared memory), or a kernel that another kernel's part would
    hold, are compiled together, in one part: compiled apart, each would
    assume it alone uses the variable. Modules for other targets are left to
    `gpu-module-to-binary`.
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"isa\"",
           "isa (PTX, AMDGCN assembly) or bin (a cubin through ptxas, an "
           "hsaco through ld.lld)">,
    Option<"toolkit", "toolkit", "std::string", /*default=*/"\"\"",
           "CUDA toolkit directory (bin/ptxas, nvvm/libdevice) or ROCm "
           "directory (llvm/bin/ld.lld, amdgcn/bitcode); empty looks for "
           "the tools on PATH">,
    Option<"kernelCache", "kernel-cache", "std::string", /*default=*/"\"\"",
           "Directory of compiled kernels to reuse and fill; empty compiles "
           "every kernel">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def QuiltGpuTensorMapsAsParams
    : Pass<"quilt-gpu-tensor-maps-as-params", "::mlir::ModuleOp"> {
  let summary = "Pass a TMA kernel's tensor maps by value, as __grid_constant__ parameters";
  let description = [{
    A kernel that `convert-ukernel-to-gpu` builds with TMA loads carries
    `ukernel.tensor_maps_as_params`: each of its tensor maps (a pointer
    argument whose every use is the descriptor of a TMA copy or a
    `prefetch.tensormap`) is a 128-byte CUtensorMap that the host encodes
    per launch (`quilt_gpu_tile_map`) into a buffer of its own stack, and the
    launch names that buffer. Run after the device code is lowered to LLVM
    and before `gpu-module-to-binary`, this pass gives each such argument
    `llvm.byval = !llvm.array<128 x i8>`, `llvm.align = 128` and
    `nvvm.grid_constant` (so the kernel reads the map in parameter space,
    as CUDA's `const __grid_constant__ CUtensorMap`), and makes every
    `gpu.launch_func` of the kernel pass the buffer's bytes (an `llvm.load`
    of the array) instead of its address: the driver copies them into the
    kernel's parameters at launch. No device memory holds a map and none is
    copied to the device.

    Kernel arguments are matched to launch operands through the LLVM type
    converter's signature conversion (a memref operand is several
    arguments). A marked function that is not a kernel, takes no tensor
    map, or uses one otherwise is an error, as is a launch whose operand for
    a map is not a pointer.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def QuiltEmitCInterface : Pass<"quilt-emit-c-interface", "::mlir::ModuleOp"> {
  let summary = "Request C interface wrappers for public defined functions";
  let description = [{
    Sets `llvm.emit_c_interface` on every public `func.func` with a body, so
    that `convert-func-to-llvm` emits `_mlir_ciface_<name>` taking memref
    descriptors by pointer: the C ABI of a compiled Quilt library. Unlike
    upstream `llvm-request-c-wrappers` it leaves declarations alone, whose
    wrappers would call a `_mlir_ciface_` symbol the runtime does not have,
    and private helpers, which no C caller sees. A function's
    `quilt.signature` (quilt-record-signatures) becomes the exported
    constant string `_quilt_signature_<name>`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def QuiltEmitPackedInterface
    : Pass<"quilt-emit-packed-interface", "::mlir::ModuleOp"> {
  let summary = "One-pointer entry points for a library's C wrappers";
  let description = [{
    For every `_mlir_ciface_<name>` wrapper with a body (after
    `convert-func-to-llvm`), defines `void _quilt_call_<name>(void **slots)`:
    slot `i` points at the value of the wrapper's parameter `i` (a memref's
    is the address of its descriptor; a scalar's is the scalar) and, when
    the wrapper returns a scalar, the slot after the last parameter points
    where it is stored. A caller that knows the function's type (the
    Python loader, from `_quilt_signature_<name>`) then calls any function
    through one C signature, whatever its scalars' types, its arity or
    its results; functions with several results return them through the
    wrapper's first parameter, a struct of their descriptors and values.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def QuiltStridedCopiesToLoops
    : Pass<"quilt-strided-copies-to-loops", "::mlir::ModuleOp"> {
  let summary = "Lower memref.copy between non-identity layouts to loops";
  let description = [{
    `finalize-memref-to-llvm` turns a `memref.copy` whose operands do not
    both have identity layouts (a padded tensor's interior, a subview of a
    tiled loop) into a call to `memrefCopy` from MLIR's C runner utilities,
    which a Quilt library does not link, and `gpu.memcpy` copies only
    contiguous buffers. This pass writes such copies in host code as loops
    of loads and stores or, with `as-linalg` (the GPU pipelines, before the
    buffers move to device memory), as `linalg.copy`, which the GPU
    pipelines map to a kernel like any other linalg op.
  }];
  let options = [
    Option<"asLinalg", "as-linalg", "bool", /*default=*/"false",
           "Write the copies as linalg.copy instead of loops">
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def QuiltExpandShapesToCasts
    : Pass<"quilt-expand-shapes-to-casts", "::mlir::ModuleOp"> {
  let summary = "Write memref.expand_shape with several dynamic sizes in a "
                "group as a reinterpret_cast";
  let description = [{
    MLIR 22's `expand-strided-metadata` crashes on a `memref.expand_shape`
    whose reassociation group expands into more than one dynamic size
    (llvm/llvm-project#186830, fixed upstream after 22 by #187844): it
    infers the sizes instead of reading `output_shape`. Such shapes are
    what bufferization makes of `tensor.expand_shape` with dynamic sizes
    (a batch folded into M and back, a reshape of a dynamic tensor). This
    pass writes each of them as `memref.extract_strided_metadata` of the
    source and a `memref.reinterpret_cast` to the output shape, each
    group's strides from its innermost one outwards (stride[i] =
    stride[i + 1] * size[i + 1]), before any `expand-strided-metadata`.
  }];
}

def QuiltRecordSignatures
    : Pass<"quilt-record-signatures", "::mlir::ModuleOp"> {
  let summary = "Remember public functions' types for the library's "
                "signature symbols";
  let description = [{
    Sets `quilt.signature` (the function type as MLIR prints it, e.g.
    `(tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>`) on every public
    `func.func` with a body, before bufferization changes the types.
    `quilt-emit-c-interface` exports it as the NUL-terminated string
    `_quilt_signature_<name>`, from which `quilt.load` learns, and checks a
    given signature against, what the library's function takes.
  }];
}

//===----------------------------------------------------------------------===//
// Whole programs: what the user's module needs before any pipeline
//===----------------------------------------------------------------------===//

def QuiltDecomposeAggregateOps
    : Pass<"quilt-decompose-aggregate-ops", "::mlir::ModuleOp"> {
  let summary = "Decompose linalg ops that stand for several (linalg.softmax, "
                "linalg.pack)";
  let description = [{
    Some named linalg ops are compositions: `linalg.softmax` is a max
    reduction, a subtraction and exponential, a sum reduction and a
    division, and implements `AggregatedOpInterface` to say so;
    `linalg.pack` is a pad, a reshape and a transpose, `linalg.unpack` a
    transpose, a reshape and a slice. Neither bufferization nor the loop
    and GPU-mapping lowerings know such ops, so every pipeline decomposes
    them first into the ops they stand for, which lower like any others.
    One that cannot be decomposed (softmax on buffers, a pack with dynamic
    inner tiles) is an error at its location.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def QuiltBufferSafeCanonicalize : Pass<"quilt-buffer-safe-canonicalize"> {
  let summary = "Canonicalize a program that may write through "
                "`bufferization.to_buffer`, keeping its buffer reads";
  let description = [{
    Upstream's `canonicalize` with every pattern except those that
    `bufferization.to_buffer` registers. One of them rewrites a
    `memref.load` of a `to_buffer` result into a `tensor.extract` of the
    tensor it came from. That is sound only when nothing writes through the
    buffer in between, and exporters do write through it: a KV-cache update
    stores the new row into `to_buffer %cache` and the attention loop then
    loads the cache through the same buffer (Buddy Compiler's decode
    graphs). After the rewrite the loop reads the tensor as it was before
    the update, and One-Shot Bufferize, seeing the old value still read
    after the stores, gives the stores a copy: the reader silently misses
    the update. The other two patterns fold `to_buffer(to_tensor %m)` and
    casts, which bufferization does itself, so nothing is lost before it.
    Quilt's pipelines run this pass, not `canonicalize`, ahead of
    bufferization.
  }];
}

def QuiltCheckLowered : Pass<"quilt-check-lowered", "::mlir::ModuleOp"> {
  let summary = "Refuse a module that a pipeline did not lower completely";
  let description = [{
    The last pass of Quilt's pipelines. Dialect conversions are partial:
    an op no pattern lowers (a `memref.alloca` of a strided layout, a
    `gpu.memcpy` between strided views) or a nested `builtin.module`,
    which the pipelines' function passes never enter, would otherwise be
    left in the output with exit status 0 and fail, or vanish, later. Every
    op must be in the LLVM dialect, or OpenMP (multi-threaded host
    kernels), `gpu.binary` or `gpu.launch_func` (device code and its
    launches, which translation to LLVM IR lowers). Each other kind of op
    is an error at its first occurrence, with the number of others.
  }];
}

def QuiltAdoptDeallocations
    : Pass<"quilt-adopt-deallocations", "::mlir::ModuleOp"> {
  let summary = "Hand buffers the input frees itself to the deallocation "
                "pipeline, or leave a function that manages its memory alone";
  let description = [{
    Upstream's ownership-based buffer deallocation, which frees the buffers
    bufferization allocates, rejects input that already frees buffers
    (`memref.dealloc`), as exporters and hand-written memref programs do.
    This pass erases each `memref.dealloc` of a buffer its function
    allocates (`memref.alloc`, `memref.realloc`, through casts), so that the
    deallocation pipeline frees that buffer where its last use is, like its
    own; every buffer is freed once.

    A function that frees anything else (an argument, a call's result, the
    base buffer `memref.extract_strided_metadata` gives, as programs that
    were bufferized and had their deallocations lowered before they reach
    Quilt do, Buddy Compiler's among them) manages its own memory: it keeps
    all of its deallocations and is marked `quilt.manages_its_memory`, which
    `quilt-buffer-deallocation` reads to leave it alone.
  }];
}

def QuiltBufferDeallocation
    : Pass<"quilt-buffer-deallocation", "::mlir::ModuleOp"> {
  let summary = "Ownership-based buffer deallocation of every function but "
                "those that manage their own memory";
  let description = [{
    Upstream's `ownership-based-buffer-deallocation`, run on each function
    with a body except those `quilt-adopt-deallocations` marked
    `quilt.manages_its_memory` (whose own deallocations the upstream pass
    would reject, and whose buffers it would free a second time); the mark
    is removed. The rest of upstream's deallocation pipeline (simplifying
    and lowering `bufferization.dealloc`) runs after it as before.
  }];
  let options = [
    Option<"privateFuncDynamicOwnership", "private-function-dynamic-ownership",
           "bool", /*default=*/"false",
           "Pass ownership of buffers across private functions dynamically, "
           "as upstream's option of the same name">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def QuiltGuardAllocationSizes
    : Pass<"quilt-guard-allocation-sizes", "::mlir::ModuleOp"> {
  let summary = "Check the sizes of buffers allocated with dynamic sizes at "
                "run time";
  let description = [{
    A function returning a tensor of dynamic size allocates it with sizes
    the caller's operands give. Their product, times the element's bytes,
    can wrap 64 bits (a 2^32 x 0 by 0 x 2^32 product has valid operands and
    a 2^64-element result): the allocation would be tiny and everything
    after it would write past its end. And a negative size from a C caller
    describes no buffer at all. This pass puts a check in front of every
    `memref.alloc` with dynamic sizes: when a size is negative or the buffer
    would take more than 2^62 bytes, the runtime's status is set
    (`quilt_rt_report_operand_error`, QuiltRuntime.h: status 101, and a
    message naming the function, the buffer's type, the dimension and its
    size) and the buffer is allocated with every dynamic size 0 instead, so
    that nothing writes it: the dispatches' operand checks then find the
    empty result and do nothing. Valid sizes allocate as before.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def QuiltMarkRunnerUtilsReads
    : Pass<"quilt-mark-runner-utils-reads", "::mlir::ModuleOp"> {
  let summary = "Tell bufferization that MLIR's printing and verifying "
                "utilities only read their tensors";
  let description = [{
    One-Shot Bufferize cannot see into a function that is only declared, so
    it assumes the callee writes every tensor it is passed. A program that
    prints a tensor it also returns (`call @printMemrefF32(%u)` on a
    `tensor.cast` of the result to `tensor<*xf32>`, as Buddy Compiler's
    and MLIR's integration tests do) then needs a copy of an unranked
    tensor, which cannot be allocated, and bufferization fails with "cannot
    avoid RaW conflict". MLIR's runner utilities (`printMemref*`,
    `verifyMemRef*`, from `libmlir_runner_utils`/`libmlir_c_runner_utils`)
    only read; this pass gives each tensor argument of their declarations
    `bufferization.access = "read"` (unless it already says otherwise), as
    the program's author would, so that the call reads the buffer in place.
    Other declared functions are left as they are.
  }];
}

def QuiltCheckInput : Pass<"quilt-check-input", "::mlir::ModuleOp"> {
  let summary = "Refuse, where they are, inputs no pipeline of Quilt "
                "compiles";
  let description = [{
    The first pass of Quilt's pipelines. What no pipeline can compile would
    otherwise fail deep inside one, far from its cause and often without a
    location (`'arith.extf' was not lowered` at `<unknown>`, `LLVM
    Translation failed for operation: builtin.unrealized_conversion_cast`,
    a cast error about a type the program never wrote). Each is an error at
    the first op (or function) that has it:

    - a nested `builtin.module`: the pipelines compile the top-level
      module's functions and never enter a nested one;
    - `tf32`, a tensor-core storage format that no lowering computes in
      (programs compute in f32 and let the hardware round);
    - the 8-bit and smaller floats (`f8E4M3FN`, `f8E5M2`, `f6E3M2FN`,
      `f4E2M1FN`, ...): Quilt has no kernels for them and upstream's CPU
      and GPU lowerings cannot convert them;
    - a memref outside the default memory space in a function's signature:
      Quilt's functions take and return buffers in host memory (or a GPU's
      global memory); other spaces (GPU workgroup memory, `3`) exist only
      inside kernels.

    Operations inside `gpu.module`s are not looked at: they are device code
    the program brings itself.
  }];
}

#endif // QUILT_CONVERSION_PASSES_TD
