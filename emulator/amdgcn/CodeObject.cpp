//===- CodeObject.cpp - An AMDGPU code object's kernels -------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CodeObject.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELF.h"
#include "llvm/Object/ELFTypes.h"

#include <cstring>
#include <map>

using namespace llvm;

namespace quilt::amdgcn {
namespace {

using ELFT = object::ELF64LE;

Error fail(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// The bytes [address, address + size) of the loaded image, from the
/// section that holds them.
Expected<ArrayRef<uint8_t>> bytesAt(const object::ELFFile<ELFT> &elf,
                                    uint64_t address, uint64_t size) {
  auto sections = elf.sections();
  if (!sections)
    return sections.takeError();
  for (const auto &section : *sections) {
    if (section.sh_type == ELF::SHT_NOBITS || !(section.sh_flags & ELF::SHF_ALLOC))
      continue;
    if (address < section.sh_addr ||
        address + size > section.sh_addr + section.sh_size)
      continue;
    auto contents = elf.getSectionContents(section);
    if (!contents)
      return contents.takeError();
    return contents->slice(address - section.sh_addr, size);
  }
  return fail("address 0x" + utohexstr(address) + " (+" + Twine(size) +
              " bytes) is in no section of the code object");
}

/// The `amdhsa.kernels` entries of the metadata note, by kernel name.
Expected<std::map<std::string, KernelInfo>>
readMetadata(const object::ELFFile<ELFT> &elf) {
  auto sections = elf.sections();
  if (!sections)
    return sections.takeError();
  for (const auto &section : *sections) {
    if (section.sh_type != ELF::SHT_NOTE)
      continue;
    Error err = Error::success();
    for (const auto &note : elf.notes(section, err)) {
      if (note.getName() != "AMDGPU" ||
          note.getType() != ELF::NT_AMDGPU_METADATA)
        continue;
      ArrayRef<uint8_t> desc = note.getDesc(section.sh_addralign);
      msgpack::Document doc;
      if (!doc.readFromBlob(
              StringRef(reinterpret_cast<const char *>(desc.data()),
                        desc.size()),
              /*Multi=*/false))
        return fail("the AMDGPU metadata note is not valid msgpack");
      std::map<std::string, KernelInfo> kernels;
      auto &root = doc.getRoot();
      if (!root.isMap())
        return fail("the AMDGPU metadata is not a map");
      auto found = root.getMap().find("amdhsa.kernels");
      if (found == root.getMap().end() || !found->second.isArray())
        return fail("the AMDGPU metadata has no amdhsa.kernels");
      for (auto &entry : found->second.getArray()) {
        if (!entry.isMap())
          return fail("an amdhsa.kernels entry is not a map");
        auto &map = entry.getMap();
        auto uintOf = [&](StringRef key) -> uint64_t {
          auto it = map.find(key);
          if (it == map.end() || it->second.getKind() != msgpack::Type::UInt)
            return 0;
          return it->second.getUInt();
        };
        KernelInfo info;
        auto name = map.find(".name");
        if (name == map.end() || !name->second.isString())
          return fail("an amdhsa.kernels entry has no .name");
        info.name = name->second.getString().str();
        info.kernargSegmentSize = uintOf(".kernarg_segment_size");
        info.groupSegmentFixedSize = uintOf(".group_segment_fixed_size");
        info.privateSegmentFixedSize = uintOf(".private_segment_fixed_size");
        info.wavefrontSize = uintOf(".wavefront_size");
        auto required = map.find(".reqd_workgroup_size");
        if (required != map.end() && required->second.isArray()) {
          auto &sizes = required->second.getArray();
          for (size_t i = 0; i < 3 && i < sizes.size(); ++i)
            if (sizes[i].getKind() == msgpack::Type::UInt)
              info.requiredWorkgroupSize[i] = sizes[i].getUInt();
        }
        auto args = map.find(".args");
        if (args != map.end() && args->second.isArray()) {
          for (auto &arg : args->second.getArray()) {
            if (!arg.isMap())
              return fail("an argument of " + info.name + " is not a map");
            auto &argMap = arg.getMap();
            KernelArgument argument;
            auto field = [&](StringRef key) -> msgpack::DocNode * {
              auto it = argMap.find(key);
              return it == argMap.end() ? nullptr : &it->second;
            };
            if (auto *offset = field(".offset"))
              argument.offset = offset->getUInt();
            if (auto *size = field(".size"))
              argument.size = size->getUInt();
            if (auto *kind = field(".value_kind"); kind && kind->isString())
              argument.valueKind = kind->getString().str();
            info.arguments.push_back(std::move(argument));
          }
        }
        kernels[info.name] = std::move(info);
      }
      return kernels;
    }
    if (err)
      return std::move(err);
  }
  return fail("the code object has no AMDGPU metadata note (code object "
              "v4 or later is required)");
}

} // namespace

std::string processorName(unsigned mach) {
  switch (mach) {
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX908:
    return "gfx908";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A:
    return "gfx90a";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX942:
    return "gfx942";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX950:
    return "gfx950";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX1030:
    return "gfx1030";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX1100:
    return "gfx1100";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX1101:
    return "gfx1101";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX1102:
    return "gfx1102";
  default:
    return "";
  }
}

Expected<CodeObject> readCodeObject(const void *image, size_t size) {
  if (!image)
    return fail("no code object (null image)");
  const auto *header = static_cast<const ELFT::Ehdr *>(image);
  if (std::memcmp(header->e_ident, ELF::ElfMagic, 4) != 0) {
    if (std::memcmp(image, "__CLANG_OFFLOAD_BUNDLE__", 24) == 0)
      return fail("the image is a clang offload bundle; the emulator loads "
                  "a bare code object (an hsaco)");
    return fail("the image is not an ELF code object");
  }
  if (header->e_ident[ELF::EI_CLASS] != ELF::ELFCLASS64 ||
      header->e_machine != ELF::EM_AMDGPU)
    return fail("the image is not a 64-bit AMDGPU ELF");
  if (size == 0) {
    size = std::max<uint64_t>(
        header->e_shoff + uint64_t(header->e_shnum) * header->e_shentsize,
        header->e_phoff + uint64_t(header->e_phnum) * header->e_phentsize);
  }
  auto elfOrErr = object::ELFFile<ELFT>::create(
      StringRef(static_cast<const char *>(image), size));
  if (!elfOrErr)
    return elfOrErr.takeError();
  const auto &elf = *elfOrErr;

  CodeObject object;
  object.processor = processorName(header->e_flags & ELF::EF_AMDGPU_MACH);
  if (object.processor.empty())
    return fail("unknown AMDGPU processor (EF_AMDGPU_MACH 0x" +
                utohexstr(header->e_flags & ELF::EF_AMDGPU_MACH) + ")");

  auto metadata = readMetadata(elf);
  if (!metadata)
    return metadata.takeError();

  auto sections = elf.sections();
  if (!sections)
    return sections.takeError();
  // Function symbols give each kernel's code size; `.kd` symbols its
  // descriptor.
  std::map<std::string, uint64_t> functionSizes;
  std::map<std::string, uint64_t> descriptors;
  for (const auto &section : *sections) {
    if (section.sh_type != ELF::SHT_SYMTAB &&
        section.sh_type != ELF::SHT_DYNSYM)
      continue;
    auto symbols = elf.symbols(&section);
    if (!symbols)
      return symbols.takeError();
    auto strings = elf.getStringTableForSymtab(section);
    if (!strings)
      return strings.takeError();
    for (const auto &symbol : *symbols) {
      auto name = symbol.getName(*strings);
      if (!name)
        return name.takeError();
      if (symbol.getType() == ELF::STT_FUNC)
        functionSizes[name->str()] = symbol.st_size;
      else if (name->ends_with(".kd"))
        descriptors[name->drop_back(3).str()] = symbol.st_value;
    }
  }

  for (auto &[name, info] : *metadata) {
    auto kd = descriptors.find(name);
    if (kd == descriptors.end())
      return fail("kernel " + name + " has no descriptor symbol " + name +
                  ".kd");
    auto bytes = bytesAt(elf, kd->second, sizeof(amdhsa::kernel_descriptor_t));
    if (!bytes)
      return bytes.takeError();
    std::memcpy(&info.descriptor, bytes->data(), bytes->size());
    info.codeAddress = kd->second + info.descriptor.kernel_code_entry_byte_offset;
    auto sizeIt = functionSizes.find(name);
    if (sizeIt == functionSizes.end() || sizeIt->second == 0)
      return fail("kernel " + name + " has no sized function symbol");
    auto code = bytesAt(elf, info.codeAddress, sizeIt->second);
    if (!code)
      return code.takeError();
    info.code.assign(code->begin(), code->end());
    if (info.wavefrontSize == 0)
      info.wavefrontSize =
          AMDHSA_BITS_GET(info.descriptor.kernel_code_properties,
                          amdhsa::KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32)
              ? 32
              : 64;
    object.kernels.push_back(std::move(info));
  }
  return object;
}

std::string unemulatedFloatMode(const KernelInfo &kernel) {
  uint32_t rsrc1 = kernel.descriptor.compute_pgm_rsrc1;
  static const char *const rounding[] = {"to nearest even", "toward +inf",
                                         "toward -inf", "toward zero"};
  static const char *const denormals[] = {
      "flushed in and out", "flushed out (kept in)", "flushed in (kept out)",
      "kept"};
  std::string why;
  auto describe = [&](const char *type, uint32_t round, uint32_t denorm) {
    if (round == amdhsa::FLOAT_ROUND_MODE_NEAR_EVEN &&
        denorm == amdhsa::FLOAT_DENORM_MODE_FLUSH_NONE)
      return;
    why += std::string(why.empty() ? "" : "; ") + type + " rounding " +
           rounding[round] + ", denormals " + denormals[denorm];
  };
  using namespace amdhsa;
  describe("f32", AMDHSA_BITS_GET(rsrc1, COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_32),
           AMDHSA_BITS_GET(rsrc1, COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_32));
  describe("f16/f64",
           AMDHSA_BITS_GET(rsrc1, COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_16_64),
           AMDHSA_BITS_GET(rsrc1, COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_16_64));
  return why;
}

} // namespace quilt::amdgcn
