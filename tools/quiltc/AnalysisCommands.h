//===- AnalysisCommands.h - quiltc's cost-model commands ------------------===//
//
// Part of the Quilt project. Each command parses its own options and prints
// to the given streams; the work and the rendering live in the cost-model
// library (Explain.h, CalibrationFit.h, Replay.h). Returns the process exit
// code.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_TOOLS_QUILTC_ANALYSISCOMMANDS_H
#define QUILT_TOOLS_QUILTC_ANALYSISCOMMANDS_H

#include <iosfwd>
#include <string>
#include <vector>

namespace quilt {

/// Exit codes shared by all subcommands.
enum ExitCode { kExitOk = 0, kExitError = 1, kExitUsage = 2 };

int runTargetsCommand(const std::vector<std::string> &args, std::ostream &out,
                      std::ostream &err);
int runExplainCommand(const std::vector<std::string> &args, std::ostream &out,
                      std::ostream &err);
int runCalibrateCommand(const std::vector<std::string> &args, std::ostream &out,
                        std::ostream &err);
int runReplayCommand(const std::vector<std::string> &args, std::ostream &out,
                     std::ostream &err);

} // namespace quilt

#endif // QUILT_TOOLS_QUILTC_ANALYSISCOMMANDS_H
