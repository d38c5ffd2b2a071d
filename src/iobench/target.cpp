#include "iobench/target.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>

#include "iobench/io_pattern.h"
#include "util/text.h"
#include "util/units.h"

namespace kdrift {
namespace {

constexpr size_t kFillChunk = size_t{1} << 20;

struct FreeDeleter {
  void operator()(void* memory) const { std::free(memory); }
};

// Data the device has to store for real: zeros would be deduplicated or skipped by zram, thin
// provisioning and compressing SSDs, and unwritten extents are read back without any I/O.
Status fill(int fd, uint64_t size) {
  void* memory = nullptr;
  if (::posix_memalign(&memory, 4096, kFillChunk) != 0) return make_error(ENOMEM, "fill buffer");
  std::unique_ptr<void, FreeDeleter> buffer(memory);
  FastRandom random(0x6b6472696674);  // fixed: the same file content on every run
  for (uint64_t offset = 0; offset < size; offset += kFillChunk) {
    fill_incompressible(random, static_cast<char*>(memory), kFillChunk);
    const size_t length = static_cast<size_t>(std::min<uint64_t>(kFillChunk, size - offset));
    size_t done = 0;
    while (done < length) {
      const auto written = ::pwrite(fd, static_cast<char*>(memory) + done, length - done,
                                    static_cast<off_t>(offset + done));
      if (written < 0) {
        if (errno == EINTR) continue;
        return make_error(errno, "filling the probe file");
      }
      done += static_cast<size_t>(written);
    }
  }
  if (::fdatasync(fd) != 0) return make_error(errno, "fdatasync of the probe file");
  return ok_status();
}

// The fallback where O_TMPFILE is not supported: a new file in the directory, unlinked at once.
Result<UniqueFd> create_unnamed(int directory, const std::string& directory_name) {
  std::random_device seed;
  for (int attempt = 0; attempt < 100; ++attempt) {
    char name[32];
    std::snprintf(name, sizeof name, ".kdrift-probe.%08x", static_cast<unsigned>(seed()));
    UniqueFd fd(
        ::openat(directory, name, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd && errno == EEXIST) continue;
    if (!fd) return make_error(errno, directory_name + "/" + name);
    ::unlinkat(directory, name, 0);
    return fd;
  }
  return make_error(EEXIST, directory_name + ": no free name for the probe file");
}

}  // namespace

Status Target::open_temporary_file(int directory, uint64_t size) {
  struct statvfs space {};
  if (::fstatvfs(directory, &space) != 0) return make_error(errno, path_);
  const uint64_t available = static_cast<uint64_t>(space.f_bavail) * space.f_frsize;
  // Leave a tenth of what is free (and at least 64 MiB) to everyone else on the filesystem.
  const uint64_t reserve = std::max<uint64_t>(available / 10, uint64_t{64} << 20);
  if (available < size + reserve) {
    return make_error(ENOSPC, path_ + ": the probe file needs " + format_size(size) + " and " +
                                  format_size(reserve) + " to spare, " + format_size(available) +
                                  " are free (try --size)");
  }
  // O_TMPFILE: the file never has a name, so nothing is left behind even if kdrift is killed.
  fd_.reset(::openat(directory, ".", O_TMPFILE | O_RDWR | O_DIRECT | O_CLOEXEC, 0600));
  if (!fd_ && (errno == EOPNOTSUPP || errno == EISDIR || errno == ENOENT)) {
    auto unnamed = create_unnamed(directory, path_);
    if (!unnamed) return unnamed.error();
    fd_ = std::move(*unnamed);
    if (::fcntl(fd_.get(), F_SETFL, O_DIRECT) != 0) {
      return make_error(errno, path_ + ": O_DIRECT is not supported on this filesystem");
    }
  }
  if (!fd_) {
    if (errno == EINVAL) {
      return make_error(EINVAL, path_ + ": O_DIRECT is not supported on this filesystem");
    }
    return make_error(errno, path_ + ": cannot create the probe file");
  }
  if (::fallocate(fd_.get(), 0, 0, static_cast<off_t>(size)) != 0 && errno != EOPNOTSUPP) {
    return make_error(errno, path_ + ": preallocating " + format_size(size));
  }
  if (auto filled = fill(fd_.get(), size); !filled) return filled.error();
  size_ = size;
  return ok_status();
}

// The file the O_PATH handle stands for, opened for I/O through /proc/self/fd: that reaches the
// very inode the handle holds, where opening the user's path again could reach another.
Status Target::open_named(int handle, const struct stat& named, bool allow_write) {
  const bool block = S_ISBLK(named.st_mode);
  // O_EXCL on a block device claims it: the kernel refuses when it is mounted, swap or held.
  const int access = allow_write ? O_RDWR | (block ? O_EXCL : 0) : O_RDONLY;
  const std::string reopen = "/proc/self/fd/" + std::to_string(handle);
  fd_.reset(::open(reopen.c_str(), access | O_DIRECT | O_CLOEXEC));
  if (!fd_) {
    if (errno == EBUSY && block && allow_write) {
      return make_error(EBUSY, path_ + ": refused for writes: the kernel will not let kdrift " +
                                   "claim the device (O_EXCL): it is mounted, in use as swap, " +
                                   "held by device-mapper, md or bcache, or open exclusively by " +
                                   "another program; without --allow-write it is only read");
    }
    if (errno == EINVAL) return make_error(EINVAL, path_ + ": O_DIRECT is not supported here");
    return make_error(errno, path_);
  }
  struct stat st {};
  if (::fstat(fd_.get(), &st) != 0) return make_error(errno, path_);
  if (st.st_dev != named.st_dev || st.st_ino != named.st_ino || st.st_rdev != named.st_rdev) {
    return make_error(EXDEV, path_ + ": " + reopen + " opened another file (is /proc procfs?)");
  }
  return ok_status();
}

TargetIdentity Target::check_block_device(const SysRoot& root, const DeviceUsers& users) {
  const TargetIdentity identity = device_and_partitions(root, *device_);
  for (auto& reason :
       kdrift::write_refusals(root, identity, probe_signature(fd_.get(), path_), users)) {
    write_refusals_.push_back(std::move(reason));
  }
  int read_only = 0;
  if (::ioctl(fd_.get(), BLKROGET, &read_only) != 0) {
    write_refusals_.push_back("cannot tell whether it is read-only: " +
                              make_error(errno, "BLKROGET").describe());
  } else if (read_only != 0) {
    write_refusals_.push_back(device_->name + " is a read-only device (BLKROGET)");
  }
  return identity;
}

// Every decision on the open descriptor and the numbers fstat gave for it.
Status Target::check_writes(const SysRoot& root, const struct stat& st, bool allow_write) {
  const DeviceUsers users = read_device_users(root);
  TargetIdentity identity;
  if (kind_ == TargetKind::kBlockDevice) {
    find_device(root, st.st_rdev);
    if (!device_) return make_error(ENODEV, path_ + ": " + device_unavailable_);
    uint64_t bytes = 0;
    if (::ioctl(fd_.get(), BLKGETSIZE64, &bytes) != 0) return make_error(errno, path_);
    size_ = bytes;
    identity = check_block_device(root, users);
  } else {
    size_ = static_cast<uint64_t>(st.st_size);
    find_device(root, st.st_dev);
    identity.members.emplace_back(FileIdentity::of(st), path_);
    write_refusals_.insert(write_refusals_.end(), users.unknown.begin(), users.unknown.end());
    for (auto& reason : mounts_and_swaps(identity, users)) {
      write_refusals_.push_back(std::move(reason));
    }
  }
  auto loops = loops_backed_by(identity, users);
  if (allow_write && !loops.empty()) {
    return make_error(EBUSY, path_ + ": refused for writes: " + join(loops, "; ") +
                                 "; without --allow-write it is only read");
  }
  write_refusals_.insert(write_refusals_.end(), loops.begin(), loops.end());
  return ok_status();
}

void Target::find_device(const SysRoot& root, dev_t device) {
  auto found = find_block_device(root, device);
  if (!found) {
    device_unavailable_ = found.error().describe();
    return;
  }
  device_ = *found;
  numa_node_ = device_numa_node(root, *device_);
}

Result<Target> Target::open(const std::string& path, const TargetOptions& options,
                            const SysRoot& root) {
  Target target;
  target.path_ = path;
  // The one lookup of the path. O_PATH opens nothing: no FIFO waits for a writer and no device
  // driver (a watchdog, a tape) sees an open before the type is known.
  UniqueFd handle(::open(path.c_str(), O_PATH | O_CLOEXEC));
  struct stat st {};
  if (!handle || ::fstat(handle.get(), &st) != 0) return make_error(errno, path);
  if (S_ISDIR(st.st_mode)) {
    target.kind_ = TargetKind::kTemporaryFile;
    if (auto status = target.open_temporary_file(handle.get(), options.file_size); !status) {
      return status.error();
    }
    target.find_device(root, st.st_dev);
    return target;
  }
  if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
    return make_error(EINVAL, path + ": not a directory, regular file or block device");
  }
  target.kind_ = S_ISBLK(st.st_mode) ? TargetKind::kBlockDevice : TargetKind::kFile;
  if (!options.allow_write) {
    target.write_refusals_.push_back(target.kind_ == TargetKind::kBlockDevice
                                         ? "a raw block device: writes need --allow-write"
                                         : "an existing file: writes need --allow-write");
  }
  if (auto opened = target.open_named(handle.get(), st, options.allow_write); !opened) {
    return opened.error();
  }
  if (auto checked = target.check_writes(root, st, options.allow_write); !checked) {
    return checked.error();
  }
  return target;
}

Status Target::discard() const {
  if (kind_ != TargetKind::kBlockDevice || !writable()) {
    return make_error(EPERM, path_ + ": discard is only done on a raw device open for writing");
  }
  uint64_t range[2] = {0, size_};
  if (::ioctl(fd_.get(), BLKDISCARD, &range) != 0) return make_error(errno, path_ + ": BLKDISCARD");
  return ok_status();
}

Json Target::describe() const {
  static const char* const kKinds[] = {"temporary-file", "file", "block-device"};
  Json out = {{"path", path_},
              {"kind", kKinds[static_cast<int>(kind_)]},
              {"size", size_},
              {"writable", writable()},
              {"write_refusals", write_refusals_}};
  if (device_) {
    out["device"] = {{"name", device_->name},           {"disk", device_->disk},
                     {"major", device_->major},         {"minor", device_->minor},
                     {"partition", device_->partition}, {"sysfs", device_->sysfs}};
  } else {
    out["unavailable"]["device"] = device_unavailable_;
  }
  if (numa_node_) {
    out["numa_node"] = *numa_node_;
  } else {
    out["numa_node"] = nullptr;
  }
  return out;
}

}  // namespace kdrift
