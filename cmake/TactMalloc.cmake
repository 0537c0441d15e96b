# Decides which malloc tact's programs use (TACT_TCMALLOC = AUTO | ON | OFF)
# and defines `tact_malloc`, an interface target tact_core links, so that
# every executable (the `tact` command and each test binary) gets it.
#
# Why tcmalloc: building and dropping a partitioned Inception-sized graph is
# about a million small allocations (NodeDefs, attr maps, names), where
# glibc's malloc spends more time in _int_malloc and malloc_consolidate than
# the partitioner spends computing; TensorFlow links tcmalloc into its
# binaries for the same reason. Only the "minimal" flavour: no heap
# profiler, no stack walks on allocation.
#
# The library is linked, not LD_PRELOADed: a dynamic malloc named on the
# executable's link line is loaded before libc and interposes malloc/free
# for the whole process (CAF, OpenBLAS, cuDNN included). It must not go into
# a shared library that a program loads late, which would mix two heaps.
set(TACT_TCMALLOC AUTO CACHE STRING "Link tcmalloc_minimal into tact's programs: AUTO, ON or OFF")
set_property(CACHE TACT_TCMALLOC PROPERTY STRINGS AUTO ON OFF)

add_library(tact_malloc INTERFACE)
set(TACT_HAVE_TCMALLOC OFF)
if(NOT TACT_TCMALLOC STREQUAL "OFF")
  find_library(TCMALLOC_MINIMAL_LIBRARY NAMES tcmalloc_minimal libtcmalloc_minimal.so.4)
  if(TCMALLOC_MINIMAL_LIBRARY)
    set(TACT_HAVE_TCMALLOC ON)
    target_link_libraries(tact_malloc INTERFACE ${TCMALLOC_MINIMAL_LIBRARY})
  elseif(TACT_TCMALLOC STREQUAL "ON")
    message(FATAL_ERROR "TACT_TCMALLOC=ON but libtcmalloc_minimal was not found: run scripts/setup.sh")
  else()
    # Expected (scripts/setup.sh installs it); without it everything works,
    # only placement and partitioning of large graphs are slower.
    message(WARNING "libtcmalloc_minimal not found: tact uses glibc's malloc. "
                    "scripts/setup.sh installs libgoogle-perftools-dev.")
  endif()
endif()
message(STATUS "tact: tcmalloc ${TACT_HAVE_TCMALLOC} (TACT_TCMALLOC=${TACT_TCMALLOC})")
