# `cmake --install` for Quilt: libraries, headers (the generated .h.inc
# included), the tools, the mlir-opt plugin, and a CMake package, so that
# a downstream compiler does
#
#   find_package(Quilt CONFIG REQUIRED)   # -DQuilt_DIR=<prefix>/lib/cmake/quilt
#   target_link_libraries(my-opt PRIVATE Quilt::QuiltPipelines ...)
#
# add_mlir_library would install into MLIR's own export set; the top-level
# CMakeLists.txt turns that off (LLVM_INSTALL_TOOLCHAIN_ONLY) and this file
# installs every library into QuiltTargets instead.

include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(QUILT_INSTALL_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/quilt)
# The package's version: bumped with the user-facing contract in DESIGN.md.
set(QUILT_PACKAGE_VERSION 0.1.0)

# Link order: each library after the ones that use it.
set(QUILT_EXPORTED_LIBRARIES
  QuiltCompiler
  QuiltPipelines
  QuiltLinalgToUKernel
  QuiltUKernelToGPU
  QuiltUKernelToHost
  QuiltConversionUtils
  QuiltWholeProgram
  QuiltUKernelTransforms
  QuiltUKernelDialect
  QuiltCostModel
  quilt_runtime
  )
if(TARGET QuiltPlugin)
  list(APPEND QUILT_EXPORTED_LIBRARIES QuiltPlugin)
endif()
# The GPU runtimes that were built (Quilt::quilt_cuda_runtime,
# Quilt::quilt_hip_runtime) load libquilt_runtime.so from their directory.
foreach(runtime ${QUILT_GPU_RUNTIMES})
  list(APPEND QUILT_EXPORTED_LIBRARIES ${runtime})
  set_target_properties(${runtime} PROPERTIES INSTALL_RPATH "\$ORIGIN")
endforeach()

install(TARGETS ${QUILT_EXPORTED_LIBRARIES}
  EXPORT QuiltTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  )

# The tools find libquilt_runtime.so (and quiltc links shared libraries
# against it) in ../lib, and libMLIR.so where they were linked against it.
set(QUILT_INSTALLED_TOOLS quilt-opt quiltc)
foreach(probe quilt-cuda-probe quilt-hip-probe)
  if(TARGET ${probe})
    list(APPEND QUILT_INSTALLED_TOOLS ${probe})
  endif()
endforeach()
set_target_properties(${QUILT_INSTALLED_TOOLS} PROPERTIES
  INSTALL_RPATH "\$ORIGIN/../${CMAKE_INSTALL_LIBDIR}"
  INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS ${QUILT_INSTALLED_TOOLS}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET QuiltPlugin)
  set_target_properties(QuiltPlugin PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
endif()

# Public headers: the hand-written ones (and the .td files, for downstream
# TableGen), the generated declarations, and the runtime's C header.
install(DIRECTORY
    ${QUILT_SOURCE_DIR}/include/CostModel
    ${QUILT_SOURCE_DIR}/include/Dialect
    ${QUILT_SOURCE_DIR}/include/Conversion
    ${QUILT_SOURCE_DIR}/include/Compiler
    ${QUILT_SOURCE_DIR}/include/Pipelines
    ${QUILT_SOURCE_DIR}/include/Quilt
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY
    ${QUILT_BINARY_DIR}/include/Dialect
    ${QUILT_BINARY_DIR}/include/Conversion
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h.inc")
install(FILES
    ${QUILT_SOURCE_DIR}/runtime/include/QuiltRuntime.h
    ${QUILT_SOURCE_DIR}/runtime/include/QuiltGpuRuntime.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT QuiltTargets
  NAMESPACE Quilt::
  DESTINATION ${QUILT_INSTALL_PACKAGE_DIR})
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/QuiltConfig.cmake.in
  ${QUILT_BINARY_DIR}/cmake/QuiltConfig.cmake
  INSTALL_DESTINATION ${QUILT_INSTALL_PACKAGE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(
  ${QUILT_BINARY_DIR}/cmake/QuiltConfigVersion.cmake
  VERSION ${QUILT_PACKAGE_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
    ${QUILT_BINARY_DIR}/cmake/QuiltConfig.cmake
    ${QUILT_BINARY_DIR}/cmake/QuiltConfigVersion.cmake
  DESTINATION ${QUILT_INSTALL_PACKAGE_DIR})
