#include "boot/grub_config.h"

#include <algorithm>

#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::size_t kMaxConfigBytes = std::size_t{4} << 20;
constexpr std::size_t kMaxEntries = 10000;
constexpr std::size_t kMaxDepth = 16;
constexpr std::size_t kMaxEnvironmentBytes = std::size_t{64} << 10;
constexpr std::string_view kEnvironmentHeader = "# GRUB Environment Block\n";

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

// The quoted part of a word from at (the opening quote), appended to word; at ends past the
// closing quote.
Status read_quoted(std::string_view line, std::size_t& at, std::string& word) {
  const char quote = line[at++];
  for (; at < line.size(); ++at) {
    const char c = line[at];
    if (c == quote) {
      ++at;
      return ok_status();
    }
    // In double quotes a backslash keeps the next $, ", \ or newline as itself.
    if (quote == '"' && c == '\\' && at + 1 < line.size() &&
        std::string_view("$\"\\\n").find(line[at + 1]) != std::string_view::npos) {
      ++at;
    }
    word += line[at];
  }
  return content_error(std::string("an unterminated ") + (quote == '"' ? "double" : "single") +
                       " quote");
}

struct BlockHeader {
  enum class Kind { kEntry, kSubmenu, kOther } kind = Kind::kOther;
  GrubEntry entry;
};

BlockHeader block_header(const std::vector<std::string>& words) {
  BlockHeader header;
  if (words[0] == "submenu") header.kind = BlockHeader::Kind::kSubmenu;
  if (words[0] != "menuentry") return header;
  header.kind = BlockHeader::Kind::kEntry;
  header.entry.title = words.size() > 2 ? words[1] : "";
  for (std::size_t i = 2; i + 1 < words.size(); ++i) {
    if (words[i] == "$menuentry_id_option" || words[i] == "${menuentry_id_option}" ||
        words[i] == "--id") {
      header.entry.id = words[i + 1];
    }
  }
  return header;
}

// A command inside a menu entry: kept, and the kernel and initrd it loads noted.
void add_entry_line(GrubEntry& entry, std::string_view line,
                    const std::vector<std::string>& words) {
  entry.lines.emplace_back(line);
  const std::string& command = words[0];
  if ((command == "linux" || command == "linux16" || command == "linuxefi") && words.size() > 1) {
    entry.linux_path = words[1];
    entry.linux_arguments.assign(words.begin() + 2, words.end());
  } else if (command == "initrd" || command == "initrd16" || command == "initrdefi") {
    entry.initrd_paths.assign(words.begin() + 1, words.end());
  }
}

// A command outside entries: what says the header honours next_entry and sources custom.cfg.
void note_header_line(const std::vector<std::string>& words, GrubConfig& config,
                      bool& default_from_next, bool& clears_next) {
  if (words[0] == "load_env") config.loads_environment = true;
  if (words.size() == 2 && words[0] == "set" && words[1] == "default=${next_entry}") {
    default_from_next = true;
  }
  if (words.size() == 2 && words[0] == "save_env" && words[1] == "next_entry") clears_next = true;
  if (words.size() == 2 && words[0] == "source" &&
      (words[1] == "${config_directory}/custom.cfg" || words[1] == "$prefix/custom.cfg")) {
    config.sources_custom_cfg = true;
  }
}

std::string at_line(std::size_t number) {
  return "line " + std::to_string(number) + ": ";
}

}  // namespace

