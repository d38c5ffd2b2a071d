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

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

Status fsync_directory(const std::string& directory) {
  UniqueFd dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return make_error(errno, "open directory " + directory);
  if (::fsync(dir.get()) != 0) return make_error(errno, "fsync directory " + directory);
  return ok_status();
}

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

Result<Journal> Journal::open(const std::string& path) {
  struct stat st {};
  const bool existed = ::stat(path.c_str(), &st) == 0;
  // Never through a symlink someone planted in the state directory, never into a device or FIFO.
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return make_error(errno, "open journal " + path);
  if (::fstat(fd.get(), &st) != 0) return make_error(errno, "stat journal " + path);
  if (!S_ISREG(st.st_mode)) return content_error("journal " + path + " is not a regular file");
  bool dropped = false;
  if (existed) {
    auto cut = drop_torn_tail(fd.get(), path);
    if (!cut) return cut.error();
    dropped = *cut;
  } else {
    if (::fsync(fd.get()) != 0) return make_error(errno, "fsync journal " + path);
    auto synced = fsync_directory(directory_of(path));
    if (!synced) return synced.error();
  }
  return Journal(path, std::move(fd), dropped);
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

Result<JournalContents> read_journal(const std::string& path) {
  auto read = read_whole_file(path, kMaxJournalBytes);
  if (!read) return make_error(read.error().code, "journal: " + read.error().context);
  const std::string& text = *read;
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

}  // namespace kdrift
