#include "devices/gpu/cublas_library.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <filesystem>
#include <mutex>

namespace tact::gpu {
namespace {

// cublas_v2.h names most functions by macros for their _v2 symbols:
// TACT_CUBLAS_SYMBOL(cublasCreate) is "cublasCreate_v2".
#define TACT_CUBLAS_SYMBOL_NAME(expanded) #expanded
#define TACT_CUBLAS_SYMBOL(name) TACT_CUBLAS_SYMBOL_NAME(name)

// The aliases match the headers' C declarations: picking the overload
// fails to compile otherwise (unevaluated, so nothing is linked).
static_assert(sizeof(static_cast<CublasLibrary::GemmEx>(&cublasGemmEx)) > 0);
static_assert(sizeof(static_cast<CublasLibrary::GemmStridedBatchedEx>(&cublasGemmStridedBatchedEx)) > 0);

template <typename Fn>
Status Resolve(void* handle, const std::string& file, const char* symbol, Fn* fn) {
  dlerror();
  *fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (*fn != nullptr) return Status::OK();
  const char* why = dlerror();
  return errors::FailedPrecondition("cuBLAS library '", file, "' has no function '", symbol,
                                    "': ", why != nullptr ? why : "a null symbol");
}

// The folder of the CUDA runtime this program was linked with, where
// CUDA puts cuBLAS too; empty if unknown.
std::string CudaRuntimeFolder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cudaGetDeviceCount), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  return std::filesystem::path(info.dli_fname).parent_path().string();
}

}  // namespace

std::string CublasFileName() { return "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR); }

StatusOr<std::unique_ptr<CublasLibrary>> OpenCublas(const std::string& file) {
  // RTLD_LOCAL: its symbols serve only what dlsym asks for, never another
  // library's references. Never closed: handles made from it may live
  // until the process ends.
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return errors::FailedPrecondition("cannot open cuBLAS library '", file,
                                      "': ", why != nullptr ? why : "unknown reason");
  }
  auto lib = std::make_unique<CublasLibrary>();
  Status s = Resolve(handle, file, TACT_CUBLAS_SYMBOL(cublasCreate), &lib->create);
  if (s.ok()) s = Resolve(handle, file, TACT_CUBLAS_SYMBOL(cublasDestroy), &lib->destroy);
  if (s.ok()) s = Resolve(handle, file, TACT_CUBLAS_SYMBOL(cublasSetStream), &lib->set_stream);
  if (s.ok()) s = Resolve(handle, file, TACT_CUBLAS_SYMBOL(cublasGemmEx), &lib->gemm_ex);
  if (s.ok()) {
    s = Resolve(handle, file, TACT_CUBLAS_SYMBOL(cublasGemmStridedBatchedEx), &lib->gemm_strided_batched_ex);
  }
  if (s.ok()) s = Resolve(handle, file, TACT_CUBLAS_SYMBOL(cublasGetStatusString), &lib->status_string);
  if (s.ok()) s = Resolve(handle, file, TACT_CUBLAS_SYMBOL(cublasGetProperty), &lib->get_property);
  if (!s.ok()) {
    dlclose(handle);  // not cuBLAS, or another version: nothing of it is used
    return s;
  }
  return lib;
}

StatusOr<const CublasLibrary*> Cublas() {
  static std::once_flag once;
  static StatusOr<std::unique_ptr<CublasLibrary>>* result = nullptr;  // never freed: see the header
  std::call_once(once, [] {
    const std::string name = CublasFileName();
    auto lib = OpenCublas(name);
    const std::string folder = CudaRuntimeFolder();
    if (!lib.ok() && !folder.empty()) {
      auto beside = OpenCublas(folder + "/" + name);
      if (beside.ok()) {
        lib = std::move(beside);
      } else {
        lib = errors::FailedPrecondition(lib.status().message(), "; nor beside the CUDA runtime: ",
                                         beside.status().message());
      }
    }
    result = new StatusOr<std::unique_ptr<CublasLibrary>>(std::move(lib));
  });
  if (!result->ok()) return result->status();
  return result->value().get();
}

}  // namespace tact::gpu
