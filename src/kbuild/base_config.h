#pragma once
// The kernel config a build starts from (--config, or the good kernel's): read within a limit
// and checked to be a kernel config before anything is built from it, with what a cost estimate
// needs to know of it.

#include <cstddef>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kdrift {

// Far above any distribution's config (Debian's is ~280 KiB).
inline constexpr size_t kMaxBaseConfigBytes = size_t{16} << 20;
// Where a config must show that it is one: a `CONFIG_X=...` or `# CONFIG_X is not set` line,
// and no NUL byte.
inline constexpr size_t kBaseConfigSniffBytes = size_t{64} << 10;

struct BaseConfig {
  std::string path;
  std::string text;
  int builtin = 0;          // CONFIG_X=y
  int modules = 0;          // CONFIG_X=m
  bool debug_info = false;  // CONFIG_DEBUG_INFO=y: objects several times their size
};

// A refusal naming path for a file that is missing, too large, binary or not a kernel config.
Result<BaseConfig> read_base_config(const std::string& path);

// `CONFIG_X=value` or `# CONFIG_X is not set`, X being a symbol's name ([A-Za-z0-9_]+).
bool is_kernel_config_line(std::string_view line);

}  // namespace kdrift
