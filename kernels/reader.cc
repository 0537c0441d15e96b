#include "kernels/reader.h"

#include <utility>

namespace tact {

void Reader::ReadUpTo(int64_t n, NextFile next_file, ReadDone done) {
  auto job = std::make_shared<Job>();
  job->n = n;
  job->next_file = std::move(next_file);
  job->done = std::move(done);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (busy_) {
      waiting_.push_back(std::move(job));
      return;
    }
    busy_ = true;
  }
  Continue(job);
}

void Reader::Continue(const std::shared_ptr<Job>& job) {
  Status status;
  bool finished = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    while (file_ != nullptr && static_cast<int64_t>(job->keys.size()) < job->n) {
      std::string value;
      StatusOr<bool> got = Next(file_.get(), &value);
      if (!got.ok() || !*got) {
        file_.reset();
        status = got.status();
        finished = !got.ok();
        break;
      }
      job->keys.push_back(file_->path() + ":" + std::to_string(record_++));
      job->values.push_back(std::move(value));
    }
    finished = finished || static_cast<int64_t>(job->keys.size()) >= job->n;
  }
  // done runs with no lock held: it may start the next read of this reader.
  if (finished) return Finish(job, status);
  job->next_file([this, job](const Status& s, const std::string& path) {
    if (!s.ok()) {
      const bool end = s.code() == Code::kOutOfRange;
      return Finish(job, end && !job->keys.empty() ? Status::OK() : s);
    }
    Status opened;
    {
      std::lock_guard<std::mutex> lock(mu_);
      StatusOr<std::unique_ptr<InputFile>> f = InputFile::Open(path);
      opened = f.status();
      if (opened.ok()) {
        file_ = std::move(f).value();
        record_ = 0;
        opened = Start(file_.get());
        if (!opened.ok()) file_.reset();
      }
    }
    if (!opened.ok()) return Finish(job, opened);
    Continue(job);
  });
}

void Reader::Finish(const std::shared_ptr<Job>& job, const Status& status) {
  std::shared_ptr<Job> next;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!waiting_.empty()) {
      next = std::move(waiting_.front());
      waiting_.pop_front();
    } else {
      busy_ = false;
    }
  }
  job->done(status, std::move(job->keys), std::move(job->values));
  if (next != nullptr) Continue(next);
}

namespace {

class FixedLengthRecordReader final : public Reader {
 public:
  explicit FixedLengthRecordReader(const FixedLengthOptions& o) : o_(o) {}
  std::string kind() const override { return "FixedLengthRecordReader"; }

 protected:
  Status Start(InputFile* file) override {
    std::string header;
    TACT_RETURN_IF_ERROR(file->Read(static_cast<size_t>(o_.header_bytes), &header));
    if (static_cast<int64_t>(header.size()) < o_.header_bytes) {
      return errors::DataLoss("input file '", file->path(), "' is shorter than its ", o_.header_bytes,
                              "-byte header");
    }
    return Status::OK();
  }
  StatusOr<bool> Next(InputFile* file, std::string* value) override {
    TACT_RETURN_IF_ERROR(file->Read(static_cast<size_t>(o_.record_bytes), value));
    const int64_t got = static_cast<int64_t>(value->size());
    if (got == o_.record_bytes) return true;
    if (got == 0 || (o_.footer_bytes > 0 && got == o_.footer_bytes)) return false;
    return errors::DataLoss("input file '", file->path(), "' ends ", got, " bytes into a ", o_.record_bytes,
                            "-byte record");
  }

 private:
  const FixedLengthOptions o_;
};

class TextLineReader final : public Reader {
 public:
  explicit TextLineReader(int64_t skip) : skip_(skip) {}
  std::string kind() const override { return "TextLineReader"; }

 protected:
  Status Start(InputFile* file) override {
    buffer_.clear();
    pos_ = 0;
    std::string line;
    for (int64_t i = 0; i < skip_; ++i) {
      TACT_ASSIGN_OR_RETURN(bool more, Line(file, &line));
      if (!more) break;
    }
    return Status::OK();
  }
  StatusOr<bool> Next(InputFile* file, std::string* value) override { return Line(file, value); }

 private:
  // The next line without its "\n"; a last line without one counts.
  StatusOr<bool> Line(InputFile* file, std::string* line) {
    line->clear();
    while (true) {
      const size_t nl = buffer_.find('\n', pos_);
      if (nl != std::string::npos) {
        line->append(buffer_, pos_, nl - pos_);
        pos_ = nl + 1;
        return true;
      }
      line->append(buffer_, pos_, std::string::npos);
      std::string more;
      TACT_RETURN_IF_ERROR(file->Read(1 << 16, &more));
      buffer_ = std::move(more);
      pos_ = 0;
      if (buffer_.empty()) return !line->empty();
    }
  }

  const int64_t skip_;
  std::string buffer_;
  size_t pos_ = 0;
};

class TFRecordReader final : public Reader {
 public:
  std::string kind() const override { return "TFRecordReader"; }

 protected:
  StatusOr<bool> Next(InputFile* file, std::string* value) override { return ReadRecord(file, value); }
};

}  // namespace

std::shared_ptr<Reader> NewFixedLengthRecordReader(const FixedLengthOptions& options) {
  return std::make_shared<FixedLengthRecordReader>(options);
}
std::shared_ptr<Reader> NewTextLineReader(int64_t skip_header_lines) {
  return std::make_shared<TextLineReader>(skip_header_lines);
}
std::shared_ptr<Reader> NewTFRecordReader() { return std::make_shared<TFRecordReader>(); }

}  // namespace tact
