# The installable package: `cmake --install build --prefix P` puts
#   P/lib/libtact.so              every layer in one shared library
#   P/include/tact/...            the headers, as the source tree has them
#                                 ("actors/session.h"), and the generated
#                                 schemas/*.capnp.h
#   P/bin/tact                    the command; a local cluster's tasks run it
#   P/lib/cmake/tact/             tactConfig.cmake: find_package(tact) gives
#                                 tact::tact and TACT_EXECUTABLE
#
# Why one shared library: the kernels register themselves from static
# initialisers, so a static archive would have to be linked whole by every
# consumer; and CAF, HDF5, Cap'n Proto and OpenBLAS stay its own link
# dependencies instead of the consumer's. The archives go in whole
# (--whole-archive by file, not by target, because some of them are
# linked plain elsewhere and CMake refuses one archive both ways).
#
# tcmalloc stays out: a malloc in a shared library that a program loads
# would not interpose the program's own (cmake/TactMalloc.cmake).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_tact_package_archives tact_schemas tact_graph tact_devices tact_kernels tact_placement
    tact_checkpoint tact_checkpoint_kernels tact_actors_impl tact_cluster tact_train)
if(TACT_HAVE_CUDA)
  list(APPEND _tact_package_archives tact_gpu_device tact_gpu)
endif()
add_library(tact_shared SHARED ${PROJECT_SOURCE_DIR}/cmake/package/version.cc)
set_target_properties(tact_shared PROPERTIES OUTPUT_NAME tact VERSION ${PROJECT_VERSION}
                      SOVERSION ${PROJECT_VERSION_MAJOR})
target_compile_definitions(tact_shared PRIVATE TACT_VERSION="${PROJECT_VERSION}")
set(_tact_whole -Wl,--whole-archive)
foreach(a IN LISTS _tact_package_archives)
  list(APPEND _tact_whole $<TARGET_FILE:${a}>)
endforeach()
list(APPEND _tact_whole -Wl,--no-whole-archive)
# As files, so that a changed archive relinks the library.
target_link_libraries(tact_shared PRIVATE ${_tact_whole})
add_dependencies(tact_shared ${_tact_package_archives})
target_link_libraries(tact_shared PRIVATE CAF::core CAF::io CAF::openssl OpenSSL::Crypto HDF5::HDF5
                      CapnProto::capnp CapnProto::capnpc spdlog::spdlog ZLIB::ZLIB tact_blas
                      Threads::Threads)
if(TACT_HAVE_CUDA)
  target_link_libraries(tact_shared PRIVATE CUDA::cudart ${CUDNN_LIBRARY} ${CMAKE_DL_LIBS})
endif()
target_include_directories(tact_shared INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/tact>)
target_compile_features(tact_shared INTERFACE cxx_std_20)
set_target_properties(tact_shared PROPERTIES EXPORT_NAME tact)

install(TARGETS tact_shared EXPORT tactTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tact RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY graph devices kernels placement checkpoint actors apps
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tact FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_BINARY_DIR}/schemas/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tact/schemas
        FILES_MATCHING PATTERN "*.capnp.h")
install(FILES schemas/tensor.capnp schemas/graph.capnp schemas/runtime.capnp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tact/schemas)
install(EXPORT tactTargets NAMESPACE tact:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tact)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/package/tactConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/tactConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tact
                              PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tactConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tactConfig.cmake ${PROJECT_BINARY_DIR}/tactConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tact)
