// MatMul and BatchMatMul against naive triple loops in double, and the
// GEMM helper's vector products.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "kernels/cpu/blas_gemm.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

// a is stored [m,k] or [k,m] (ta); b is stored [k,n] or [n,k] (tb).
std::vector<double> NaiveMatMul(const std::vector<double>& a, const std::vector<double>& b,
                                int64_t m, int64_t n, int64_t k, bool ta, bool tb) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p)
        c[i * n + j] += a[ta ? p * m + i : i * k + p] * b[tb ? j * k + p : p * n + j];
  return c;
}

AttrMap MatMulAttrs(bool ta, bool tb) {
  return {{"transpose_a", AttrValue::Bool(ta)}, {"transpose_b", AttrValue::Bool(tb)}};
}

template <typename T>
void CheckMatMul(int64_t m, int64_t n, int64_t k, bool ta, bool tb, double tol) {
  SCOPED_TRACE(testing::Message() << m << "x" << n << "x" << k << " ta=" << ta << " tb=" << tb);
  Tensor a = test::Random<T>(ta ? TensorShape({k, m}) : TensorShape({m, k}), 11);
  Tensor b = test::Random<T>(tb ? TensorShape({n, k}) : TensorShape({k, n}), 12);
  auto out = test::RunOp("MatMul", {a, b}, MatMulAttrs(ta, tb));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  test::ExpectClose((*out)[0], {m, n},
                    NaiveMatMul(test::ToDoubles(a), test::ToDoubles(b), m, n, k, ta, tb), tol, tol);
}

// A float m x n x k product (each operand stored transposed or not) from
// random inputs seeded `seed` and `seed + 1`: the same bits on one device
// thread and on four.
void ExpectSameBitsOnOneAndFourThreads(int64_t m, int64_t n, int64_t k, bool ta, bool tb, uint32_t seed) {
  Tensor a = test::Random<float>(ta ? TensorShape({k, m}) : TensorShape({m, k}), seed);
  Tensor b = test::Random<float>(tb ? TensorShape({n, k}) : TensorShape({k, n}), seed + 1);
  auto one = test::RunOp("MatMul", {a, b}, MatMulAttrs(ta, tb), 1);
  auto four = test::RunOp("MatMul", {a, b}, MatMulAttrs(ta, tb), 4);
  ASSERT_TRUE(one.ok() && four.ok());
  EXPECT_TRUE((*one)[0].BitwiseEqual((*four)[0]))
      << m << "x" << n << "x" << k << " ta=" << ta << " tb=" << tb;
}

TEST(MatMulTest, MatchesNaiveLoopsForEveryTranspose) {
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 1, 1}, {3, 5, 7}, {17, 1, 9}, {1, 13, 4}, {33, 31, 65}, {64, 48, 100}};
  for (const auto& s : shapes) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        CheckMatMul<float>(s[0], s[1], s[2], ta, tb, 1e-4);
        CheckMatMul<double>(s[0], s[1], s[2], ta, tb, 1e-12);
      }
    }
  }
}

// One row or one column: a matrix-vector product (GEMV), also when
// ParallelGemm cuts it into blocks, whose B or C then has a leading
// dimension wider than the block; the bits do not depend on the threads.
TEST(MatMulTest, VectorProductsMatchNaiveLoopsAndNotTheThreads) {
  const std::vector<std::vector<int64_t>> shapes = {{1, 3000, 700}, {2500, 1, 600}, {1, 1, 5000}};
  for (const auto& s : shapes) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        CheckMatMul<float>(s[0], s[1], s[2], ta, tb, 1e-3);
        CheckMatMul<double>(s[0], s[1], s[2], ta, tb, 1e-10);
        ExpectSameBitsOnOneAndFourThreads(s[0], s[1], s[2], ta, tb, 5);
      }
    }
  }
}

// With beta 0, C's old contents are not read: a NaN left in the output
// buffer (a reused allocation) does not reach the result.
TEST(GemmTest, AVectorProductWithBetaZeroIgnoresWhatCHeld) {
  const std::vector<float> a = {1, 2, 3}, b = {4, 5, 6};
  for (bool row : {true, false}) {
    std::vector<float> c(3 * 3, std::nanf(""));
    // [1, 3] x [3, 1] = [1, 1]; as a row (m = 1, n = 1 too) and as a
    // column of a product with ldc 3.
    GemmStrided<float>(false, false, 1, 1, 3, 1.0f, a.data(), 3, b.data(), 1, 0.0f, c.data(),
                       row ? 1 : 3);
    EXPECT_EQ(c[0], 32.0f) << row;
    // [3, 1] x [1, 3] = [3, 3] is not a vector product; a [3, 3] x [3, 1]:
    std::vector<float> m = {1, 0, 0, 0, 2, 0, 0, 0, 3};
    GemmStrided<float>(false, false, 3, 1, 3, 1.0f, m.data(), 3, b.data(), 1, 0.0f, c.data(), 3);
    EXPECT_EQ(c[0], 4.0f);
    EXPECT_EQ(c[3], 10.0f);
    EXPECT_EQ(c[6], 18.0f);
  }
}

