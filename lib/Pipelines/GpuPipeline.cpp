//===- GpuPipeline.cpp - quilt-lower-to-nvvm / quilt-lower-to-rocdl -------===//
//
// Part of the Quilt project. The one definition of the GPU pipelines: from
// linalg contractions with dynamic sizes to a host module in the LLVM
// dialect that embeds the device binary, selects a micro-kernel per call
// and launches it through the mgpu* runtime ABI.
//
//===----------------------------------------------------------------------===//

#include "Pipelines/Pipelines.h"

#include "Conversion/Passes.h"
#include "CostModel/TargetDatabase.h"

#include "mlir/Conversion/AMDGPUToROCDL/AMDGPUToROCDL.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

#include <unistd.h>

using namespace mlir;

//===----------------------------------------------------------------------===//
// Toolkits
//===----------------------------------------------------------------------===//

namespace {

bool exists(const llvm::Twine &path) { return llvm::sys::fs::exists(path); }

std::string cudaToolkit(const std::string &requested) {
  SmallVector<std::string> candidates;
  if (!requested.empty())
    candidates.push_back(requested);
  for (const char *var : {"CUDA_HOME", "CUDA_ROOT", "CUDA_PATH"})
    if (std::optional<std::string> value = llvm::sys::Process::GetEnv(var))
      candidates.push_back(*value);
  candidates.push_back("/usr/local/cuda");
  for (const std::string &dir : candidates)
    if (exists(dir + "/bin/ptxas"))
      return dir;
  // A ptxas on PATH: its toolkit is the directory above bin/.
  if (llvm::ErrorOr<std::string> ptxas = llvm::sys::findProgramByName("ptxas"))
    return llvm::sys::path::parent_path(llvm::sys::path::parent_path(*ptxas))
        .str();
  return "";
}

/// gpu-module-to-binary wants ld.lld at TOOLKIT/llvm/bin/ld.lld (and the
/// device libraries at TOOLKIT/amdgcn/bitcode); Debian keeps them apart, so
/// when no ROCm tree is installed, a directory of links gathers them.
std::string rocmToolkit(const std::string &requested) {
  SmallVector<std::string> candidates;
  if (!requested.empty())
    candidates.push_back(requested);
  for (const char *var : {"ROCM_PATH", "ROCM_ROOT", "ROCM_HOME"})
    if (std::optional<std::string> value = llvm::sys::Process::GetEnv(var))
      candidates.push_back(*value);
  candidates.push_back("/opt/rocm");
  for (const std::string &dir : candidates)
    if (exists(dir + "/llvm/bin/ld.lld"))
      return dir;
  if (!requested.empty())
    return "";

  // The lld of the LLVM Quilt is built with, else one on PATH.
  std::string lld = "/usr/lib/llvm-22/bin/ld.lld";
  if (!exists(lld)) {
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("ld.lld");
    lld = found ? *found : "";
  }
  if (lld.empty())
    return "";
  SmallString<128> dir;
  llvm::sys::path::system_temp_directory(/*erasedOnReboot=*/true, dir);
  llvm::sys::path::append(dir,
                          "quilt-rocm-toolkit-" + std::to_string(::getuid()));
  SmallString<128> bin(dir);
  llvm::sys::path::append(bin, "llvm", "bin");
  if (llvm::sys::fs::create_directories(bin))
    return "";
  SmallString<128> link(bin);
  llvm::sys::path::append(link, "ld.lld");
  if (!exists(link) && llvm::sys::fs::create_link(lld, link))
    return "";
  const char *bitcode = "/usr/lib/x86_64-linux-gnu/amdgcn";
  SmallString<128> amdgcn(dir);
  llvm::sys::path::append(amdgcn, "amdgcn");
  if (exists(bitcode) && !exists(amdgcn))
    (void)llvm::sys::fs::create_link(bitcode, amdgcn);
  return std::string(dir);
}

} // namespace

std::string quilt::findGpuToolkit(GpuVendor vendor,
                                  const std::string &requested) {
  return vendor == GpuVendor::NVIDIA ? cudaToolkit(requested)
                                     : rocmToolkit(requested);
}

