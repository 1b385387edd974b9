//===- CompileFuzzer.cpp - libFuzzer target: the MLIR front end ------------===//
//
// Part of the Quilt project. An .mlir module through compileSource, the one
// implementation behind quiltc, quilt-bench and quilt.compile: parsing,
// the input checks and a whole pipeline (quilt-lower-to-host, -nvvm or
// -rocdl, picked by the target), emitting MLIR by default. Whatever the
// input, the result is an artifact or an error message: a crash, an abort
// (LLVM ERROR included: libFuzzer reports the exit) or an empty error is a
// bug.
//
// Coverage: in the default build the compiler's libraries are not
// instrumented (they ship), so libFuzzer would see only this file's edges,
// keep one seed and mutate it blindly. The target therefore reports its own
// features through libFuzzer's extra counters: the structure of the input
// (each op name, each op under its parent, each result type with its sizes
// erased) and the outcome (each diagnostic with its numbers and names
// erased). An input that reaches a new kind of op, nesting, type or error
// joins the corpus. A sanitizer build (docs/testing.md) instruments the
// libraries too, and both kinds of coverage count.
//
// Options after the libFuzzer ones, with two dashes (libFuzzer leaves those
// to the target):
//   --target=NAME   the target compiled for (default host)
//   --emit=KIND     mlir (default) or llvm (adds translation and LLVM's -O3)
//   --max-candidates=N
//                   candidates per dispatch (default 16, as quiltc); GPU
//                   code generation grows with them, and every candidate
//                   goes through the same code
//
//===----------------------------------------------------------------------===//

#include "Compiler/Compiler.h"
#include "Compiler/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

using namespace quilt;

// libFuzzer clears these before each input and treats every nonzero byte
// as a feature (FuzzerExtraCounters.cpp).
extern "C" {
__attribute__((section("__libfuzzer_extra_counters"), used))
uint8_t quiltCompileFeatures[1 << 15];
}

namespace {

void addFeature(llvm::StringRef kind, llvm::StringRef what) {
  size_t slot = llvm::hash_combine(kind, what) % sizeof(quiltCompileFeatures);
  if (quiltCompileFeatures[slot] != 255)
    ++quiltCompileFeatures[slot];
}

/// `text` with runs of digits as '#' and quoted names as '?': the same
/// diagnostic at another line, size or symbol is the same feature.
std::string eraseSpecifics(llvm::StringRef text) {
  std::string out;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) {
        out += '?';
        quote = 0;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (out.empty() || out.back() != '#')
        out += '#';
      continue;
    }
    out += c;
  }
  return out;
}

/// The input's structure, parsed apart from the compile so that inputs the
/// pipeline refuses still count by what they contain.
void addStructureFeatures(std::string_view source) {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    registerCompilerDialects(registry);
    auto *created = new mlir::MLIRContext(
        registry, mlir::MLIRContext::Threading::DISABLED);
    // Parse errors are the compile's to report (as outcome features).
    created->getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
    return created;
  }();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(
          llvm::StringRef(source.data(), source.size()), context);
  if (!module)
    return;
  module->walk([](mlir::Operation *op) {
    llvm::StringRef name = op->getName().getStringRef();
    addFeature("op", name);
    if (mlir::Operation *parent = op->getParentOp())
      addFeature(parent->getName().getStringRef(), name);
    for (mlir::Type type : op->getResultTypes()) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << type;
      addFeature(name, eraseSpecifics(text));
    }
  });
}

void addOutcomeFeatures(const CompileResult &result) {
  if (result.ok()) {
    addFeature("outcome", "compiled");
    return;
  }
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(result.error).split(lines, '\n', -1, false);
  bool located = false;
  for (llvm::StringRef line : lines) {
    // "<file>:<line>:<col>: error: ..." -> "error: ..."; the source lines
    // shown under a diagnostic are the input's, not features.
    size_t severity = line.find(": error: ");
    if (severity == llvm::StringRef::npos)
      continue;
    addFeature("diagnostic", eraseSpecifics(line.drop_front(severity + 2)));
    located = true;
  }
  // An error without a location (an option, the target): the text itself.
  if (!located)
    addFeature("diagnostic", eraseSpecifics(result.error));
}

CompileOptions &fuzzOptions() {
  static CompileOptions options = [] {
    CompileOptions defaults;
    defaults.emit = EmitKind::MLIR;
    // What the emulators run, and no toolkit needed.
    defaults.deviceFormat = "isa";
    return defaults;
  }();
  return options;
}

[[noreturn]] void usage(const char *arg) {
  std::fprintf(stderr,
               "quilt-compile-fuzzer: unknown option '%s' (expected "
               "--target=NAME, --emit=mlir|llvm or --max-candidates=N)\n",
               arg);
  std::exit(2);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  CompileOptions &options = fuzzOptions();
  for (int i = 1; i < *argc; ++i) {
    std::string_view arg((*argv)[i]);
    if (arg.substr(0, 2) != "--")
      continue; // libFuzzer's own
    if (arg.substr(0, 9) == "--target=") {
      options.target = std::string(arg.substr(9));
    } else if (arg == "--emit=mlir") {
      options.emit = EmitKind::MLIR;
    } else if (arg == "--emit=llvm") {
      options.emit = EmitKind::LLVM;
    } else if (arg.substr(0, 17) == "--max-candidates=") {
      options.maxCandidates = std::atoi(std::string(arg.substr(17)).c_str());
    } else {
      usage((*argv)[i]);
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view source(reinterpret_cast<const char *>(data), size);
  addStructureFeatures(source);
  CompileResult result = compileSource(source, "fuzz.mlir", fuzzOptions());
  addOutcomeFeatures(result);
  if (!result.ok())
    return 0; // refused, with a reason
  if (result.artifact.empty()) {
    std::fprintf(stderr, "compileSource succeeded with an empty artifact\n");
    std::abort();
  }
  return 0;
}
