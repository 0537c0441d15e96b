#include "apps/train/metrics_log.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

namespace tact::apps {
namespace {

double WallTime() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// NaN (a figure not measured) as JSON's null.
nlohmann::ordered_json Number(double v) {
  return std::isnan(v) ? nlohmann::ordered_json() : nlohmann::ordered_json(v);
}

}  // namespace

StatusOr<std::unique_ptr<MetricsLog>> MetricsLog::Open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (f == nullptr) return errors::PermissionDenied("cannot append to '", path, "': ", std::strerror(errno));
  return std::unique_ptr<MetricsLog>(new MetricsLog(f, path));
}

MetricsLog::~MetricsLog() { std::fclose(file_); }

void MetricsLog::Step(const TrainProgress& p) {
  last_step_ = p.step;
  Line(nlohmann::ordered_json{{"step", p.step},
                              {"epoch", p.epoch},
                              {"loss", Number(p.loss)},
                              {"images_per_sec", Number(p.images_per_sec)},
                              {"wall_time", WallTime()}}
           .dump());
}

void MetricsLog::Epoch(int epoch, double test_accuracy) {
  Line(nlohmann::ordered_json{{"epoch", epoch},
                              {"step", last_step_},
                              {"test_accuracy", Number(test_accuracy)},
                              {"wall_time", WallTime()}}
           .dump());
}

void MetricsLog::Line(const std::string& json) {
  std::fputs(json.c_str(), file_);
  std::fputc('\n', file_);
  const bool flushed = std::fflush(file_) == 0;
  if ((flushed && !std::ferror(file_)) || write_failed_) return;
  write_failed_ = true;
  std::fprintf(stderr,
               "tact train: --metrics: cannot append to '%s': %s; the lines from step %lld on are lost\n",
               path_.c_str(), flushed ? "a write failed" : std::strerror(errno),
               static_cast<long long>(last_step_));
}

}  // namespace tact::apps
