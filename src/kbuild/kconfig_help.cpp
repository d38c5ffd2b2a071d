#include "kbuild/kconfig_help.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <optional>
#include <string_view>
#include <utility>

#include "kbuild/kconfig.h"
#include "util/input_file.h"
#include "util/text.h"
#include "util/unique_fd.h"

namespace kdrift {
namespace {

// Debian's linux-source-6.1 has 1,704 Kconfig files, the largest 100 KiB, 6.4 MB together, in a
// few thousand directories of at most a few thousand entries: room to spare, but a hostile or
// mistaken tree (/, a loop of bind mounts) is refused rather than walked forever.
constexpr size_t kMaxDepth = 32;
constexpr size_t kMaxDirectories = 100'000;
constexpr size_t kMaxEntries = 65'536;
constexpr size_t kMaxFiles = 20'000;
constexpr size_t kMaxFileBytes = size_t{1} << 20;
constexpr size_t kMaxTotalBytes = size_t{128} << 20;
// A type, prompt or depends line kept for the report.
constexpr size_t kMaxLineBytes = 512;
constexpr size_t kTabStop = 8;

constexpr std::array<std::string_view, 14> kTopLevel = {
    "config", "menuconfig", "choice", "endchoice", "comment", "menu",     "endmenu",
    "if",     "endif",      "source", "rsource",   "osource", "orsource", "mainmenu"};
constexpr std::array<std::string_view, 7> kTypes = {"bool", "tristate", "string",      "hex",
                                                    "int",  "def_bool", "def_tristate"};

bool is_one_of(std::string_view word, const auto& words) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

std::string first_word(std::string_view line) {
  const auto words = split_whitespace(line);
  return words.empty() ? std::string() : words.front();
}

// The text after a keyword of one or two words ("if", "depends on"), its comment cut.
std::string after_words(std::string_view line, size_t words) {
  line = trim(line);
  for (size_t i = 0; i < words; ++i) {
    const auto space = line.find_first_of(" \t");
    line = space == std::string_view::npos ? std::string_view() : trim(line.substr(space));
  }
  const auto comment = line.find('#');
  if (comment != std::string_view::npos && line.find('"') == std::string_view::npos) {
    line = trim(line.substr(0, comment));
  }
  return std::string(line.substr(0, kMaxLineBytes));
}

size_t indentation(std::string_view line) {
  size_t column = 0;
  for (const char c : line) {
    if (c == ' ') {
      ++column;
    } else if (c == '\t') {
      column = (column / kTabStop + 1) * kTabStop;
    } else {
      break;
    }
  }
  return column;
}

// line without its first columns of indentation (a tab that reaches past them leaves spaces).
std::string dedent(std::string_view line, size_t columns) {
  size_t column = 0;
  size_t at = 0;
  while (at < line.size() && column < columns && (line[at] == ' ' || line[at] == '\t')) {
    column = line[at] == ' ' ? column + 1 : (column / kTabStop + 1) * kTabStop;
    ++at;
  }
  return std::string(column > columns ? column - columns : 0, ' ') + std::string(line.substr(at));
}

// The help text's bytes cut to kMaxHelpBytes on a character boundary.
void bound_help(std::string& help, bool& truncated) {
  if (help.size() <= kMaxHelpBytes) return;
  size_t cut = kMaxHelpBytes;
  while (cut > 0 && (static_cast<unsigned char>(help[cut]) & 0xc0) == 0x80)
    --cut;
  help.resize(cut);
  truncated = true;
}

// One entry's attributes (a config, a menu, a choice's own): its lines up to the next top-level
// keyword.
struct Block {
  std::string type;
  std::string prompt;
  std::string help;
  bool help_truncated = false;
  std::vector<std::string> depends_on;
  size_t end = 0;  // the line after it
};

// The help text starting at lines[at]; returns the line after it.
size_t read_help(const std::vector<std::string>& lines, size_t at, Block& block) {
  while (at < lines.size() && trim(lines[at]).empty())
    ++at;
  if (at == lines.size() || indentation(lines[at]) == 0) return at;
  const size_t indent = indentation(lines[at]);
  std::string help;
  size_t blank = 0;
  for (; at < lines.size(); ++at) {
    if (trim(lines[at]).empty()) {
      ++blank;
      continue;
    }
    if (indentation(lines[at]) < indent) break;
    if (help.size() <= kMaxHelpBytes) {
      help += std::string(help.empty() ? 0 : blank + 1, '\n') + dedent(lines[at], indent);
    }
    blank = 0;
  }
  bound_help(help, block.help_truncated);
  block.help = std::move(help);
  return at;
}

Block read_block(const std::vector<std::string>& lines, size_t at) {
  Block block;
  while (at < lines.size()) {
    const std::string_view line = trim(lines[at]);
    const std::string word = first_word(line);
    if (word.empty() || word.front() == '#') {
      ++at;
      continue;
    }
    if (is_one_of(word, kTopLevel)) break;
    if (word == "help" || word == "---help---") {
      at = read_help(lines, at + 1, block);
      continue;
    }
    if (is_one_of(word, kTypes) && block.type.empty()) {
      block.type = std::string(line.substr(0, kMaxLineBytes));
    } else if (word == "prompt" && block.prompt.empty()) {
      block.prompt = std::string(line.substr(0, kMaxLineBytes));
    } else if (word == "depends" && first_word(after_words(line, 1)) == "on") {
      block.depends_on.push_back(after_words(line, 2));
    }
    ++at;
  }
  block.end = at;
  return block;
}

// "bool" with `prompt "Enable"` on a line of its own reads as bool "Enable".
std::string type_line(const Block& block) {
  if (block.type.empty()) return block.prompt;
  if (block.prompt.empty() || split_whitespace(block.type).size() > 1) return block.type;
  return block.type + " " + after_words(block.prompt, 1);
}

KconfigSymbolHelp entry_help(const Block& entry, const std::optional<Block>& choice,
                             const std::vector<std::string>& ifs) {
  KconfigSymbolHelp help;
  help.type = type_line(entry);
  help.help = entry.help;
  help.help_truncated = entry.help_truncated;
  help.depends_on = ifs;
  if (choice) {
    help.choice = type_line(*choice);
    if (help.help.empty()) {
      help.help = choice->help;
      help.help_truncated = choice->help_truncated;
    }
    help.depends_on.insert(help.depends_on.end(), choice->depends_on.begin(),
                           choice->depends_on.end());
  }
  help.depends_on.insert(help.depends_on.end(), entry.depends_on.begin(), entry.depends_on.end());
  if (help.depends_on.size() > kMaxDependsLines) help.depends_on.resize(kMaxDependsLines);
  return help;
}

// symbol's definition in one Kconfig file's text, following its if blocks and choices.
std::optional<KconfigSymbolHelp> find_definition(const std::string& text,
                                                 const std::string& symbol) {
  const auto lines = split_lines(text);
  std::vector<std::string> ifs;
  std::optional<Block> choice;
  for (size_t at = 0; at < lines.size();) {
    const auto words = split_whitespace(lines[at]);
    const std::string word = words.empty() ? std::string() : words.front();
    if (word == "if") {
      ifs.push_back(after_words(lines[at], 1));
    } else if (word == "endif" && !ifs.empty()) {
      ifs.pop_back();
    } else if (word == "endchoice") {
      choice.reset();
    } else if (word == "choice") {
      choice = read_block(lines, at + 1);
      at = choice->end;
      continue;
    } else if ((word == "config" || word == "menuconfig") && words.size() >= 2 &&
               words[1] == symbol) {
      auto help = entry_help(read_block(lines, at + 1), choice, ifs);
      help.line = at + 1;
      return help;
    } else if (word == "config" || word == "menuconfig" || word == "menu" || word == "comment") {
      at = read_block(lines, at + 1).end;  // past its help, whose words are not keywords
      continue;
    }
    ++at;
  }
  return std::nullopt;
}

// The walk over the tree: bounded, in name order, never through a symlink.
class TreeWalk {
 public:
  TreeWalk(const std::string& tree, std::string symbol) : tree_(tree), symbol_(std::move(symbol)) {}

