#pragma once
// The kernel config a build starts from (--config, or the good kernel's): read and checked as a
// kernel config (kconfig.h: refused, by line, unless every line is one) before anything is built
// from it, with what a cost estimate needs to know of it.

#include <string>

#include "util/result.h"

namespace kdrift {

struct BaseConfig {
  std::string path;
  std::string text;
  int builtin = 0;          // CONFIG_X=y
  int modules = 0;          // CONFIG_X=m
  bool debug_info = false;  // CONFIG_DEBUG_INFO=y: objects several times their size
};

// A refusal naming path for a file that is missing, too large, binary or not a kernel config.
Result<BaseConfig> read_base_config(const std::string& path);

}  // namespace kdrift
