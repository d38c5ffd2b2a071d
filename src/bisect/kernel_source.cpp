#include "bisect/kernel_source.h"

#include <algorithm>

namespace kdrift {
namespace {

constexpr int kMaxJobs = 4096;
constexpr int kMaxTimeoutSeconds = 7 * 24 * 3600;

bool in_range(std::optional<double> value, int low, int high) {
  return value && *value >= low && *value <= high && *value == static_cast<int>(*value);
}

}  // namespace

bool is_commit_id(std::string_view text) {
  return (text.size() == 40 || text.size() == 64) &&
         std::all_of(text.begin(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool is_plain_file_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name == "." || name == ".." || name.front() == '-') {
    return false;
  }
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return c > ' ' && c < 127 && c != '/'; });
}

Json kernel_source_json(const KernelSource& source) {
  Json out = {{"kind", source.kind == KernelSource::Kind::kCommits ? "commits" : "configs"},
              {"tree", source.tree},
              {"localmodconfig", source.localmodconfig},
              {"jobs", source.jobs},
              {"build_timeout_seconds", source.build_timeout_seconds},
              {"boot_timeout_seconds", source.boot_timeout_seconds}};
  if (!source.commit.empty()) out["commit"] = source.commit;
  if (!source.build_command.empty()) out["build_command"] = source.build_command;
  if (!source.boot_command.empty()) out["boot_command"] = source.boot_command;
  return out;
}

Result<std::optional<KernelSource>> kernel_source_from(const Json& event,
                                                       const std::string& where) {
  const Json* node = object_member(event, "kernel_source");
  if (node == nullptr) return std::optional<KernelSource>();
  KernelSource source;
  const std::string kind = text_member(*node, "kind");
  if (kind != "commits" && kind != "configs") {
    return content_error(where + ": kernel_source.kind must be commits or configs");
  }
  source.kind = kind == "commits" ? KernelSource::Kind::kCommits : KernelSource::Kind::kConfigs;
  source.tree = text_member(*node, "tree");
  source.commit = text_member(*node, "commit");
  source.build_command = text_member(*node, "build_command");
  source.boot_command = text_member(*node, "boot_command");
  if (source.tree.empty() || source.tree.front() != '/') {
    return content_error(where + ": kernel_source.tree must be an absolute path");
  }
  if (source.kind == KernelSource::Kind::kConfigs && !is_commit_id(source.commit)) {
    return content_error(where + ": kernel_source.commit must be a full commit id");
  }
  for (const std::string* program : {&source.build_command, &source.boot_command}) {
    if (!program->empty() && program->front() != '/') {
      return content_error(where + ": kernel_source's commands must be absolute paths");
    }
  }
  if (const Json* flag = member(*node, "localmodconfig"); flag && flag->is_boolean()) {
    source.localmodconfig = flag->get<bool>();
  }
  const auto jobs = number_member(*node, "jobs");
  const auto build = number_member(*node, "build_timeout_seconds");
  const auto boot = number_member(*node, "boot_timeout_seconds");
  if (!in_range(jobs, 0, kMaxJobs) || !in_range(build, 1, kMaxTimeoutSeconds) ||
      !in_range(boot, 1, kMaxTimeoutSeconds)) {
    return content_error(where + ": kernel_source's jobs or timeouts are out of range");
  }
  source.jobs = static_cast<int>(*jobs);
  source.build_timeout_seconds = static_cast<int>(*build);
  source.boot_timeout_seconds = static_cast<int>(*boot);
  return std::optional<KernelSource>(std::move(source));
}

}  // namespace kdrift
