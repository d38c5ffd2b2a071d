#include "probe/target.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "probe/io_pattern.h"
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

}  // namespace

Status Target::open_temporary_file(const std::string& directory, uint64_t size) {
  struct statvfs space {};
  if (::statvfs(directory.c_str(), &space) != 0) return make_error(errno, directory);
  const uint64_t available = static_cast<uint64_t>(space.f_bavail) * space.f_frsize;
  // Leave a tenth of what is free (and at least 64 MiB) to everyone else on the filesystem.
  const uint64_t reserve = std::max<uint64_t>(available / 10, uint64_t{64} << 20);
  if (available < size + reserve) {
    return make_error(ENOSPC, directory + ": the probe file needs " + format_size(size) + " and " +
                                  format_size(reserve) + " to spare, " + format_size(available) +
                                  " are free (try --size)");
  }
  // O_TMPFILE: the file never has a name, so nothing is left behind even if kdrift is killed.
  fd_.reset(::open(directory.c_str(), O_TMPFILE | O_RDWR | O_DIRECT | O_CLOEXEC, 0600));
  if (!fd_ && (errno == EOPNOTSUPP || errno == EISDIR || errno == ENOENT)) {
    std::string name = directory + "/.kdrift-probe.XXXXXX";
    fd_.reset(::mkostemp(name.data(), O_CLOEXEC));
    if (!fd_) return make_error(errno, name);
    ::unlink(name.c_str());
    if (::fcntl(fd_.get(), F_SETFL, O_DIRECT) != 0) {
      return make_error(errno, directory + ": O_DIRECT is not supported on this filesystem");
    }
  }
  if (!fd_) {
    if (errno == EINVAL) {
      return make_error(EINVAL, directory + ": O_DIRECT is not supported on this filesystem");
    }
    return make_error(errno, directory + ": cannot create the probe file");
  }
  if (::fallocate(fd_.get(), 0, 0, static_cast<off_t>(size)) != 0 && errno != EOPNOTSUPP) {
    return make_error(errno, directory + ": preallocating " + format_size(size));
  }
  if (auto filled = fill(fd_.get(), size); !filled) return filled.error();
  size_ = size;
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
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return make_error(errno, path);
  if (S_ISDIR(st.st_mode)) {
    target.kind_ = TargetKind::kTemporaryFile;
    if (auto status = target.open_temporary_file(path, options.file_size); !status) {
      return status.error();
    }
    target.find_device(root, st.st_dev);
    return target;
  }
  if (S_ISREG(st.st_mode)) {
    target.kind_ = TargetKind::kFile;
    if (!options.allow_write) {
      target.write_refusals_.push_back("an existing file: writes need --allow-write");
    }
    target.size_ = static_cast<uint64_t>(st.st_size);
    target.find_device(root, st.st_dev);
  } else if (S_ISBLK(st.st_mode)) {
    target.kind_ = TargetKind::kBlockDevice;
    target.find_device(root, st.st_rdev);
    if (!target.device_) {
      return make_error(ENODEV, path + ": " + target.device_unavailable_);
    }
    if (!options.allow_write) {
      target.write_refusals_.push_back("a raw block device: writes need --allow-write");
    }
    for (auto& reason : kdrift::write_refusals(root, *target.device_, probe_signature(path))) {
      target.write_refusals_.push_back(std::move(reason));
    }
  } else {
    return make_error(EINVAL, path + ": not a directory, regular file or block device");
  }
  // O_EXCL on a block device claims it: the kernel refuses when it is mounted or held.
  const int flags = target.writable()
                        ? O_RDWR | (target.kind_ == TargetKind::kBlockDevice ? O_EXCL : 0)
                        : O_RDONLY;
  target.fd_.reset(::open(path.c_str(), flags | O_DIRECT | O_CLOEXEC));
  if (!target.fd_) {
    if (errno == EINVAL) return make_error(EINVAL, path + ": O_DIRECT is not supported here");
    return make_error(errno, path);
  }
  if (target.kind_ == TargetKind::kBlockDevice) {
    uint64_t bytes = 0;
    if (::ioctl(target.fd_.get(), BLKGETSIZE64, &bytes) != 0) return make_error(errno, path);
    target.size_ = bytes;
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
