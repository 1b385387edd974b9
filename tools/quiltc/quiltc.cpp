//===- quiltc.cpp - The Quilt compiler driver -----------------------------===//
//
// Part of the Quilt project. Dispatches to a subcommand; each lives in its
// own file so compile subcommands can be added next to the analysis ones.
//
//===----------------------------------------------------------------------===//

#include "AnalysisCommands.h"
#ifdef QUILT_HAVE_COMPILER
#include "CompileCommand.h"
#include "TuneCommand.h"
#endif

#include <iostream>
#include <string>
#include <vector>

using namespace quilt;

namespace {

struct Subcommand {
  const char *name;
  const char *summary;
  int (*run)(const std::vector<std::string> &, std::ostream &, std::ostream &);
};

const Subcommand kSubcommands[] = {
#ifdef QUILT_HAVE_COMPILER
    {"compile", "compile a .mlir file for a target (also: quiltc IN.mlir)",
     runCompileCommand},
#endif
    {"targets", "list the target database", runTargetsCommand},
    {"explain", "rank the candidates for workloads and say why one wins",
     runExplainCommand},
    {"calibrate", "fit a target's cost-model coefficients to measurements",
     runCalibrateCommand},
    {"replay", "score the model's picks, pruning included, on measured times",
     runReplayCommand},
#ifdef QUILT_HAVE_COMPILER
    {"tune",
     "measure configurations around the model's picks into a tuning "
     "database",
     runTuneCommand},
#endif
};

void printHelp(std::ostream &os) {
  os << "usage: quiltc <subcommand> [options]\n"
#ifdef QUILT_HAVE_COMPILER
        "       quiltc IN.mlir --target T --emit=KIND [-o OUT]\n"
#endif
        "\nsubcommands:\n";
  for (const Subcommand &s : kSubcommands)
    os << "  " << s.name << std::string(12 - std::string(s.name).size(), ' ')
       << s.summary << "\n";
  os << "\n"
        "  quiltc targets [--target-file F]\n"
        "  quiltc explain --target T [--target-file F] [--json] [--top N]\n"
        "                 [--max-candidates N] [--policy P] [--tf32]\n"
        "                 [--threads N] [--tuning-db FILE] [--residual-model FILE]\n"
        "                 (WORKLOAD... | --workloads FILE)\n"
        "      WORKLOAD is one line of a workload file, e.g.\n"
        "      \"matmul f16 M=1000 N=768 K=3072\"; P is cost-model (default),\n"
        "      pad, patch or fixed=<index>; a CPU product is priced on N\n"
        "      cores (default 1), as code compiled with --threads N is.\n"
        "  quiltc calibrate --target T [--target-file F]\n"
        "                   --measurements FILE.csv [--json]\n"
        "      CSV header: op,dtype,b,m,n,k,config,measured_us (or\n"
        "      workload,config,measured_us); see docs/cost-model.md.\n"
        "  quiltc replay --target T [--target-file F] [--threads N]\n"
        "                [--max-candidates N] [--json]\n"
        "                --measurements FILE.csv [--measurements FILE.csv]...\n"
        "      prunes and picks as compiling and the dispatch would, and\n"
        "      scores the picks on the measured times (regret and loss).\n"
#ifdef QUILT_HAVE_COMPILER
        "  quiltc tune --workloads FILE [--target T] [--op OP] [--types T]\n"
        "              [--budget SECONDS] [--db FILE] [--threads N]\n"
        "              [--residual-model FILE]\n"
        "      writes the measured winners to a tuning database; compile\n"
        "      with --tuning-db FILE to run them (docs/tuning.md).\n"
#endif
        "\n"
        "Run 'quiltc <subcommand> --help' for details.\n";
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    printHelp(std::cerr);
    return kExitUsage;
  }
  const std::string &command = args.front();
  if (command == "--help" || command == "-h" || command == "help") {
    printHelp(std::cout);
    return kExitOk;
  }
  for (const Subcommand &s : kSubcommands)
    if (command == s.name)
      return s.run(std::vector<std::string>(args.begin() + 1, args.end()),
                   std::cout, std::cerr);
#ifdef QUILT_HAVE_COMPILER
  // `quiltc IN.mlir ...` is `quiltc compile IN.mlir ...`.
  if (command == "-" || command.find('.') != std::string::npos ||
      command.rfind("--", 0) == 0)
    return runCompileCommand(args, std::cout, std::cerr);
#endif
  std::cerr << "quiltc: error: unknown subcommand '" << command
            << "' (expected "
#ifdef QUILT_HAVE_COMPILER
            << "compile, tune, "
#endif
            << "targets, explain, calibrate or replay; see quiltc --help)\n";
  return kExitUsage;
}
