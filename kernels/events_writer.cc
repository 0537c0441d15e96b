#include "kernels/events_writer.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <system_error>

#include "kernels/summary_proto.h"

namespace tact {
namespace {

double WallTime() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

StatusOr<std::unique_ptr<EventsWriter>> EventsWriter::Create(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return errors::InvalidArgument("summary directory '", dir, "': cannot create: ", ec.message());
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  // The pid and a count of the process's writers keep apart the files of
  // runs, and of writers of one run, that start in the same second:
  // TensorBoard reads every file whose name holds "tfevents".
  static std::atomic<int64_t> writers{0};
  const double now = WallTime();
  const std::string name = "events.out.tfevents." + std::to_string(static_cast<int64_t>(now)) + "." + host +
                           "." + std::to_string(::getpid()) + "." + std::to_string(writers++);
  const std::string path = (std::filesystem::path(dir) / name).string();
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> records, RecordWriter::Create(path));
  TACT_RETURN_IF_ERROR(records->Write(summary::FileVersionEvent(now)));
  TACT_RETURN_IF_ERROR(records->Flush());
  return std::unique_ptr<EventsWriter>(new EventsWriter(path, std::move(records)));
}

Status EventsWriter::WriteSummary(int64_t step, std::string_view summary) {
  TACT_RETURN_IF_ERROR(records_->Write(summary::SummaryEvent(WallTime(), step, summary)));
  return records_->Flush();
}

}  // namespace tact
