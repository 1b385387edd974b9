//===- CompileCommand.h - quiltc's compile command --------------*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_TOOLS_QUILTC_COMPILECOMMAND_H
#define QUILT_TOOLS_QUILTC_COMPILECOMMAND_H

#include <ostream>
#include <string>
#include <vector>

namespace quilt {

/// `quiltc [compile] IN.mlir --target T [--target-file F] [--policy P]
/// [--max-candidates N] --emit=mlir|llvm|asm|obj|shared [-o OUT]`.
int runCompileCommand(const std::vector<std::string> &args, std::ostream &out,
                      std::ostream &err);

} // namespace quilt

#endif // QUILT_TOOLS_QUILTC_COMPILECOMMAND_H
