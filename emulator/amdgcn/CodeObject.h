//===- CodeObject.h - An AMDGPU code object's kernels -----------*- C++ -*-===//
//
// Part of the Quilt project.
//
// What the emulator needs of an hsaco (an AMDGPU ELF code object, v4/v5):
// the processor it was built for, and per kernel its descriptor (the `.kd`
// symbol: user SGPRs, enabled workgroup and workitem ids, LDS, scratch,
// wave size), its machine code, and the argument layout of the code-object
// metadata note. Everything is read through LLVM's own ELF, msgpack and
// kernel-descriptor headers, so no layout is written down twice.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_EMULATOR_AMDGCN_CODEOBJECT_H
#define QUILT_EMULATOR_AMDGCN_CODEOBJECT_H

#include "llvm/Support/AMDHSAKernelDescriptor.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace quilt::amdgcn {

/// One kernel argument as the metadata describes it.
struct KernelArgument {
  uint32_t offset = 0;
  uint32_t size = 0;
  /// `.value_kind`: by_value, global_buffer, hidden_block_count_x, ...
  std::string valueKind;
};

struct KernelInfo {
  std::string name;
  llvm::amdhsa::kernel_descriptor_t descriptor{};
  /// Address (in the code object's virtual address space) and bytes of
  /// the machine code.
  uint64_t codeAddress = 0;
  std::vector<uint8_t> code;
  std::vector<KernelArgument> arguments;
  uint32_t kernargSegmentSize = 0;
  uint32_t groupSegmentFixedSize = 0;
  uint32_t privateSegmentFixedSize = 0;
  uint32_t wavefrontSize = 64;
  /// `.reqd_workgroup_size`, all zero when the kernel does not require one.
  uint32_t requiredWorkgroupSize[3] = {0, 0, 0};
};

struct CodeObject {
  /// The processor of EF_AMDGPU_MACH: "gfx942", "gfx90a", "gfx1100", ...
  std::string processor;
  std::vector<KernelInfo> kernels;
};

/// Reads an hsaco from memory. `size` may be 0 when unknown (HIP's
/// hipModuleLoadData takes a bare pointer): the ELF header's section table
/// then bounds the image.
llvm::Expected<CodeObject> readCodeObject(const void *image, size_t size);

/// Empty when the kernel's descriptor asks for the float mode the emulator
/// computes in (IEEE round to nearest even, denormals kept, for f32 and for
/// f16/f64: LLVM's default and Quilt's), else which mode it asks for.
std::string unemulatedFloatMode(const KernelInfo &kernel);

/// The processor name for an EF_AMDGPU_MACH value ("" when unknown).
std::string processorName(unsigned mach);

} // namespace quilt::amdgcn

#endif // QUILT_EMULATOR_AMDGCN_CODEOBJECT_H
