#pragma once
// kdrift(1) and kdrift-SUBCOMMAND(1) in man(7) roff: the synopsis and options from the command
// line's definitions (CommandSpec), the prose from a hand-written sections file per page
// (docs/man/PAGE.toml). Options therefore cannot drift from the page; a page whose sections
// file is missing or names an unknown key is an error, so every subcommand keeps its prose.

#include <string>
#include <string_view>
#include <vector>

#include "report/command_spec.h"
#include "util/result.h"

namespace kdrift {

struct ManExample {
  std::string command;
  std::string explanation;
};

// The hand-written part of a page. Text is plain: paragraphs split by blank lines, a line
// starting with "- " an item of a list; roff never comes from here unescaped.
struct ManSections {
  std::string summary;  // the NAME line after "kdrift-diff - "
  std::string description;
  std::vector<ManExample> examples;
  std::string exit_status;  // empty: the exit statuses every subcommand shares
  std::vector<std::pair<std::string, std::string>> files;  // path, what it is
  std::vector<std::string> see_also;                       // "kdrift-check(1)"
};

// docs/man/PAGE.toml: summary, description, exit_status (strings), examples
// ([[examples]] command, explanation), files ([[files]] path, what), see_also (strings).
Result<ManSections> parse_man_sections(std::string_view toml, const std::string& source);

// "kdrift-bisect" for {"bisect"}, "kdrift" for the program.
std::string page_name(const CommandSpec& command);

// The page of command (a top-level subcommand, or the program with its subcommands listed);
// nested subcommands (bisect start) are sections of their parent's page. date is YYYY-MM-DD.
std::string render_man_page(const CommandSpec& command, const ManSections& sections,
                            const std::string& version, const std::string& date);

// text as roff body text: backslashes, leading dots and apostrophes made inert, every
// character outside ASCII as a \[uXXXX] glyph, control characters dropped.
std::string roff_escape(std::string_view text);

}  // namespace kdrift
