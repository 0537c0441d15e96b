#include "tests/gradients/gradient_checker.h"

#include <cmath>
#include <random>

#include "actors/session.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"

namespace tact {

Tensor RandomDoubles(const TensorShape& shape, unsigned seed, double lo, double hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(shape.num_elements());
  for (auto& e : v) e = d(gen);
  return Tensor::FromVector<double>(v, shape);
}

namespace {
StatusOr<std::unique_ptr<Session>> MakeSession(const Scope& scope) {
  TACT_ASSIGN_OR_RETURN(GraphDef def, scope.ToGraphDef());
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create());
  TACT_RETURN_IF_ERROR(session->Extend(def));
  return session;
}

std::vector<std::pair<std::string, Tensor>> Feeds(const std::vector<Output>& xs,
                                                  const std::vector<Tensor>& vals) {
  std::vector<std::pair<std::string, Tensor>> f;
  for (size_t i = 0; i < xs.size(); ++i) f.emplace_back(xs[i].name(), vals[i]);
  return f;
}

Tensor Copy(const Tensor& t) {
  std::vector<double> v(t.data<double>(), t.data<double>() + t.NumElements());
  return Tensor::FromVector<double>(v, t.shape());
}
}  // namespace

StatusOr<std::vector<Tensor>> RunGraph(const Scope& scope, const std::vector<Output>& xs,
                                       const std::vector<Tensor>& x_values,
                                       const std::vector<Output>& fetches) {
  TACT_ASSIGN_OR_RETURN(auto session, MakeSession(scope));
  std::vector<std::string> names;
  for (const auto& f : fetches) names.push_back(f.name());
  return session->Run(Feeds(xs, x_values), names, {});
}

StatusOr<double> ComputeGradientError(const Scope& scope, const std::vector<Output>& xs,
                                      const std::vector<Tensor>& x_values, const Output& y,
                                      double delta) {
  Output dy = Placeholder(scope, DT_DOUBLE);
  std::vector<Output> grads;
  TACT_RETURN_IF_ERROR(AddSymbolicGradients(scope, {y}, xs, {dy}, &grads));
  TACT_ASSIGN_OR_RETURN(auto session, MakeSession(scope));
  auto feeds = Feeds(xs, x_values);
  TACT_ASSIGN_OR_RETURN(auto y0, session->Run(feeds, {y.name()}, {}));
  const Tensor& yv = y0[0];
  const int64_t ny = yv.NumElements();
  std::vector<std::string> grad_names;
  for (const auto& g : grads) grad_names.push_back(g.name());

  double max_err = 0;
  // theoretical[i][k * ny + j] = d y_j / d x_i[k]
  std::vector<std::vector<double>> theory(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) theory[i].assign(x_values[i].NumElements() * ny, 0);
  for (int64_t j = 0; j < ny; ++j) {
    std::vector<double> onehot(ny, 0.0);
    onehot[j] = 1;
    auto f = feeds;
    f.emplace_back(dy.name(), Tensor::FromVector<double>(onehot, yv.shape()));
    TACT_ASSIGN_OR_RETURN(auto gv, session->Run(f, grad_names, {}));
    for (size_t i = 0; i < xs.size(); ++i) {
      if (gv[i].NumElements() != x_values[i].NumElements()) {
        return errors::Internal("gradient of ", xs[i].name(), " has shape ",
                                gv[i].shape().DebugString());
      }
      for (int64_t k = 0; k < gv[i].NumElements(); ++k) {
        theory[i][k * ny + j] = gv[i].data<double>()[k];
      }
    }
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    for (int64_t k = 0; k < x_values[i].NumElements(); ++k) {
      auto f_plus = feeds, f_minus = feeds;
      Tensor plus = Copy(x_values[i]), minus = Copy(x_values[i]);
      plus.data<double>()[k] += delta;
      minus.data<double>()[k] -= delta;
      f_plus[i].second = plus;
      f_minus[i].second = minus;
      TACT_ASSIGN_OR_RETURN(auto yp, session->Run(f_plus, {y.name()}, {}));
      TACT_ASSIGN_OR_RETURN(auto ym, session->Run(f_minus, {y.name()}, {}));
      for (int64_t j = 0; j < ny; ++j) {
        double num = (yp[0].data<double>()[j] - ym[0].data<double>()[j]) / (2 * delta);
        max_err = std::max(max_err, std::abs(num - theory[i][k * ny + j]));
      }
    }
  }
  return max_err;
}

StatusOr<double> GradientErrorOf(const std::vector<TensorShape>& shapes,
                                 const BuildFromInputs& build, double lo, double hi) {
  Scope s = Scope::NewRootScope();
  std::vector<Output> xs;
  std::vector<Tensor> vals;
  for (size_t i = 0; i < shapes.size(); ++i) {
    xs.push_back(Placeholder(s.WithOpName("x" + std::to_string(i)), DT_DOUBLE));
    vals.push_back(RandomDoubles(shapes[i], 17 + i, lo, hi));
  }
  Output y = build(s, xs);
  return ComputeGradientError(s, xs, vals, y);
}

}  // namespace tact
