#pragma once
// GRUB's files as data: grub.cfg's menu entries (what each boots, and the lines that find its
// disk), whether the generated header honours a one-shot `next_entry` and clears it as it
// boots it, whether custom.cfg is sourced; and the environment block, grubenv, that grub-reboot
// writes next_entry into. grub.cfg is GRUB's shell language; what kdrift reads of it is what
// grub-mkconfig writes (one command per line, blocks closed by a line "}"), and a file it cannot
// follow is refused rather than guessed at.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"

namespace kdrift {

struct GrubEntry {
  std::string title;
  std::string id;                  // $menuentry_id_option or --id; may be empty
  std::vector<std::string> lines;  // the body, one command per line, as written
  std::string linux_path;          // the kernel as GRUB names it, below its root device
  std::vector<std::string> linux_arguments;
  std::vector<std::string> initrd_paths;
  bool in_submenu = false;
};

struct GrubConfig {
  std::vector<GrubEntry> entries;   // in menu order, submenus' entries where they appear
  bool loads_environment = false;   // load_env
  bool honours_next_entry = false;  // default taken from next_entry, which save_env then clears
  bool sources_custom_cfg = false;  // 41_custom: source ${config_directory}/custom.cfg
};

// Bounded: at most 4 MiB, 10,000 entries, blocks nested 16 deep. Errors name the line.
Result<GrubConfig> parse_grub_config(std::string_view text);

// One line of GRUB script split into words as GRUB's lexer does for what grub-mkconfig writes:
// single quotes, double quotes, backslash escapes. Variables are kept as written.
Result<std::vector<std::string>> grub_words(std::string_view line);

// A word GRUB reads back as exactly itself: single-quoted. Refused when it cannot be written so
// (a quote, a control byte): a candidate's command line must not add GRUB commands.
Result<std::string> grub_quoted(std::string_view word);

// The environment block: "# GRUB Environment Block\n", then name=value lines (a backslash
// escapes a backslash or a newline in a value), then '#' up to its fixed size.
struct GrubEnvironment {
  std::vector<std::pair<std::string, std::string>> variables;  // values unescaped
  std::size_t size = 1024;                                     // the file's size, kept
};

Result<GrubEnvironment> parse_grub_environment(std::string_view bytes);
// The block at its size, or an error when the variables no longer fit in it.
Result<std::string> render_grub_environment(const GrubEnvironment& environment);
// The value of name, or empty.
std::string grub_variable(const GrubEnvironment& environment, std::string_view name);
// Sets (value non-empty) or removes name, keeping the others in order.
void set_grub_variable(GrubEnvironment& environment, std::string_view name, std::string_view value);

}  // namespace kdrift
