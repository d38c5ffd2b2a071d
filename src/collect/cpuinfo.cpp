#include "collect/cpuinfo.h"

#include <algorithm>

#include "util/text.h"

namespace kdrift {

namespace {
// One x86 block is under 3 KiB; reading no further spares the kernel the other cpus' blocks.
constexpr size_t kHeadBytes = 16384;
}  // namespace

Result<std::string> cpuinfo_head(const SysRoot& root) {
  auto head = root.read_shared(kCpuinfoPath, kHeadBytes);
  if (!head) return head.error();
  if (head->size() < kHeadBytes) return *head;
  const auto last_line = head->rfind('\n');
  return head->substr(0, last_line == std::string::npos ? 0 : last_line + 1);
}

Result<std::string> first_cpuinfo_block(const SysRoot& root) {
  auto head = root.read_shared(kCpuinfoPath, kHeadBytes);
  if (!head) return head.error();
  const std::string_view text = trim(*head);
  const auto end = text.find("\n\n");
  if (end == std::string_view::npos && head->size() == kHeadBytes) {
    return content_error(std::string(kCpuinfoPath) + ": no blank line after the first " +
                         std::to_string(kHeadBytes) + " bytes");
  }
  const std::string_view block = text.substr(0, end);
  if (block.empty()) return content_error(std::string(kCpuinfoPath) + ": empty");
  return std::string(block);
}

std::optional<bool> has_cpu_flag(std::string_view block, std::string_view flag) {
  const auto flags = find_colon_field(block, "flags");
  if (!flags) return std::nullopt;
  const auto words = split_whitespace(*flags);
  return std::find(words.begin(), words.end(), flag) != words.end();
}

}  // namespace kdrift