// Large enough that ParallelGemm cuts the product into several blocks of
// rows (tall) or columns (wide) on the device's threads.
TEST(MatMulTest, BlockedProductsMatchNaiveLoopsAndNotTheThreads) {
  const std::vector<std::vector<int64_t>> shapes = {{520, 48, 300}, {40, 700, 300}};
  for (const auto& s : shapes) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        CheckMatMul<float>(s[0], s[1], s[2], ta, tb, 1e-3);
        ExpectSameBitsOnOneAndFourThreads(s[0], s[1], s[2], ta, tb, 3);
      }
    }
  }
}

// From 2^30 multiply-adds a product is cut into one block of rows per
// device thread (fewer, larger blocks than below): its bits still do not
// depend on the threads, and sampled elements match a naive dot product.
// Tall, wide (too few rows for three blocks) and short (too few rows to be
// cut by rows) products, on 1, 2 and 3 threads: 2 and 3 threads cut 2048
// rows where OpenBLAS's AVX2 sgemm computed rows otherwise before the
// blocks were aligned.
TEST(MatMulTest, TheLargestProductsKeepTheirBitsOnAnyThreadCount) {
  const int64_t shapes[][3] = {{2048, 1024, 2048}, {1024, 2048, 2048}, {256, 4096, 1024}};
  for (const auto& [m, n, k] : shapes) {
    SCOPED_TRACE(testing::Message() << m << "x" << n << "x" << k);
    Tensor a = test::Random<float>(TensorShape({m, k}), 5);
    Tensor b = test::Random<float>(TensorShape({k, n}), 6);
    auto one = test::RunOp("MatMul", {a, b}, MatMulAttrs(false, false), 1);
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    for (int threads : {2, 3}) {
      auto many = test::RunOp("MatMul", {a, b}, MatMulAttrs(false, false), threads);
      ASSERT_TRUE(many.ok()) << many.status().ToString();
      EXPECT_TRUE((*one)[0].BitwiseEqual((*many)[0])) << threads << " threads";
    }
    const float* pa = a.data<float>();
    const float* pb = b.data<float>();
    const float* pc = (*one)[0].data<float>();
    for (int64_t s = 0; s < 64; ++s) {
      const int64_t i = (s * 977) % m, j = (s * 389) % n;
      double dot = 0;
      for (int64_t p = 0; p < k; ++p) dot += double(pa[i * k + p]) * double(pb[p * n + j]);
      EXPECT_NEAR(pc[i * n + j], dot, 1e-3 * (1 + std::abs(dot))) << "element " << i << "," << j;
    }
  }
}

// OpenBLAS picks its kernels when it loads, by the CPU or by
// OPENBLAS_CORETYPE. The test above runs again in a child process on the
// kernels this one does not use: the AVX2 (Haswell) ones, which most x86
// machines without AVX-512 run, or, when this process runs those, the
// CPU's own.
TEST(MatMulTest, TheLargestProductsKeepTheirBitsOnOpenBlasOtherKernels) {
  const char* now = std::getenv("OPENBLAS_CORETYPE");
  const bool haswell_now = now != nullptr && std::string(now) == "Haswell";
  // The child's environment is built before the fork: a forked child of a
  // threaded process should only exec.
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string(*e).rfind("OPENBLAS_CORETYPE=", 0) != 0) env.emplace_back(*e);
  }
  if (!haswell_now) env.emplace_back("OPENBLAS_CORETYPE=Haswell");
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string name = "tact_kernel_tests";
  std::string filter = "--gtest_filter=MatMulTest.TheLargestProductsKeepTheirBitsOnAnyThreadCount";
  char* argv[] = {name.data(), filter.data(), nullptr};
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    execve("/proc/self/exe", argv, envp.data());
    _exit(127);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "on OpenBLAS's " << (haswell_now ? "own" : "Haswell")
                                    << " kernels (its output is above)";
}

