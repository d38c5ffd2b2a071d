#include "bisect/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "util/bounded_json.h"
#include "util/input_file.h"
#include "util/text.h"

namespace kdrift {
namespace {

// A bisect writes a few hundred events of well under a kilobyte; far beyond is not a journal.
constexpr size_t kMaxJournalBytes = size_t{256} << 20;
// An event is a flat object of a few levels: a start lists the candidates, a samples event a few
// dozen numbers. Far beyond is not an event kdrift wrote.
constexpr JsonLimits kEventLimits{.max_depth = 16, .max_values = 100'000};

// An append cut short by a crash leaves a last line without its newline: it was never
// acknowledged, so it is cut off before anything is appended after it (which would otherwise
// glue the next event onto it).
Result<bool> drop_torn_tail(int fd, const std::string& path) {
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size < 0) return make_error(errno, "seek journal " + path);
  off_t keep = size;
  char byte = 0;
  while (keep > 0) {
    if (::pread(fd, &byte, 1, keep - 1) != 1) return make_error(errno, "read journal " + path);
    if (byte == '\n') break;
    --keep;
  }
  if (keep == size) return false;
  if (::ftruncate(fd, keep) != 0) return make_error(errno, "truncate torn tail of " + path);
  if (::fsync(fd) != 0) return make_error(errno, "fsync journal " + path);
  return true;
}

}  // namespace

Result<Journal> Journal::open(const TrustedDir& dir, const std::string& name) {
  const std::string path = dir.path_of(name);
  const bool existed = dir.contains(name);
  // Never through a symlink, never into a device or FIFO (open_file refuses both).
  auto fd = dir.open_file(name, O_RDWR | O_APPEND | O_CREAT, 0600);
  if (!fd) return make_error(fd.error().code, "journal: " + fd.error().context);
  bool dropped = false;
  if (existed) {
    auto cut = drop_torn_tail(fd->get(), path);
    if (!cut) return cut.error();
    dropped = *cut;
  } else {
    if (::fsync(fd->get()) != 0) return make_error(errno, "fsync journal " + path);
    if (auto synced = dir.sync(); !synced) return synced.error();
  }
  return Journal(path, std::move(*fd), dropped);
}

Status Journal::append(const Json& event) {
  const std::string line = event.dump() + "\n";
  // One write: with O_APPEND it lands whole at the end or, after a crash, as a torn tail.
  const ssize_t written = ::write(fd_.get(), line.data(), line.size());
  if (written < 0) return make_error(errno, "append to journal " + path_);
  if (static_cast<size_t>(written) != line.size()) {
    return make_error(EIO, "short append to journal " + path_ + " (" + std::to_string(written) +
                               " of " + std::to_string(line.size()) + " bytes)");
  }
  if (::fdatasync(fd_.get()) != 0) return make_error(errno, "fsync journal " + path_);
  return ok_status();
}

namespace {

Result<JournalContents> parse_journal(const std::string& text, const std::string& path) {
  JournalContents contents;
  size_t start = 0;
  size_t line_number = 0;
  while (start < text.size()) {
    ++line_number;
    const size_t end = text.find('\n', start);
    const bool terminated = end != std::string::npos;
    const std::string_view line(text.data() + start, (terminated ? end : text.size()) - start);
    start = terminated ? end + 1 : text.size();
    if (trim(line).empty()) continue;
    if (!terminated) {
      contents.torn_tail = true;
      break;
    }
    const std::string where = path + ":" + std::to_string(line_number) +
                              ": not a journal event (one JSON object per line)";
    auto event = parse_bounded_json(line, where, kEventLimits);
    if (!event) return event.error();
    if (!event->is_object()) return content_error(where + ": " + quote_value(line));
    contents.events.push_back(std::move(*event));
  }
  return contents;
}

}  // namespace

Result<JournalContents> read_journal(const TrustedDir& dir, const std::string& name) {
  auto read = dir.read_file(name, kMaxJournalBytes);
  if (!read) return make_error(read.error().code, "journal: " + read.error().context);
  return parse_journal(*read, dir.path_of(name));
}

Result<JournalContents> read_journal(const std::string& path) {
  auto read = read_whole_file(path, kMaxJournalBytes);
  if (!read) return make_error(read.error().code, "journal: " + read.error().context);
  return parse_journal(*read, path);
}

}  // namespace kdrift
