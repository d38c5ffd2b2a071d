#pragma once
// A Kconfig symbol's definition, read from a kernel source tree: what a config bisect's report
// quotes for the symbol it names (its prompt, its help text, what it depends on).
//
// The tree's Kconfig* files are walked in name order (directories below the tree, never through
// a symlink, hidden ones such as .git skipped; bounded in depth, directories, entries, files and
// bytes), each scanned for `config SYMBOL` or `menuconfig SYMBOL`. The first definition with a
// help text wins, else the first one found. The entry's attributes run to the next top-level
// keyword (config, menuconfig, choice, endchoice, comment, menu, endmenu, if, endif, source,
// mainmenu), its help being the lines after `help` or `---help---` indented at least as far as
// the first of them, as kconfig's lexer reads it. What the tree's text says is returned as
// written: the caller makes it safe for where it is shown.

#include <cstddef>
#include <string>
#include <vector>

#include "util/result.h"

namespace kdrift {

struct KconfigSymbolHelp {
  std::string file;    // relative to the tree: drivers/iommu/intel/Kconfig
  std::size_t line{};  // of its `config SYMBOL` line, from 1
  // Its type line as written, with the prompt from a separate `prompt` line when the type line
  // has none: bool "Enable"
  std::string type;
  // The prompt of the choice the symbol is a member of (prompt "Default state of ..."), or empty.
  std::string choice;
  // Indentation removed, at most kMaxHelpBytes; a choice member without help of its own gets
  // the choice's, which is where kconfig files explain their members.
  std::string help;
  bool help_truncated = false;
  // The conditions it is defined under: enclosing `if` blocks, the choice's `depends on`, its
  // own `depends on` lines, outermost first (at most kMaxDependsLines).
  std::vector<std::string> depends_on;
};

inline constexpr std::size_t kMaxHelpBytes = 4096;
inline constexpr std::size_t kMaxDependsLines = 16;

// symbol with or without CONFIG_. Errors: a symbol outside [A-Za-z0-9_] (EINVAL), a tree that
// cannot be opened, a walk past its bounds or a Kconfig file over 1 MiB (named), a symbol no
// Kconfig file defines (ENOENT, with the count of files read).
Result<KconfigSymbolHelp> symbol_help(const std::string& source_tree, const std::string& symbol);

}  // namespace kdrift
