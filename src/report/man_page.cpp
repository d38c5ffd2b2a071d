#include "report/man_page.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <sstream>

#include "util/text.h"
#include "util/toml_reader.h"

namespace kdrift {
namespace {

constexpr std::string_view kSharedExitStatus =
    "0: nothing at warning or above. 1: findings at warning or above, or a regression. 2: a "
    "usage error or an input kdrift could not read (the message names the file and what was "
    "wrong). 3: nothing at warning or above, but a probe comparison the data could not decide "
    "(inconclusive; the report says what would decide it).";

// The length of the UTF-8 sequence text[at...] starts and its code point, or nullopt.
std::optional<std::pair<size_t, uint32_t>> utf8_at(std::string_view text, size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  size_t length = 0;
  uint32_t point = 0;
  if ((lead & 0xE0U) == 0xC0U) {
    length = 2;
    point = lead & 0x1FU;
  } else if ((lead & 0xF0U) == 0xE0U) {
    length = 3;
    point = lead & 0x0FU;
  } else if ((lead & 0xF8U) == 0xF0U) {
    length = 4;
    point = lead & 0x07U;
  } else {
    return std::nullopt;
  }
  if (at + length > text.size()) return std::nullopt;
  for (size_t i = 1; i < length; ++i) {
    const auto next = static_cast<unsigned char>(text[at + i]);
    if ((next & 0xC0U) != 0x80U) return std::nullopt;
    point = (point << 6U) | (next & 0x3FU);
  }
  if (point < 0x80 || point > 0x10FFFF) return std::nullopt;
  return std::make_pair(length, point);
}

std::string glyph(uint32_t point) {
  char name[16];
  (void)std::snprintf(name, sizeof name, "\\[u%04X]", static_cast<unsigned>(point));
  return name;
}

// Font changes around escaped text.
std::string bold(std::string_view text) {
  return "\\fB" + roff_escape(text) + "\\fR";
}
std::string italic(std::string_view text) {
  return "\\fI" + roff_escape(text) + "\\fR";
}

// Paragraphs split by blank lines; "- " lines are list items.
void prose(std::ostream& out, std::string_view text) {
  bool first = true;
  bool in_list = false;
  std::string paragraph;
  auto flush = [&] {
    if (paragraph.empty()) return;
    if (!first && !in_list) out << ".PP\n";
    out << roff_escape(paragraph) << "\n";
    paragraph.clear();
    first = false;
  };
  for (const std::string& raw : split(std::string(text), '\n')) {
    const std::string_view line = trim(raw);
    if (line.empty()) {
      flush();
      in_list = false;
      continue;
    }
    if (starts_with(line, "- ")) {
      flush();
      if (!in_list && !first) out << ".PP\n";
      out << ".IP \\(bu 2\n";
      in_list = true;
      first = false;
      paragraph = std::string(line.substr(2));
      continue;
    }
    if (!paragraph.empty()) paragraph += ' ';
    paragraph += line;
  }
  flush();
}

std::string option_label(const OptionSpec& option) {
  std::string label;
  for (const std::string& name : option.names) {
    if (!label.empty()) label += ", ";
    label += bold(name);
  }
  if (option.names.empty()) return italic(option.value_name) + (option.repeatable ? "..." : "");
  if (!option.value_name.empty()) label += " " + italic(option.value_name);
  return label;
}

std::string option_text(const OptionSpec& option) {
  std::string text = option.description;
  if (!text.empty() && text.back() != '.') text += '.';
  if (!option.choices.empty()) text += " One of: " + join(option.choices, ", ") + ".";
  if (!option.default_value.empty()) text += " Default: " + option.default_value + ".";
  if (option.required) text += " Required.";
  if (option.repeatable && !option.names.empty()) text += " May be given more than once.";
  return roff_escape(trim(text));
}

void options(std::ostream& out, const std::vector<OptionSpec>& list) {
  for (const OptionSpec& option : list) {
    out << ".TP\n" << option_label(option) << "\n" << option_text(option) << "\n";
  }
}

// One line: the command, its options as [OPTIONS], its positionals.
std::string synopsis_line(const CommandSpec& command) {
  std::string line = bold(command_name(command));
  bool any_option = false;
  std::string positionals;
  for (const OptionSpec& option : command.options) {
    if (!option.names.empty()) {
      any_option = true;
      continue;
    }
    std::string word = italic(option.value_name) + (option.repeatable ? "..." : "");
    positionals += " " + (option.required ? word : "[" + word + "]");
  }
  if (any_option) line += " [" + italic("OPTIONS") + "]";
  if (!command.subcommands.empty()) line += " " + italic("COMMAND");
  return line + positionals;
}

void synopsis(std::ostream& out, const CommandSpec& command) {
  out << ".SH SYNOPSIS\n";
  if (command.subcommands.empty() || !command.path.empty()) {
    out << synopsis_line(command) << "\n";
  }
  if (command.path.empty()) return;
  for (const CommandSpec& nested : command.subcommands) {
    out << ".br\n" << synopsis_line(nested) << "\n";
  }
}

void nested_commands(std::ostream& out, const CommandSpec& command) {
  if (command.path.empty()) {
    out << ".SH COMMANDS\n";
    for (const CommandSpec& sub : command.subcommands) {
      out << ".TP\n" << bold(page_name(sub)) << "(1)\n" << roff_escape(sub.description) << "\n";
    }
    return;
  }
  out << ".SH COMMANDS\n";
  for (const CommandSpec& sub : command.subcommands) {
    out << ".SS \"" << roff_escape(command_name(sub)) << "\"\n";
    out << synopsis_line(sub) << "\n.PP\n" << roff_escape(sub.description) << "\n";
    options(out, sub.options);
  }
}

void examples(std::ostream& out, const std::vector<ManExample>& list) {
  if (list.empty()) return;
  out << ".SH EXAMPLES\n";
  for (const ManExample& example : list) {
    out << ".PP\n" << roff_escape(example.explanation) << "\n";
    out << ".PP\n.RS 4\n.nf\n" << roff_escape(example.command) << "\n.fi\n.RE\n";
  }
}

void closing_sections(std::ostream& out, const CommandSpec& command, const ManSections& sections) {
  out << ".SH \"EXIT STATUS\"\n";
  prose(out, sections.exit_status.empty() ? kSharedExitStatus : sections.exit_status);
  if (!sections.files.empty()) {
    out << ".SH FILES\n";
    for (const auto& [path, what] : sections.files) {
      out << ".TP\n" << italic(path) << "\n" << roff_escape(what) << "\n";
    }
  }
  std::vector<std::string> see_also = sections.see_also;
  if (!command.path.empty()) see_also.insert(see_also.begin(), "kdrift(1)");
  if (see_also.empty()) return;
  out << ".SH \"SEE ALSO\"\n";
  for (size_t i = 0; i < see_also.size(); ++i) {
    const std::string& page = see_also[i];
    const size_t open = page.find('(');
    const std::string separator = i + 1 < see_also.size() ? "," : "";
    if (open == std::string::npos) {
      out << roff_escape(page + separator) << "\n";
    } else {
      out << ".BR " << roff_escape(page.substr(0, open)) << " "
          << roff_escape(page.substr(open) + separator) << "\n";
    }
  }
}

std::string upper(std::string text) {
  for (char& c : text) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return text;
}

Result<std::string> string_key(const TomlReader& reader, const toml::table& table,
                               std::string_view key, bool required) {
  const toml::node* node = table.get(key);
  if (node == nullptr) {
    if (required) return reader.error(std::string(key) + ": missing");
    return std::string();
  }
  const auto value = node->value<std::string>();
  if (!value) return reader.error_at(*node, std::string(key) + ": expected a string");
  return *value;
}

template <typename Entry, typename Make>
Status table_list(const TomlReader& reader, const toml::table& table, std::string_view key,
                  const std::set<std::string_view>& keys, std::vector<Entry>& out, Make make) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return ok_status();
  const auto* array = node->as_array();
  if (array == nullptr)
    return reader.error_at(*node,
                           std::string(key) + ": expected [[" + std::string(key) + "]] tables");
  for (const toml::node& item : *array) {
    const auto* entry = item.as_table();
    if (entry == nullptr) return reader.error_at(item, std::string(key) + ": expected a table");
    if (auto status = reader.check_keys(*entry, keys, std::string(key) + ": "); !status) {
      return status;
    }
    std::vector<std::string> values;
    for (std::string_view name : keys) {
      auto value = string_key(reader, *entry, name, true);
      if (!value) return value.error();
      values.push_back(*value);
    }
    out.push_back(make(values));
  }
  return ok_status();
}

}  // namespace

