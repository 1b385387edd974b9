//===- TuneCommand.h - quiltc tune ------------------------------*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_TOOLS_QUILTC_TUNECOMMAND_H
#define QUILT_TOOLS_QUILTC_TUNECOMMAND_H

#include <ostream>
#include <string>
#include <vector>

namespace quilt {

int runTuneCommand(const std::vector<std::string> &args, std::ostream &out,
                   std::ostream &err);

} // namespace quilt

#endif // QUILT_TOOLS_QUILTC_TUNECOMMAND_H
