// The GPU libraries as a process finds them, with or without a device.
#include <gtest/gtest.h>

#include "devices/gpu/cublas_library.h"
#include "kernels/gpu/gpu_info.h"

namespace tact {
namespace {

TEST(GpuInfoTest, ReportsLibrariesWithOrWithoutADevice) {
  EXPECT_GE(gpu::DeviceCount(), 0);
  EXPECT_NE(gpu::LibraryVersions().find("cudnn"), std::string::npos);
}

// cuBLAS is opened, not linked: the library found at run time must be the
// one the headers describe, and its functions callable without a device.
TEST(CublasLibraryTest, OpensTheVersionTactWasCompiledAgainst) {
  auto lib = gpu::Cublas();
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  int major = -1;
  ASSERT_EQ((*lib)->get_property(MAJOR_VERSION, &major), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(major, CUBLAS_VER_MAJOR);
  EXPECT_STREQ((*lib)->status_string(CUBLAS_STATUS_NOT_INITIALIZED), "the library was not initialized");
  auto again = gpu::Cublas();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *lib);
}

TEST(CublasLibraryTest, AMissingLibraryOrFunctionIsAnErrorNamingIt) {
  auto missing = gpu::OpenCublas("libcublas.so.999");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(missing.status().message().find("cannot open cuBLAS library 'libcublas.so.999'"),
            std::string::npos) << missing.status().ToString();
  // A real library, but not cuBLAS: the first function it lacks is named.
  auto wrong = gpu::OpenCublas("libz.so.1");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("'libz.so.1' has no function 'cublasCreate_v2'"),
            std::string::npos) << wrong.status().ToString();
}

}  // namespace
}  // namespace tact
