# MLIR and LLVM allocate and free millions of small objects per compile;
# with tcmalloc instead of glibc's malloc, quiltc and quilt-opt compile the
# same module about 20% faster (docs/benchmarks.md, "Compile time"). The
# compilers link it when it is found (Debian: libtcmalloc-minimal4);
# -DQUILT_USE_TCMALLOC=OFF keeps glibc's (for sanitizer builds, which
# bring their own allocator). Libraries never link it: an allocator cannot
# be swapped under a running process.
option(QUILT_USE_TCMALLOC
  "Link quiltc and quilt-opt with tcmalloc when it is found" ON)
set(QUILT_TCMALLOC_LIBRARY "")
if(QUILT_USE_TCMALLOC)
  find_library(QUILT_TCMALLOC_LIBRARY_PATH
    NAMES tcmalloc_minimal libtcmalloc_minimal.so.4
    DOC "tcmalloc (minimal) for Quilt's compilers")
  if(QUILT_TCMALLOC_LIBRARY_PATH)
    set(QUILT_TCMALLOC_LIBRARY ${QUILT_TCMALLOC_LIBRARY_PATH})
    message(STATUS "Compilers link tcmalloc: ${QUILT_TCMALLOC_LIBRARY}")
  else()
    message(STATUS "Compilers use glibc's malloc (no tcmalloc found)")
  endif()
endif()

# Links `target` with tcmalloc when it was found. No symbol of it is
# referenced, so it is linked whatever --as-needed says.
function(quilt_link_fast_malloc target)
  if(QUILT_TCMALLOC_LIBRARY)
    target_link_libraries(${target} PRIVATE
      -Wl,--push-state,--no-as-needed ${QUILT_TCMALLOC_LIBRARY}
      -Wl,--pop-state)
  endif()
endfunction()
