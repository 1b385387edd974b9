//===- QuiltPlugin.cpp - Quilt as an mlir-opt plugin ----------------------===//
//
// Part of the Quilt project. One shared library with both plugin entry
// points, so upstream tools use the ukernel dialect and Quilt's passes:
//
//   mlir-opt --load-dialect-plugin=QuiltPlugin.so \
//            --load-pass-plugin=QuiltPlugin.so \
//            --pass-pipeline='builtin.module(ukernel-attach-target{target=h100})'
//
// It registers exactly what quilt-opt adds to mlir-opt (InitAllDialects.h,
// InitAllPasses.h). It links libMLIR.so, the copy mlir-opt itself uses, so
// the dialect and pass registries are the tool's own.
//
//===----------------------------------------------------------------------===//

#include "Quilt/InitAllDialects.h"
#include "Quilt/InitAllPasses.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Quilt", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            quilt::registerAllDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Quilt", LLVM_VERSION_STRING,
          [] { quilt::registerAllPasses(); }};
}
