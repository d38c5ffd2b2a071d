#pragma once
// Helpers for the system tier: running commands and the kdrift binary, and block devices a test
// creates and removes itself (never one that holds data).

#include <optional>
#include <string>

namespace kdrift::testing {

struct CommandRun {
  int status;
  std::string out;
};

// Runs a shell command; stderr is merged into out unless split_stderr (then it is discarded).
CommandRun run_command(const std::string& command, bool split_stderr = false);
CommandRun run_kdrift(const std::string& arguments, bool split_stderr = false);

bool is_root();

// A fresh zram device from /sys/class/zram-control: hot_add, sized, hot_remove on destruction.
class ZramDevice {
 public:
  // nullopt with reason set when zram-control is missing or not writable.
  static std::optional<ZramDevice> create(const std::string& size, std::string* reason);
  ZramDevice(ZramDevice&& other) noexcept;
  ZramDevice& operator=(ZramDevice&&) = delete;
  ZramDevice(const ZramDevice&) = delete;
  ~ZramDevice();
  const std::string& path() const { return path_; }
  const std::string& name() const { return name_; }

 private:
  ZramDevice() = default;
  int number_ = -1;
  std::string name_;
  std::string path_;
};

// A loop device over a sparse file in a temporary directory, detached on destruction.
class LoopDevice {
 public:
  // read_only: losetup --read-only, a device the kernel refuses writes to (BLKROGET says 1).
  static std::optional<LoopDevice> create(const std::string& backing_file, std::string* reason,
                                          bool read_only = false);
  // Over a new sparse file of that size ("256M") in directory.
  static std::optional<LoopDevice> create_sparse(const std::string& directory,
                                                 const std::string& size, std::string* reason);
  LoopDevice(LoopDevice&& other) noexcept;
  LoopDevice& operator=(LoopDevice&&) = delete;
  LoopDevice(const LoopDevice&) = delete;
  ~LoopDevice();
  const std::string& path() const { return path_; }
  const std::string& name() const { return name_; }

 private:
  LoopDevice() = default;
  std::string path_;
  std::string name_;
};

// A sysctl set for the lifetime of the object, restored afterwards.
class ScopedSysctl {
 public:
  ScopedSysctl(std::string path, const std::string& value);
  ScopedSysctl(const ScopedSysctl&) = delete;
  ScopedSysctl& operator=(const ScopedSysctl&) = delete;
  ~ScopedSysctl();
  bool ok() const { return ok_; }

 private:
  std::string path_;
  std::string saved_;
  bool ok_ = false;
};

// A new file of size ("64M") holding an empty ext4 filesystem; false with reason set otherwise.
bool make_ext4_image(const std::string& path, const std::string& size, std::string* reason);

// sha256 of a whole file or device, through sha256sum.
std::string sha256_of(const std::string& path);

}  // namespace kdrift::testing