// Several callers share one device's pool, as concurrent steps and the
// executor's threads do: the blocks of each product are taken by whichever
// of its caller and the pool threads comes first (ParallelGemm), and a pool
// thread that comes late must find none of another product's.
TEST(MatMulTest, ConcurrentProductsOnOneDeviceGiveTheOneThreadBits) {
  auto device = NewCpuDevice("/job:localhost/replica:0/task:0/device:CPU:0", 2);
  Tensor a = test::Random<float>({300, 256}, 5);
  Tensor b = test::Random<float>({256, 200}, 6);
  auto want = test::RunOp("MatMul", {a, b}, MatMulAttrs(false, false), 1);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        auto got = test::RunOpOn(device.get(), "MatMul", {a, b}, MatMulAttrs(false, false));
        if (!got.ok()) {
          ++failed;
        } else if (!(*got)[0].BitwiseEqual((*want)[0])) {
          ++wrong;
        }
      }
    });
  }
  for (std::thread& c : callers) c.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
}

TEST(MatMulTest, EmptyDimensions) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      CheckMatMul<float>(0, 4, 3, ta, tb, 0);   // m = 0: empty result
      CheckMatMul<float>(4, 0, 3, ta, tb, 0);   // n = 0: empty result
      CheckMatMul<double>(3, 5, 0, ta, tb, 0);  // k = 0: zeros
      CheckMatMul<double>(0, 0, 0, ta, tb, 0);
    }
  }
}

TEST(MatMulTest, InnerDimensionMismatchNamesBothShapes) {
  auto out = test::RunOp("MatMul", {test::Random<float>({2, 3}, 1), test::Random<float>({4, 5}, 2)});
  test::ExpectError(out.status(), Code::kInvalidArgument,
                    "inner dimensions differ (3 vs 4) for shapes [2,3] and [4,5]");
  auto t = test::RunOp("MatMul", {test::Random<float>({2, 3}, 1), test::Random<float>({2, 3}, 2)},
                       MatMulAttrs(true, false));
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  auto tt = test::RunOp("MatMul", {test::Random<float>({2, 3}, 1), test::Random<float>({2, 3}, 2)},
                        MatMulAttrs(false, false));
  test::ExpectError(tt.status(), Code::kInvalidArgument, "[2,3] and [2,3]");
}

TEST(MatMulTest, RankOtherThanTwoIsAnError) {
  auto vec = test::RunOp("MatMul", {test::Random<float>({3}, 1), test::Random<float>({3, 2}, 2)});
  test::ExpectError(vec.status(), Code::kInvalidArgument,
                    "MatMul needs two matrices (rank 2), got shapes [3] and [3,2]");
  auto r3 = test::RunOp("MatMul", {test::Random<double>({2, 2}, 1),
                                   test::Random<double>({1, 2, 2}, 2)});
  test::ExpectError(r3.status(), Code::kInvalidArgument, "[2,2] and [1,2,2]");
  auto scalar = test::RunOp("MatMul", {Tensor::Scalar<float>(1), Tensor::Scalar<float>(2)});
  test::ExpectError(scalar.status(), Code::kInvalidArgument, "[] and []");
}

TEST(MatMulTest, WrongDtypeIsAnError) {
  auto out = test::RunOp("MatMul", {Tensor::FromVector<int16_t>({1, 2}, {1, 2}),
                                    Tensor::FromVector<int16_t>({1, 2}, {2, 1})});
  test::ExpectError(out.status(), Code::kInvalidArgument, "not in the allowed set");
}