  Result<KconfigSymbolHelp> run();

 private:
  Status walk(int directory, const std::string& relative, size_t depth);
  Status scan_file(int directory, const std::string& name, const std::string& relative);
  std::string shown(const std::string& relative) const { return tree_ + "/" + relative; }

  const std::string& tree_;
  std::string symbol_;
  size_t directories_ = 0;
  size_t files_ = 0;
  size_t bytes_ = 0;
  std::optional<KconfigSymbolHelp> found_;
};

struct Entry {
  std::string name;
  bool directory = false;
};

// The directory's entries worth a look, sorted: subdirectories and Kconfig* regular files, never
// a symlink, nothing hidden.
Result<std::vector<Entry>> list_directory(int directory, const std::string& shown) {
  const int copy = ::fcntl(directory, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return make_error(errno, shown);
  UniqueDir stream(::fdopendir(copy));
  if (!stream) {
    const int code = errno;
    ::close(copy);
    return make_error(code, shown);
  }
  std::vector<Entry> entries;
  size_t seen = 0;
  while (const dirent* entry = ::readdir(stream.get())) {
    if (++seen > kMaxEntries) {
      return content_error(shown + ": more than " + std::to_string(kMaxEntries) +
                           " entries in one directory; not a kernel source tree");
    }
    const std::string name = entry->d_name;
    if (name.front() == '.') continue;
    unsigned char type = entry->d_type;
    if (type == DT_UNKNOWN) {
      struct stat st {};
      if (::fstatat(directory, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
    }
    if (type == DT_DIR || (type == DT_REG && starts_with(name, "Kconfig"))) {
      entries.push_back({name, type == DT_DIR});
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  return entries;
}

Status TreeWalk::scan_file(int directory, const std::string& name, const std::string& relative) {
  if (++files_ > kMaxFiles) {
    return content_error(tree_ + ": more than " + std::to_string(kMaxFiles) +
                         " Kconfig files; not a kernel source tree");
  }
  auto text = read_whole_file_at(directory, name, shown(relative), kMaxFileBytes);
  if (!text) {
    // A symlink put in place of the file since the listing is not followed, nor an error.
    if (text.error().code == ELOOP) return ok_status();
    return text.error();
  }
  bytes_ += text->size();
  if (bytes_ > kMaxTotalBytes) return size_limit_error(tree_ + "'s Kconfig files", kMaxTotalBytes);
  auto definition = find_definition(*text, symbol_);
  if (definition && (!found_ || (found_->help.empty() && !definition->help.empty()))) {
    definition->file = relative;
    found_ = std::move(definition);
  }
  return ok_status();
}

Status TreeWalk::walk(int directory, const std::string& relative, size_t depth) {
  if (++directories_ > kMaxDirectories || depth > kMaxDepth) {
    return content_error(shown(relative) + ": deeper than " + std::to_string(kMaxDepth) +
                         " or more than " + std::to_string(kMaxDirectories) +
                         " directories; not a kernel source tree");
  }
  auto entries = list_directory(directory, relative.empty() ? tree_ : shown(relative));
  if (!entries) return entries.error();
  for (const auto& entry : *entries) {
    if (found_ && !found_->help.empty()) break;
    const std::string path = relative.empty() ? entry.name : relative + "/" + entry.name;
    if (!entry.directory) {
      if (auto scanned = scan_file(directory, entry.name, path); !scanned) return scanned;
      continue;
    }
    UniqueFd child(
        ::openat(directory, entry.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!child) {
      if (errno == ELOOP || errno == ENOTDIR) continue;  // swapped for a symlink: not followed
      return make_error(errno, shown(path));
    }
    if (auto walked = walk(child.get(), path, depth + 1); !walked) return walked;
  }
  return ok_status();
}

Result<KconfigSymbolHelp> TreeWalk::run() {
  // The tree itself may be reached through a symlink (/usr/src/linux): the user named it.
  UniqueFd top(::open(tree_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!top) return make_error(errno, tree_);
  if (auto walked = walk(top.get(), "", 0); !walked) return walked.error();
  if (!found_) {
    return make_error(ENOENT, tree_ + ": no 'config " + symbol_ + "' in its " +
                                  std::to_string(files_) + " Kconfig files");
  }
  return std::move(*found_);
}

}  // namespace

Result<KconfigSymbolHelp> symbol_help(const std::string& source_tree, const std::string& symbol) {
  std::string_view name = symbol;
  if (starts_with(name, "CONFIG_")) name.remove_prefix(7);
  if (!valid_kconfig_symbol(name)) {
    return make_error(EINVAL, "Kconfig symbol " + quote_value(symbol) +
                                  ": only letters, digits and '_' make a symbol");
  }
  return TreeWalk(source_tree, std::string(name)).run();
}

}  // namespace kdrift