std::string roff_escape(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    line_start = false;
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80) {
      const auto sequence = utf8_at(text, at);
      out += glyph(sequence ? sequence->second : 0xFFFD);
      if (sequence) at += sequence->first - 1;
    } else if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else if (c == '\n') {
      out += c;
      line_start = true;
    } else if (c == '\t') {
      out += ' ';
    } else if (byte >= 0x20 && byte != 0x7F) {
      out += c;
    }
  }
  return out;
}

std::string page_name(const CommandSpec& command) {
  std::string name = "kdrift";
  if (!command.path.empty()) name += "-" + command.path.front();
  return name;
}

Result<ManSections> parse_man_sections(std::string_view toml, const std::string& source) {
  const TomlReader reader(source);
  auto table = reader.parse(toml);
  if (!table) return table.error();
  if (auto status = reader.check_keys(
          *table, {"summary", "description", "examples", "exit_status", "files", "see_also"}, "");
      !status) {
    return status.error();
  }
  ManSections sections;
  for (auto [key, field, required] :
       {std::tuple{"summary", &ManSections::summary, true},
        std::tuple{"description", &ManSections::description, true},
        std::tuple{"exit_status", &ManSections::exit_status, false}}) {
    auto value = string_key(reader, *table, key, required);
    if (!value) return value.error();
    sections.*field = *value;
  }
  // check_keys iterates its set in order: "command" < "explanation", "path" < "what".
  if (auto status =
          table_list(reader, *table, "examples", {"command", "explanation"}, sections.examples,
                     [](auto& v) {
                       return ManExample{v[0], v[1]};
                     });
      !status) {
    return status.error();
  }
  if (auto status = table_list(reader, *table, "files", {"path", "what"}, sections.files,
                               [](auto& v) {
                                 return std::pair{v[0], v[1]};
                               });
      !status) {
    return status.error();
  }
  if (const toml::node* see = table->get("see_also")) {
    auto pages = reader.list<std::string>(
        *see, "see_also", [](const toml::node& item) { return item.value<std::string>(); });
    if (!pages) return pages.error();
    sections.see_also = *pages;
  }
  return sections;
}

std::string render_man_page(const CommandSpec& command, const ManSections& sections,
                            const std::string& version, const std::string& date) {
  std::ostringstream out;
  const std::string name = page_name(command);
  out << ".\\\" Generated by kdrift-docgen from kdrift's command line and docs/man/" << name
      << ".toml.\n";
  out << ".TH " << roff_escape(upper(name)) << " 1 \"" << roff_escape(date) << "\" \"kdrift "
      << roff_escape(version) << "\" \"kdrift manual\"\n";
  out << ".ad l\n.nh\n.SH NAME\n"
      << roff_escape(name) << " \\- " << roff_escape(sections.summary) << "\n";
  synopsis(out, command);
  out << ".SH DESCRIPTION\n";
  prose(out, sections.description);
  if (!command.options.empty()) {
    out << ".SH OPTIONS\n";
    options(out, command.options);
  }
  if (!command.subcommands.empty()) nested_commands(out, command);
  examples(out, sections.examples);
  closing_sections(out, command, sections);
  return out.str();
}

}  // namespace kdrift