Result<std::vector<std::string>> grub_words(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  std::size_t at = 0;
  while (at < line.size()) {
    const char c = line[at];
    if (is_blank(c)) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      ++at;
    } else if (c == '\'' || c == '"') {
      in_word = true;
      if (auto quoted = read_quoted(line, at, word); !quoted) return quoted.error();
    } else if (c == '\\') {
      if (at + 1 >= line.size()) return content_error("a backslash ends the line");
      word += line[at + 1];
      in_word = true;
      at += 2;
    } else if (c == '#' && !in_word) {
      break;
    } else {
      word += c;
      in_word = true;
      ++at;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

Result<std::string> grub_quoted(std::string_view word) {
  for (const char c : word) {
    if (c == '\'' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return content_error("\"" + terminal_safe(word) +
                           "\" holds a quote or a control character, which kdrift does not put "
                           "into GRUB's configuration");
    }
  }
  return "'" + std::string(word) + "'";
}

Result<GrubConfig> parse_grub_config(std::string_view text) {
  if (text.size() > kMaxConfigBytes) return content_error("larger than 4 MiB");
  GrubConfig config;
  std::vector<BlockHeader> open;
  bool default_from_next = false;
  bool clears_next = false;
  std::size_t number = 0;
  for (const std::string& raw : split(text, '\n')) {
    ++number;
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    if (line == "}") {
      if (open.empty()) return content_error(at_line(number) + "\"}\" closes no block");
      BlockHeader closed = std::move(open.back());
      open.pop_back();
      if (closed.kind != BlockHeader::Kind::kEntry) continue;
      closed.entry.in_submenu = std::any_of(open.begin(), open.end(), [](const BlockHeader& block) {
        return block.kind == BlockHeader::Kind::kSubmenu;
      });
      if (config.entries.size() >= kMaxEntries) return content_error("more than 10000 entries");
      config.entries.push_back(std::move(closed.entry));
      continue;
    }
    auto words = grub_words(line);
    if (!words) return content_error(at_line(number) + words.error().describe());
    if (words->empty()) continue;
    const bool opens = words->back() == "{";
    if (!opens && ((*words)[0] == "menuentry" || (*words)[0] == "submenu")) {
      return content_error(at_line(number) + "a menu entry whose \"{\" does not end its line");
    }
    if (opens) {
      if (open.size() >= kMaxDepth) return content_error(at_line(number) + "nested too deep");
      open.push_back(block_header(*words));
    } else if (!open.empty() && open.back().kind == BlockHeader::Kind::kEntry) {
      add_entry_line(open.back().entry, line, *words);
    } else {
      note_header_line(*words, config, default_from_next, clears_next);
    }
  }
  if (!open.empty()) return content_error("a block is not closed at the end of the file");
  config.honours_next_entry = default_from_next && clears_next;
  return config;
}

Result<GrubEnvironment> parse_grub_environment(std::string_view bytes) {
  if (bytes.size() > kMaxEnvironmentBytes) return content_error("larger than 64 KiB");
  if (!starts_with(bytes, kEnvironmentHeader)) {
    return content_error("does not start with \"# GRUB Environment Block\"");
  }
  GrubEnvironment environment;
  environment.size = bytes.size();
  std::size_t at = kEnvironmentHeader.size();
  while (at < bytes.size()) {
    if (bytes[at] == '#') {  // padding, or a comment line
      const auto end = bytes.find('\n', at);
      at = end == std::string_view::npos ? bytes.size() : end + 1;
      continue;
    }
    const auto equals = bytes.find('=', at);
    const auto newline = bytes.find('\n', at);
    if (equals == std::string_view::npos || equals >= newline || equals == at) {
      return content_error("a line that is not name=value at byte " + std::to_string(at));
    }
    std::string name(bytes.substr(at, equals - at));
    std::string value;
    at = equals + 1;
    for (; at < bytes.size() && bytes[at] != '\n'; ++at) {
      if (bytes[at] == '\\' && at + 1 < bytes.size()) ++at;
      value += bytes[at];
    }
    if (at >= bytes.size()) return content_error("the variable " + name + " is cut off");
    ++at;
    environment.variables.emplace_back(std::move(name), std::move(value));
  }
  return environment;
}

Result<std::string> render_grub_environment(const GrubEnvironment& environment) {
  std::string bytes(kEnvironmentHeader);
  for (const auto& [name, value] : environment.variables) {
    bytes += name + "=";
    for (const char c : value) {
      if (c == '\\' || c == '\n') bytes += '\\';
      bytes += c;
    }
    bytes += '\n';
  }
  if (bytes.size() > environment.size) {
    return content_error("the variables no longer fit in its " + std::to_string(environment.size) +
                         " bytes");
  }
  bytes.resize(environment.size, '#');
  return bytes;
}

std::string grub_variable(const GrubEnvironment& environment, std::string_view name) {
  for (const auto& [key, value] : environment.variables) {
    if (key == name) return value;
  }
  return "";
}

void set_grub_variable(GrubEnvironment& environment, std::string_view name,
                       std::string_view value) {
  auto& variables = environment.variables;
  const auto found = std::find_if(variables.begin(), variables.end(),
                                  [name](const auto& variable) { return variable.first == name; });
  if (value.empty()) {
    if (found != variables.end()) variables.erase(found);
  } else if (found != variables.end()) {
    found->second = value;
  } else {
    variables.emplace_back(name, value);
  }
}

}  // namespace kdrift
