//===- KernelCache.cpp - Compiled device code, kept between compiles ------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Utils/KernelCache.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm-c/Core.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

using namespace quilt;

std::error_code KernelCache::prepare() const {
  return llvm::sys::fs::create_directories(directory);
}

std::optional<std::string> KernelCache::lookup(llvm::StringRef key,
                                               llvm::StringRef suffix) const {
  if (!enabled())
    return std::nullopt;
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, key + suffix);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer || (*buffer)->getBufferSize() == 0)
    return std::nullopt;
  return (*buffer)->getBuffer().str();
}

std::error_code KernelCache::store(llvm::StringRef key, llvm::StringRef suffix,
                                   llvm::StringRef contents) const {
  if (!enabled())
    return {};
  llvm::SmallString<256> model(directory);
  llvm::sys::path::append(model, key + suffix + ".%%%%%%%%.tmp");
  int fd;
  llvm::SmallString<256> temporary;
  if (std::error_code error =
          llvm::sys::fs::createUniqueFile(model, fd, temporary))
    return error;
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << contents;
    out.close();
    if (out.has_error()) {
      std::error_code error = out.error();
      out.clear_error();
      llvm::sys::fs::remove(temporary);
      return error;
    }
  }
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, key + suffix);
  if (std::error_code error = llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return error;
  }
  return {};
}

std::string KernelCache::hash(llvm::ArrayRef<llvm::StringRef> parts) {
  llvm::BLAKE3 hasher;
  for (llvm::StringRef part : parts) {
    std::string length = std::to_string(part.size()) + ":";
    hasher.update(length);
    hasher.update(part);
  }
  return llvm::toHex(hasher.final(), /*LowerCase=*/true);
}

std::string KernelCache::fileIdentity(llvm::StringRef path) {
  llvm::sys::fs::file_status status;
  if (path.empty() || llvm::sys::fs::status(path, status))
    return "";
  return (path + " " + llvm::Twine(status.getSize()) + " " +
          llvm::Twine(
              status.getLastModificationTime().time_since_epoch().count()))
      .str();
}

std::string KernelCache::fileHolding(const void *address) {
  Dl_info info;
  if (!dladdr(address, &info) || !info.dli_fname)
    return "";
  return info.dli_fname;
}

namespace {

/// A stream whose bytes go into a BLAKE3 hash (through raw_ostream's buffer).
class HashingStream : public llvm::raw_ostream {
public:
  HashingStream() { SetBufferSize(1 << 16); }
  ~HashingStream() override { flush(); }

  std::string digest() {
    flush();
    llvm::BLAKE3Result<> result = hasher.final();
    return std::string(result.begin(), result.end());
  }

private:
  void write_impl(const char *bytes, size_t size) override {
    hasher.update(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(bytes), size));
    position += size;
  }
  uint64_t current_pos() const override { return position; }

  llvm::BLAKE3 hasher;
  uint64_t position = 0;
};

} // namespace

std::string KernelCache::fingerprint(mlir::Operation *op) {
  HashingStream os;
  op->print(os, mlir::OpPrintingFlags().printGenericOpForm().useLocalScope());
  return os.digest();
}

const std::string &KernelCache::codeGeneratorIdentity() {
  static const std::string identity = [] {
    std::string llvmFile =
        fileHolding(reinterpret_cast<void *>(&LLVMContextCreate));
    std::string mlirFile = fileHolding(reinterpret_cast<void *>(
        static_cast<bool (*)(mlir::Operation *)>(&mlir::isOpTriviallyDead)));
    return "LLVM " LLVM_VERSION_STRING "\n" + fileIdentity(llvmFile) + "\n" +
           fileIdentity(mlirFile);
  }();
  return identity;
}

std::optional<quilt::KernelCache>
quilt::openKernelCache(mlir::Operation *op, llvm::StringRef directory) {
  KernelCache cache(directory.str());
  if (cache.enabled())
    if (std::error_code error = cache.prepare()) {
      op->emitError("cannot create the kernel cache directory '")
          << directory << "': " << error.message();
      return std::nullopt;
    }
  return cache;
}
