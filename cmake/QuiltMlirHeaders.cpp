// The source of QuiltMlirHeaders (cmake/QuiltPrecompiledHeaders.cmake): the
// target exists to own the precompiled MLIR headers the other targets reuse,
// and CMake builds a precompiled header only for a target with a source.