//===----------------------------------------------------------------------===//
// Pipelines
//===----------------------------------------------------------------------===//

void quilt::buildLowerToGpuPipeline(OpPassManager &pm, GpuVendor vendor,
                                    const GpuPipelineOptions &options) {
  // A library's functions say what they take (before bufferization).
  if (options.cInterface)
    pm.addPass(createQuiltRecordSignatures());
  buildDispatchFrontEnd(pm, frontEndOptions(options, /*threads=*/1));

  // Buffers, all in device memory.
  buildBufferizationPipeline(pm, options.bufferDeallocation);
  pm.addPass(createQuiltGuardAllocationSizes());
  // Copies between strided views become kernels (gpu.memcpy copies only
  // contiguous buffers).
  QuiltStridedCopiesToLoopsOptions stridedCopies;
  stridedCopies.asLinalg = true;
  pm.addPass(createQuiltStridedCopiesToLoops(stridedCopies));
  pm.addPass(createQuiltGpuDeviceBuffers());
  // The program's own element loads and stores run on the device too: its
  // buffers are device memory now.
  pm.addPass(createQuiltGpuHostAccessesToKernels());

  // Micro-kernels, run-time selection and launches.
  ConvertUKernelToGPUOptions kernelOptions;
  kernelOptions.nativeWgmma = options.nativeWgmma;
  // TMA loads the tiles of native wgmma kernels: nothing to load without.
  kernelOptions.tmaLoads = options.tmaLoads && options.nativeWgmma;
  pm.addPass(createConvertUKernelToGPU(kernelOptions));
  // The host code is simplified here, the kernels (in their gpu.modules)
  // first thing in the device pipeline below: kernel by kernel, through the
  // kernel cache, so a kernel lowered before is not simplified again (this
  // canonicalization was a third of a compile whose kernels were all
  // cached).
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createCSEPass());

  // What linalg remains (fills, elementwise ops the front end did not fuse)
  // runs as 32x32-thread-block kernels.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(
      createParallelLoopTilingPass({32, 32}, /*noMinMaxBounds=*/true));
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  // What has no parallel loop to map (a full reduction, a fill of a rank-0
  // buffer) is still host loops over device memory: a one-thread kernel.
  pm.addPass(createQuiltGpuHostAccessesToKernels());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());

  // Device code. The AMDGPU conversion needs the chipset up front: from
  // chip=, else the database's chip for target=.
  std::string chip = options.chip;
  if (chip.empty() && !options.target.empty()) {
    TargetDatabase database = TargetDatabase::withBuiltins();
    std::string error;
    if (options.targetFile.empty() ||
        database.addFromFile(options.targetFile, error))
      if (const TargetDesc *desc = database.lookup(options.target))
        chip = desc->chip;
  }
  // All device code in one module, compiled for one chip.
  pm.addPass(createQuiltMergeGpuModules());
  // MLIR 22's expand-strided-metadata crashes on some dynamic expand_shapes
  // (in device and host code alike).
  pm.addPass(createQuiltExpandShapesToCasts());
  QuiltAttachGpuTargetOptions attachChip;
  attachChip.chip = options.chip;
  attachChip.targetChip = chip;
  attachChip.vendor = vendor == GpuVendor::NVIDIA ? "nvidia" : "amd";
  attachChip.pipeline =
      vendor == GpuVendor::NVIDIA ? "quilt-lower-to-nvvm" : "quilt-lower-to-rocdl";
  pm.addPass(createQuiltAttachGpuTarget(attachChip));
  // The other vendor's chip is reported by the pass above; the AMDGPU
  // conversions must not see it first (their chipset parser fails when the
  // pipeline starts, with no location).
  if (!StringRef(chip).starts_with(vendor == GpuVendor::NVIDIA ? "sm_" : "gfx"))
    chip.clear();
  // The device pipeline runs kernel by kernel through the kernel cache
  // (quilt-lower-gpu-kernels), so a kernel lowered before is not lowered
  // again.
  OpPassManager device(gpu::GPUModuleOp::getOperationName());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  if (vendor == GpuVendor::NVIDIA) {
    device.addPass(createConvertNVGPUToNVVMPass());
  } else {
    ConvertAMDGPUToROCDLPassOptions amdgpu;
    if (!chip.empty())
      amdgpu.chipset = chip;
    device.addPass(createConvertAMDGPUToROCDLPass(amdgpu));
  }
  device.addPass(memref::createExpandStridedMetadataPass());
  device.addPass(createLowerAffinePass());
  device.addPass(createSCFToControlFlowPass());
  if (vendor == GpuVendor::NVIDIA) {
    ConvertGpuOpsToNVVMOpsOptions nvvm;
    nvvm.indexBitwidth = 64;
    device.addPass(createConvertGpuOpsToNVVMOps(nvvm));
    // NVVM ops without an intrinsic (wgmma.mma_async) become inline PTX.
    device.addPass(createConvertNVVMToLLVMPass());
  } else {
    ConvertGpuOpsToROCDLOpsOptions rocdl;
    if (!chip.empty())
      rocdl.chipset = chip;
    rocdl.indexBitwidth = 64;
    device.addPass(createConvertGpuOpsToROCDLOps(rocdl));
  }
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());
  QuiltLowerGpuKernelsOptions lowering;
  lowering.devicePipeline.clear();
  {
    llvm::raw_string_ostream os(lowering.devicePipeline);
    device.printAsTextualPipeline(os);
  }
  lowering.kernelCache = options.kernelCache;
  pm.addPass(createQuiltLowerGpuKernels(lowering));
  // TMA kernels take their tensor maps by value; their launches, the bytes.
  if (vendor == GpuVendor::NVIDIA)
    pm.addPass(createQuiltGpuTensorMapsAsParams());

  GpuModuleToBinaryPassOptions binary;
  std::string toolkit = findGpuToolkit(vendor, options.toolkit);
  std::string format = options.format;
  if (format == "auto")
    format = toolkit.empty() ? "isa" : "bin";
  binary.compilationTarget = format;
  binary.toolkitPath = toolkit;
  // PTX, cubins, AMDGCN assembly and hsaco: kernel by kernel, in parallel,
  // through the kernel cache; what that pass leaves (LLVM IR, fatbins) goes
  // the upstream way.
  if (format == "isa" || format == "bin") {
    QuiltCompileGpuKernelsOptions kernels;
    kernels.format = format;
    kernels.toolkit = toolkit;
    kernels.kernelCache = options.kernelCache;
    pm.addPass(createQuiltCompileGpuKernels(kernels));
  }
  pm.addPass(createGpuModuleToBinaryPass(binary));

  // Host code: launches become mgpu* calls, then the CPU lowering.
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createQuiltExpandShapesToCasts());
  pm.addPass(memref::createExpandStridedMetadataPass());
  // gpu-to-llvm converts the functions too: ask for the C wrappers first.
  if (options.cInterface)
    pm.addPass(createQuiltEmitCInterface());
  pm.addPass(createGpuToLLVMConversionPass());
  buildLowerToLLVMPipeline(pm, options.cInterface);
}

void quilt::registerQuiltGpuPipelines() {
  PassPipelineRegistration<GpuPipelineOptions>(
      "quilt-lower-to-nvvm",
      "Lower dynamic-shape linalg contractions for an NVIDIA GPU: Quilt "
      "micro-kernels to NVVM and a cubin (PTX without ptxas), run-time "
      "selection and launches in host code lowered to LLVM",
      [](OpPassManager &pm, const GpuPipelineOptions &options) {
        buildLowerToGpuPipeline(pm, GpuVendor::NVIDIA, options);
      });
  PassPipelineRegistration<GpuPipelineOptions>(
      "quilt-lower-to-rocdl",
      "Lower dynamic-shape linalg contractions for an AMD GPU: Quilt "
      "micro-kernels to ROCDL and an hsaco (AMDGCN assembly without "
      "ld.lld), run-time selection and launches in host code lowered to "
      "LLVM",
      [](OpPassManager &pm, const GpuPipelineOptions &options) {
        buildLowerToGpuPipeline(pm, GpuVendor::AMD, options);
      });
}
