// What a `tact worker` process costs the machine it runs on.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "cluster_test_util.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

std::string Maps(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/maps");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// cuBLAS is opened only for a GPU device (devices/gpu/cublas_library.h):
// linked, it cost every process 0.4 s and 95 MB at start, and a restarted
// task came back that much later. A worker that ran a step on its CPU
// devices has not loaded it, on a machine with a GPU or without.
TEST(WorkerFootprintTest, AWorkerWithoutGpuDevicesNeverLoadsCublas) {
  auto cluster = test_util::StartCluster({{"worker", 1}});
  ASSERT_NE(cluster, nullptr);
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  MatMul(s.WithDevice("/job:worker/task:0").WithOpName("y"), x, x);
  auto session = test_util::Connect(*cluster, *s.ToGraphDef());
  ASSERT_NE(session, nullptr);
  auto y = session->Run({{"x", Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2})}}, {"y"}, {});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->at(0).data<float>()[3], 22.0f);  // [[1,2],[3,4]]^2 = [[7,10],[15,22]]
  const std::string maps = Maps(cluster->Pid("/job:worker/replica:0/task:0"));
  ASSERT_NE(maps.find("libcaf_core"), std::string::npos) << "not the worker's maps:\n" << maps;
  EXPECT_EQ(maps.find("libcublas"), std::string::npos) << maps;
}

}  // namespace
}  // namespace tact
