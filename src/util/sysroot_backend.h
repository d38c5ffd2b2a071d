#pragma once
// Where SysRoot's files come from: the live host, a directory, or a dump archive held in memory.
// SysRoot resolves every symlink itself, so a backend is asked only about paths whose every
// component but the last is a directory it has already seen; a backend never follows a symlink.

#include <memory>
#include <string>
#include <vector>

#include "util/result.h"

namespace kdrift {

enum class EntryKind { kFile, kDirectory, kSymlink, kOther };

// How much of a file a read takes.
enum class ReadExtent {
  kWhole,  // all of it: more than max_bytes is EFBIG
  kHead,   // at most the first max_bytes, reading no further
  // kHead, and a file the kernel makes ends with its first read when that is short: for files
  // the kernel writes as one record (/proc/<pid>/comm, a single_open seq_file), which a first
  // read hands out whole. procfs's other files hand out a page of records at a time.
  kFirstRecord,
};

struct DirEntry {
  std::string name;
  EntryKind kind;
};

class SysRootBackend {
 public:
  virtual ~SysRootBackend() = default;

  // Paths are absolute as on the host ("/sys/block/vda"), without "." or ".." components.
  // Errors carry the errno the host gives (ENOENT, ENOTDIR, ELOOP, EFBIG, ...).

  // Kind of path's last component, not following it.
  virtual Result<EntryKind> kind(const std::string& path) const = 0;
  virtual Result<std::string> link_target(const std::string& path) const = 0;
  // A regular file's content (anything else is EINVAL): at most max_bytes, and EFBIG when it
  // holds more and extent is kWhole.
  virtual Result<std::string> read(const std::string& path, size_t max_bytes,
                                   ReadExtent extent) const = 0;
  // A directory's entries without "." and "..", in no particular order.
  virtual Result<std::vector<DirEntry>> list(const std::string& path) const = 0;
  // The path on this machine's filesystem, for a library that opens files itself; an error
  // when the root is not on a filesystem.
  virtual Result<std::string> host_path(const std::string& path) const = 0;
};

}  // namespace kdrift
