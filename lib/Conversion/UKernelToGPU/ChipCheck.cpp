//===- ChipCheck.cpp - Whether a chip runs a GPU module's kernels ---------===//
//
// Part of the Quilt project. The requirements are read off the ops a module
// holds (what the kernels were built from), and the chip's abilities from
// LLVM's own description of it (its MC subtarget), so an unknown chip or a
// missing instruction is a diagnostic here instead of an abort in the
// backend ("LLVM ERROR: Cannot select: intrinsic ...").
//
//===----------------------------------------------------------------------===//

#include "ChipCheck.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>
#include <mutex>

using namespace mlir;

namespace {

enum class ChipVendor { nvidia, amd };

/// What one op needs of a chip.
struct Requirement {
  ChipVendor vendor;
  StringRef instruction;     ///< as the user knows it, e.g. "cp.async"
  int minSm = 0;             ///< NVIDIA: the oldest SM that has it
  bool archSpecific = false; ///< NVIDIA: only on the `a` variant of minSm
  StringRef features;        ///< AMD: subtarget features, any of them ("|")
  StringRef chips;           ///< AMD: which chips have it, for the message
};

/// The requirement of `op`, if it has one beyond its vendor's.
std::optional<Requirement> requirementOf(Operation *op) {
  StringRef dialect =
      op->getDialect() ? op->getDialect()->getNamespace() : StringRef();
  StringRef name = op->getName().stripDialect();
  if (dialect == "nvgpu" || dialect == "nvvm") {
    Requirement r{ChipVendor::nvidia, "", 0, false, "", ""};
    if (name.starts_with("device_async") ||
        (name.starts_with("cp.async.") && !name.starts_with("cp.async.bulk")))
      r.instruction = "cp.async", r.minSm = 80;
    else if (name == "mma.sync")
      r.instruction = "mma.sync", r.minSm = 80;
    else if (name == "ldmatrix")
      r.instruction = "ldmatrix", r.minSm = 75;
    else if (name.starts_with("wgmma") || name.starts_with("warpgroup"))
      r.instruction = "wgmma", r.minSm = 90, r.archSpecific = true;
    else if (name.starts_with("cp.async.bulk") || name.starts_with("tma"))
      r.instruction = "TMA (cp.async.bulk.tensor)", r.minSm = 90;
    else if (name.starts_with("fence.proxy") ||
             name.starts_with("fence.mbarrier") || name.contains("try_wait"))
      r.instruction = "mbarrier waits and proxy fences", r.minSm = 90;
    else if (name.starts_with("mbarrier"))
      r.instruction = "mbarrier", r.minSm = 80;
    return r;
  }
  if (dialect == "amdgpu" || dialect == "rocdl") {
    Requirement r{ChipVendor::amd, "", 0, false, "", ""};
    if (name == "mfma" || name.starts_with("mfma."))
      r.instruction = "MFMA", r.features = "+mai-insts",
      r.chips = "CDNA chips (gfx908, gfx90a, gfx942, gfx950)";
    else if (name == "wmma" || name.starts_with("wmma."))
      r.instruction = "WMMA", r.features = "+gfx11-insts|+gfx12-insts",
      r.chips = "RDNA 3 and later (gfx11xx, gfx12xx)";
    return r;
  }
  return std::nullopt;
}

/// LLVM's description of `chip` for `vendor`, or null when the backend
/// does not know the chip.
std::unique_ptr<llvm::MCSubtargetInfo> subtargetFor(ChipVendor vendor,
                                                    StringRef chip) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
  });
  llvm::Triple triple(vendor == ChipVendor::nvidia ? "nvptx64-nvidia-cuda"
                                                   : "amdgcn-amd-amdhsa");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!info || !info->isCPUStringValid(chip))
    return nullptr;
  return std::unique_ptr<llvm::MCSubtargetInfo>(
      target->createMCSubtargetInfo(triple, chip, ""));
}

/// sm_NN[a] -> (NN, a).
std::pair<int, bool> smVersion(StringRef chip) {
  StringRef digits = chip.drop_front(3);
  bool arch = digits.consume_back("a");
  int version = 0;
  if (digits.getAsInteger(10, version))
    return {0, false};
  return {version, arch};
}

} // namespace

LogicalResult mlir::ukernel::gpucg::checkChipRunsModule(gpu::GPUModuleOp module,
                                                        StringRef chip,
                                                        StringRef option) {
  std::optional<ChipVendor> chipVendor;
  if (chip.starts_with("sm_"))
    chipVendor = ChipVendor::nvidia;
  else if (chip.starts_with("gfx"))
    chipVendor = ChipVendor::amd;
  if (!chipVendor)
    return module.emitError() << option << " '" << chip
                              << "' is not a GPU chip (expected sm_* for "
                                 "NVIDIA or gfx* for AMD)";
  std::unique_ptr<llvm::MCSubtargetInfo> info = subtargetFor(*chipVendor, chip);
  if (!info)
    return module.emitError()
           << option << " '" << chip << "' is not a chip LLVM's "
           << (*chipVendor == ChipVendor::nvidia ? "NVPTX" : "AMDGPU")
           << " backend knows";
  auto [sm, arch] = smVersion(chip);

  WalkResult walk = module.walk([&](Operation *op) {
    std::optional<Requirement> need = requirementOf(op);
    if (!need)
      return WalkResult::advance();
    auto fail = [&]() {
      InFlightDiagnostic diag = op->emitError() << option << " '" << chip
                                                << "' cannot run this kernel";
      return diag;
    };
    if (need->vendor != *chipVendor) {
      fail() << ": it is for "
             << (need->vendor == ChipVendor::nvidia ? "an NVIDIA" : "an AMD")
             << " GPU (" << op->getName() << ")";
      return WalkResult::interrupt();
    }
    if (need->instruction.empty())
      return WalkResult::advance();
    if (need->vendor == ChipVendor::nvidia) {
      bool ok =
          need->archSpecific ? sm == need->minSm && arch : sm >= need->minSm;
      if (!ok) {
        fail() << ": it uses " << need->instruction << " (" << op->getName()
               << "), which needs "
               << (need->archSpecific ? "exactly sm_" : "sm_") << need->minSm
               << (need->archSpecific ? "a" : " or later");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    }
    SmallVector<StringRef> alternatives;
    need->features.split(alternatives, '|');
    if (llvm::none_of(alternatives, [&](StringRef features) {
          return info->checkFeatures(features);
        })) {
      fail() << ": it uses " << need->instruction << " (" << op->getName()
             << "), which only " << need->chips << " have";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}
