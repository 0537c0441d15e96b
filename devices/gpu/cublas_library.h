// cuBLAS, opened with dlopen when the first GPU device is made instead of
// linked into every program.
//
// Linking it costs every process its start whether or not a GPU is there:
// libcublas brings libcublasLt (540 MB), whose loading and static
// initialisers took 0.35-0.40 s and 95 MB of private memory in an empty
// program on a machine without a GPU, and did the same to every `tact`
// command, worker and restarted task. The CUDA runtime and cuDNN stay
// linked: together they cost an empty program 10 ms and 3 MB. TensorFlow
// opens its GPU libraries the same way, when the GPU platform starts.
//
// Only the functions tact calls are resolved; each keeps cuBLAS's own
// signature (the _v2 entry points that cublas_v2.h's names stand for).
//
// Thread-safe: Cublas() opens the library once per process; what it
// returns is never changed or freed.
#pragma once

#include <cublas_v2.h>

#include <memory>
#include <string>

#include "graph/status.h"

namespace tact::gpu {

struct CublasLibrary {
  // The C entry points of the two GEMMs (the headers add C++ overloads
  // for legacy argument types, so decltype cannot name them alone).
  using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                    const void*, const void*, cudaDataType, int, const void*,
                                    cudaDataType, int, const void*, void*, cudaDataType, int,
                                    cublasComputeType_t, cublasGemmAlgo_t);
  using GemmStridedBatchedEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                                  int, int, int, const void*, const void*, cudaDataType,
                                                  int, long long, const void*, cudaDataType, int,
                                                  long long, const void*, void*, cudaDataType, int,
                                                  long long, int, cublasComputeType_t, cublasGemmAlgo_t);

  decltype(&cublasCreate) create = nullptr;
  decltype(&cublasDestroy) destroy = nullptr;
  decltype(&cublasSetStream) set_stream = nullptr;
  GemmEx gemm_ex = nullptr;
  GemmStridedBatchedEx gemm_strided_batched_ex = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
  decltype(&cublasGetProperty) get_property = nullptr;  // needs no device
};

// The file name of the cuBLAS that tact was compiled against
// ("libcublas.so.13").
std::string CublasFileName();

// Opens `file` (a name the dynamic loader searches for, or a path) and
// resolves every function above. FailedPrecondition naming the file and
// the loader's reason when it cannot be opened or lacks one of them (and
// then closed again). A library returned stays loaded for the life of the
// process.
StatusOr<std::unique_ptr<CublasLibrary>> OpenCublas(const std::string& file);

// The process's cuBLAS: CublasFileName() as the loader finds it, else the
// same name next to the CUDA runtime tact is linked with. Opened on the
// first call; every later call returns the first one's result.
StatusOr<const CublasLibrary*> Cublas();

}  // namespace tact::gpu