// Batch dims of x and y, stored with their matrices' last two dims.
template <typename T>
void CheckBatchMatMul(const std::vector<int64_t>& bx, const std::vector<int64_t>& by,
                      const std::vector<int64_t>& bout, int64_t m, int64_t n, int64_t k,
                      bool adj_x, bool adj_y, double tol) {
  SCOPED_TRACE(testing::Message() << "m" << m << " n" << n << " k" << k << " adj " << adj_x << adj_y
                                  << " rank " << bx.size() << "/" << by.size());
  std::vector<int64_t> xs = bx, ys = by, os = bout;
  xs.push_back(adj_x ? k : m);
  xs.push_back(adj_x ? m : k);
  ys.push_back(adj_y ? n : k);
  ys.push_back(adj_y ? k : n);
  os.push_back(m);
  os.push_back(n);
  Tensor x = test::Random<T>(TensorShape(xs), 21);
  Tensor y = test::Random<T>(TensorShape(ys), 22);
  std::vector<double> xd = test::ToDoubles(x), yd = test::ToDoubles(y);
  // Reference: walk the output batch index; a size-1 (or missing) dim reads index 0.
  const int r = static_cast<int>(bout.size());
  int64_t batches = 1;
  for (int64_t d : bout) batches *= d;
  std::vector<double> want;
  for (int64_t b = 0; b < batches; ++b) {
    int64_t rem = b, xi = 0, yi = 0, xstride = 1, ystride = 1;
    for (int i = r - 1; i >= 0; --i) {
      const int64_t idx = rem % bout[i];
      rem /= bout[i];
      const int ix = i - (r - static_cast<int>(bx.size()));
      const int iy = i - (r - static_cast<int>(by.size()));
      if (ix >= 0) { xi += (bx[ix] == 1 ? 0 : idx) * xstride; xstride *= bx[ix]; }
      if (iy >= 0) { yi += (by[iy] == 1 ? 0 : idx) * ystride; ystride *= by[iy]; }
    }
    std::vector<double> xm(xd.begin() + xi * m * k, xd.begin() + (xi + 1) * m * k);
    std::vector<double> ym(yd.begin() + yi * k * n, yd.begin() + (yi + 1) * k * n);
    std::vector<double> c = NaiveMatMul(xm, ym, m, n, k, adj_x, adj_y);
    want.insert(want.end(), c.begin(), c.end());
  }
  auto out = test::RunOp("BatchMatMul", {x, y},
                         {{"adj_x", AttrValue::Bool(adj_x)}, {"adj_y", AttrValue::Bool(adj_y)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  test::ExpectClose((*out)[0], TensorShape(os), want, tol, tol);
}

TEST(BatchMatMulTest, MatchesNaiveLoops) {
  for (bool ax : {false, true}) {
    for (bool ay : {false, true}) {
      CheckBatchMatMul<float>({}, {}, {}, 3, 4, 5, ax, ay, 1e-4);           // plain matrices
      CheckBatchMatMul<float>({3}, {3}, {3}, 4, 2, 5, ax, ay, 1e-4);
      CheckBatchMatMul<double>({2, 3}, {2, 3}, {2, 3}, 5, 3, 7, ax, ay, 1e-12);
      CheckBatchMatMul<float>({2, 1}, {1, 3}, {2, 3}, 3, 4, 2, ax, ay, 1e-4);  // broadcast both
      CheckBatchMatMul<double>({4}, {}, {4}, 3, 3, 3, ax, ay, 1e-12);          // y broadcast
      CheckBatchMatMul<float>({}, {2, 2}, {2, 2}, 2, 5, 3, ax, ay, 1e-4);      // x broadcast
      CheckBatchMatMul<float>({200}, {200}, {200}, 8, 8, 8, ax, ay, 1e-4);     // many small ones
      CheckBatchMatMul<float>({2}, {2}, {2}, 70, 60, 80, ax, ay, 1e-3);        // BLAS-threaded size
    }
  }
}

TEST(BatchMatMulTest, EmptyDimensions) {
  CheckBatchMatMul<float>({0}, {0}, {0}, 3, 4, 5, false, false, 0);
  CheckBatchMatMul<float>({0}, {1}, {0}, 3, 4, 5, false, true, 0);
  CheckBatchMatMul<float>({2}, {2}, {2}, 3, 4, 0, false, false, 0);
  CheckBatchMatMul<double>({2}, {2}, {2}, 0, 4, 3, true, false, 0);
}

TEST(BatchMatMulTest, Errors) {
  auto inner = test::RunOp("BatchMatMul", {test::Random<float>({2, 3, 4}, 1),
                                           test::Random<float>({2, 5, 6}, 2)});
  test::ExpectError(inner.status(), Code::kInvalidArgument,
                    "inner dimensions differ (4 vs 5) for shapes [2,3,4] and [2,5,6]");
  auto batch = test::RunOp("BatchMatMul", {test::Random<float>({2, 3, 4}, 1),
                                           test::Random<float>({3, 4, 6}, 2)});
  test::ExpectError(batch.status(), Code::kInvalidArgument,
                    "batch dimensions of [2,3,4] and [3,4,6] do not broadcast");
  auto rank = test::RunOp("BatchMatMul", {test::Random<float>({4}, 1),
                                          test::Random<float>({4, 2}, 2)});
  test::ExpectError(rank.status(), Code::kInvalidArgument, "rank >= 2, got shapes [4] and [4,2]");
}

}  // namespace
}  // namespace tact
