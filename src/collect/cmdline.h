#pragma once
// The kernel command line as the kernel splits it: spaces separate parameters, double quotes
// protect spaces, "--" hands the rest to init, and "module.param=value" names a module parameter.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snapshot/snapshot.h"

namespace kdrift {

struct CmdlineParam {
  std::string key;                   // as written, e.g. "nvme.poll_queues"
  std::optional<std::string> value;  // nullopt for a bare flag ("quiet")
  std::string module;                // "nvme" for "nvme.poll_queues", else empty
};

struct Cmdline {
  std::vector<CmdlineParam> params;    // kernel's, in order, repeats kept
  std::vector<std::string> init_args;  // after "--"
};

Cmdline parse_cmdline(std::string_view text);

// {"raw", "params": [{key, value?, module?}], "effective": {key: last value or true},
//  "init_args": [...]}
Json cmdline_to_json(std::string_view raw, const Cmdline& cmdline);

}  // namespace kdrift
