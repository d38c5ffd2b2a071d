#pragma once
// What the probe reads and writes, opened so that nothing is lost: a file the probe creates (in
// a directory target) and that no longer has a name once opened; a user's file or a raw block
// device, read-only unless --allow-write, and a device refused for writes whenever it may hold
// data or be in use. The path is looked up once: every check is made on the descriptor the probe
// then uses, so re-pointing a symlink meanwhile changes nothing.

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "iobench/block_device.h"
#include "iobench/device_users.h"
#include "snapshot/snapshot.h"
#include "util/result.h"
#include "util/sysroot.h"
#include "util/unique_fd.h"

namespace kdrift {

enum class TargetKind { kTemporaryFile, kFile, kBlockDevice };

struct TargetOptions {
  bool allow_write = false;
  uint64_t file_size = uint64_t{256} << 20;  // of the temporary file in a directory
};

class Target {
 public:
  // Directory: creates, preallocates and fills a temporary file there. Refusals (writes to a
  // device in use, not enough space) leave everything untouched. With --allow-write, a device
  // the kernel will not let kdrift claim (mounted, swap, held) and a file or device that backs a
  // loop device are errors; other reasons (a signature, a read-only device) only refuse writes.
  static Result<Target> open(const std::string& path, const TargetOptions& options,
                             const SysRoot& root);

  int fd() const { return fd_.get(); }
  TargetKind kind() const { return kind_; }
  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }
  bool writable() const { return write_refusals_.empty(); }
  // Why writes are refused ("--allow-write not given", "libblkid finds a ext4 signature on it").
  const std::vector<std::string>& write_refusals() const { return write_refusals_; }
  const std::optional<BlockDeviceRef>& device() const { return device_; }
  // Why there is no block device to count (tmpfs, overlayfs), when device() is empty.
  const std::string& device_unavailable() const { return device_unavailable_; }
  std::optional<int> numa_node() const { return numa_node_; }

  // BLKDISCARD of the whole device, as blkdiscard does before the seeds' runs. Only on a raw
  // device open for writing.
  Status discard() const;
  Json describe() const;

 private:
  Target() = default;
  Status open_temporary_file(int directory, uint64_t size);
  Status open_named(int handle, const struct stat& named, bool allow_write);
  Status check_writes(const SysRoot& root, const struct stat& st, bool allow_write);
  TargetIdentity check_block_device(const SysRoot& root, const DeviceUsers& users);
  void find_device(const SysRoot& root, dev_t device);

  UniqueFd fd_;
  TargetKind kind_ = TargetKind::kFile;
  std::string path_;
  uint64_t size_ = 0;
  std::vector<std::string> write_refusals_;
  std::optional<BlockDeviceRef> device_;
  std::string device_unavailable_;
  std::optional<int> numa_node_;
};

}  // namespace kdrift
