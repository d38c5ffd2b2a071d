#include "support/system.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace kdrift::testing {
namespace {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool write_file(const std::string& path, const std::string& value) {
  std::ofstream out(path);
  out << value;
  out.flush();
  return static_cast<bool>(out);
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

}  // namespace

CommandRun run_command(const std::string& command, bool split_stderr) {
  const std::string full = command + (split_stderr ? " 2>/dev/null" : " 2>&1");
  FILE* pipe = popen(full.c_str(), "r");
  if (pipe == nullptr) return {-1, {}};
  std::string out;
  char buffer[4096];
  size_t got = 0;
  while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0)
    out.append(buffer, got);
  const int raw = pclose(pipe);
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

CommandRun run_kdrift(const std::string& arguments, bool split_stderr) {
  const char* binary = std::getenv("KDRIFT_BINARY");
  return run_command(std::string(binary != nullptr ? binary : KDRIFT_TEST_BINARY) + " " + arguments,
                     split_stderr);
}

bool is_root() {
  return ::geteuid() == 0;
}

std::optional<ZramDevice> ZramDevice::create(const std::string& size, std::string* reason) {
  auto number = read_file("/sys/class/zram-control/hot_add");
  if (!number) {
    *reason = "no /sys/class/zram-control (zram module not loaded?)";
    return std::nullopt;
  }
  ZramDevice device;
  device.number_ = std::stoi(*number);
  device.name_ = "zram" + std::to_string(device.number_);
  device.path_ = "/dev/" + device.name_;
  if (!write_file("/sys/block/" + device.name_ + "/disksize", size)) {
    *reason = "cannot size " + device.name_;
    return std::nullopt;  // the destructor of device removes it
  }
  return device;
}

ZramDevice::ZramDevice(ZramDevice&& other) noexcept
    : number_(std::exchange(other.number_, -1)),
      name_(std::move(other.name_)),
      path_(std::move(other.path_)) {}

ZramDevice::~ZramDevice() {
  if (number_ < 0) return;
  // udev opens a device to probe it after it was written to; reset fails with EBUSY meanwhile.
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (write_file("/sys/block/" + name_ + "/reset", "1") &&
        write_file("/sys/class/zram-control/hot_remove", std::to_string(number_))) {
      return;
    }
    ::usleep(100000);
  }
  ADD_FAILURE() << "could not remove " << path_;
}

std::optional<LoopDevice> LoopDevice::create(const std::string& backing_file, std::string* reason,
                                             bool read_only) {
  const auto run = run_command("losetup --find --show --direct-io=on " +
                               std::string(read_only ? "--read-only " : "") + backing_file);
  if (run.status != 0) {
    *reason = "losetup failed: " + first_line(run.out);
    return std::nullopt;
  }
  LoopDevice device;
  device.path_ = first_line(run.out);
  device.name_ = device.path_.substr(device.path_.rfind('/') + 1);
  return device;
}

std::optional<LoopDevice> LoopDevice::create_sparse(const std::string& directory,
                                                    const std::string& size, std::string* reason) {
  const std::string backing = directory + "/backing";
  const auto made = run_command("truncate -s " + size + " " + backing);
  if (made.status != 0) {
    *reason = "truncate failed: " + first_line(made.out);
    return std::nullopt;
  }
  return create(backing, reason);
}

LoopDevice::LoopDevice(LoopDevice&& other) noexcept
    : path_(std::move(other.path_)), name_(std::move(other.name_)) {
  other.path_.clear();
}

LoopDevice::~LoopDevice() {
  if (!path_.empty()) run_command("losetup --detach " + path_);
}

ScopedSysctl::ScopedSysctl(std::string path, const std::string& value) : path_(std::move(path)) {
  auto saved = read_file(path_);
  if (!saved) return;
  saved_ = first_line(*saved);
  ok_ = write_file(path_, value);
}

ScopedSysctl::~ScopedSysctl() {
  if (ok_) write_file(path_, saved_);
}

bool make_ext4_image(const std::string& path, const std::string& size, std::string* reason) {
  const auto made = run_command("truncate -s " + size + " " + path + " && mkfs.ext4 -q -F " + path);
  if (made.status != 0) *reason = "mkfs.ext4 failed: " + made.out;
  return made.status == 0;
}

std::string sha256_of(const std::string& path) {
  const auto run = run_command("sha256sum " + path, true);
  return run.status == 0 ? run.out.substr(0, 64) : "sha256sum failed for " + path;
}

}  // namespace kdrift::testing
