#pragma once
// The one reader for /proc, /sys, /boot and /dev/kmsg. Paths are always written as on the live
// host ("/sys/block/vda/queue/scheduler"); with a root other than "/" they are looked up below it
// and symlinks are resolved inside it, as lscpu --sysroot does, so a fixture tree, a dump archive
// and the live host go through the same code. Where the files come from is a SysRootBackend
// (the host, a directory, an archive in memory). Every failure comes back as an Error naming
// the path.

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"
#include "util/sysroot_backend.h"

namespace kdrift {

class AccessLog;
class BudgetedBackend;

// Name of the manifest a dump carries at its top: errors and unread listings to replay.
inline constexpr std::string_view kDumpManifest = "kdrift-sysroot.json";

class SysRoot {
 public:
  static constexpr size_t kDefaultMaxBytes = size_t{8} << 20;

  // "/" is the live host; any other directory is read below it (DirectoryBackend). A dump's
  // manifest, if present at the top of root, is loaded so that the errors the original host gave
  // are given again.
  explicit SysRoot(const std::string& root = "/");
  // Files from backend; name is what root() reports (a dump archive's path).
  SysRoot(std::string name, std::shared_ptr<const SysRootBackend> backend);

  const std::string& root() const { return root_; }
  bool live() const { return root_ == "/"; }
  // The live host, or a dump of one (its manifest says "complete", as every dump of a complete
  // tree does; older dumps without the member were all of live hosts): every path a capture
  // reads was looked up on the host, so one absent from the tree was absent there too. Other
  // trees (sos reports, lscpu dumps, hand-made trees and their dumps) may not have collected it.
  bool complete() const { return live() || complete_dump_; }

  // Whole content of a regular file, binary-safe. Files larger than max_bytes are an error (EFBIG),
  // never silently cut.
  Result<std::string> read(std::string_view path, size_t max_bytes = kDefaultMaxBytes) const;
  // At most the first max_bytes of a regular file, reading no further: for files where every
  // byte costs (PCI config space is fetched from the device register by register).
  Result<std::string> read_head(std::string_view path, size_t max_bytes) const;
  // read_head() of a file the kernel writes as one record (/proc/<pid>/comm): on the live host
  // its first read is all of it, and no second read asks for the end.
  Result<std::string> read_first_record(std::string_view path, size_t max_bytes) const;
  // read() with surrounding whitespace removed: the shape of one sysfs/procfs value.
  Result<std::string> read_value(std::string_view path) const;
  // Entry names of a directory, sorted, without "." and "..".
  Result<std::vector<std::string>> list(std::string_view path) const;
  // list() with each entry's kind (not following symlinks), taken from the directory listing
  // itself: a sysfs queue/ directory has ~60 attributes, and an lstat per name doubles its cost.
  // Names a dump listed without reading come back as files.
  Result<std::vector<DirEntry>> list_entries(std::string_view path) const;
  // Target of the symlink at path (its last component is not followed).
  Result<std::string> link_target(std::string_view path) const;
  // Canonical path (as on the host) of what path points to, every symlink resolved inside root.
  Result<std::string> resolve(std::string_view path) const;
  // Kind of the final component, not following it when it is a symlink.
  Result<EntryKind> kind(std::string_view path) const;
  bool exists(std::string_view path) const { return resolve(path).ok(); }
  // Whether a tree other than the live host stayed within what a host's capture reads
  // (util/budgeted_backend.h); past it, every read has failed fast, and what was collected is
  // not a host's state: callers refuse it.
  Status within_budget() const;
  // Kernel log records. Live: read non-blocking from /dev/kmsg; in a sysroot: the file dev/kmsg.
  // Read once per reader, so every collector sees the same log and a dump replays it exactly.
  Result<std::string> read_kmsg() const;
  // read() once per reader, for files more than one collector parses, so that all see the same
  // text and the kernel produces it once. With head_bytes, read_head(): /proc/cpuinfo is built
  // cpu by cpu, and only its first block is used.
  Result<std::string> read_shared(std::string_view path, size_t head_bytes = 0) const;

  // Path on this machine's filesystem for a library that opens files itself (kernel BTF,
  // knob_switch); an error for a root held in memory. Such a library follows symlinks by
  // itself, so only for the live host or a tree the user trusts.
  Result<std::string> host_path(std::string_view path) const;

  // Everything read from now on is also recorded in log (which must outlive this reader).
  void record_to(AccessLog* log) {
    log_ = log;
    // Forget what was resolved or read unrecorded, so the log sees all of it.
    resolved_dirs_.clear();
    link_targets_.clear();
    kmsg_.reset();
    shared_reads_.clear();
  }

 private:
  // The directory path (normalized) is in, its symbolic links followed: walked once per directory.
  Result<std::string> resolve_directory(const std::string& path) const;
  Result<std::string> resolve_impl(std::string_view path, bool follow_last) const;
  Result<EntryKind> cached_kind(const std::string& resolved) const;
  Result<std::string> cached_link_target(const std::string& resolved) const;
  // Where a walk ends: at the last name as it is, at what it points to, or at a directory
  // (ENOTDIR otherwise, as the kernel says of "file/..").
  enum class Walk { kLastUnfollowed, kLastFollowed, kDirectory };
  Result<std::string> walk(std::string resolved, std::deque<std::string> pending, Walk walk_to,
                           const std::string& context) const;
  Result<std::string> read_impl(std::string_view path, size_t max_bytes, ReadExtent extent) const;
  Result<std::string> finish_read(const std::string& requested, const std::string& resolved,
                                  Result<std::string> content) const;
  Error missing(const std::string& requested, const std::string& normalized, Error error) const;
  Error fail(const std::string& path, int code) const;
  void record_symlink(const std::string& resolved) const;
  void record_listing(const std::string& resolved, const std::vector<DirEntry>& entries) const;
  const int* replayed_failure(std::string_view path) const;
  void load_manifest();

  std::string root_;
  std::shared_ptr<const BudgetedBackend> budget_;  // none for the live host
  std::shared_ptr<const SysRootBackend> backend_;
  AccessLog* log_ = nullptr;
  bool complete_dump_ = false;
  std::map<std::string, int> replayed_failures_;
  std::map<std::string, std::set<std::string>> replayed_unread_;  // directory -> names
  Result<std::string> read_live_kmsg() const;

  mutable std::map<std::string, std::string, std::less<>> resolved_dirs_;
  mutable std::map<std::string, std::string, std::less<>> link_targets_;  // by resolved path
  mutable std::optional<Result<std::string>> kmsg_;
  mutable std::map<std::pair<std::string, size_t>, Result<std::string>> shared_reads_;
};

}  // namespace kdrift
