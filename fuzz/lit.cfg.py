# -*- Python -*-
# lit configuration for the fuzz suite: short libFuzzer runs of the targets
# in this directory, seeded from the repository's own inputs. Longer runs:
# docs/testing.md, "Fuzzing".

import os

import lit.formats

config.name = "QUILT-FUZZ"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.quilt_obj_root, "fuzz")

config.environment["PATH"] = os.pathsep.join(
    [config.quilt_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
config.substitutions.append(("%quilt_src_root", config.quilt_src_root))

# Every run: a fixed seed (a failure in CI reproduces), a per-input time
# limit, the run's length, and findings written next to the test's files.
# QUILT_FUZZ_SECONDS lengthens the runs without editing the tests.
seconds = os.environ.get("QUILT_FUZZ_SECONDS", "15")
config.substitutions.append(
    ("%libfuzzer_flags",
     f"-seed=1 -timeout=60 -rss_limit_mb=6144 -max_total_time={seconds} "
     "-print_final_stats=1"))

# Reader fuzzers are only worth running coverage-guided (the sanitizer
# build); the compile fuzzer runs wherever it was built.
if config.quilt_fuzz_coverage:
    config.available_features.add("coverage")
if config.quilt_compile_fuzzer_built:
    config.available_features.add("compile-fuzzer")
if config.quilt_sanitize and config.quilt_compile_fuzzer_built:
    # A sanitized compiler links Debian's libLLVM and libMLIR, which are not
    # instrumented: ASan must not check the poisoning LLVM's allocators do
    # in only half of the code.
    config.environment["ASAN_OPTIONS"] = "allow_user_poisoning=0"
