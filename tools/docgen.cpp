// kdrift-docgen: the manual pages and shell completions, written at build time from the same
// CLI11 definitions kdrift parses (cli/program.h) and the hand-written sections in docs/man/.
//   kdrift-docgen SECTIONS_DIR OUTPUT_DIR DATE
// writes OUTPUT_DIR/man/kdrift.1, OUTPUT_DIR/man/kdrift-SUBCOMMAND.1, and
// OUTPUT_DIR/completions/{kdrift,_kdrift}. A subcommand without a sections file, or a sections
// file no page uses, is an error: the prose is kept for every page and for nothing else.

#include <cstdio>
#include <filesystem>
#include <set>

#include "cli/cli_spec.h"
#include "cli/program.h"
#include "iobench/profile.h"
#include "report/man_page.h"
#include "report/shell_completion.h"
#include "rules/rule_loader.h"
#include "util/atomic_file.h"
#include "util/toml_reader.h"
#include "util/version.h"

namespace {

namespace fs = std::filesystem;
using kdrift::CommandSpec;

int fail(const std::string& message) {
  (void)std::fprintf(stderr, "kdrift-docgen: %s\n", message.c_str());
  return 1;
}

kdrift::CompletionWords completion_words() {
  kdrift::CompletionWords words;
  if (auto profiles = kdrift::embedded_profiles()) {
    for (const auto& profile : *profiles)
      words.profiles.push_back(profile.name);
  }
  if (auto rules = kdrift::builtin_rules()) {
    for (const auto& rule : *rules)
      words.findings.push_back(rule.id);
  }
  return words;
}

bool write(const fs::path& path, const std::string& text) {
  auto written = kdrift::write_file_atomically(path.string(), text, 0644);
  if (!written) (void)fail(written.error().describe());
  return static_cast<bool>(written);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return fail("usage: kdrift-docgen SECTIONS_DIR OUTPUT_DIR DATE");
  const fs::path sections_dir = argv[1];
  const fs::path out = argv[2];
  int status = 0;
  const auto app = kdrift::make_program(status);
  CommandSpec program = kdrift::describe_command_line(*app);
  std::vector<const CommandSpec*> pages{&program};
  for (const CommandSpec& sub : program.subcommands)
    pages.push_back(&sub);
  std::error_code failure;
  fs::create_directories(out / "man", failure);
  fs::create_directories(out / "completions", failure);
  if (failure) return fail("create " + out.string() + ": " + failure.message());
  std::set<std::string> used;
  for (const CommandSpec* page : pages) {
    const std::string name = kdrift::page_name(*page);
    const fs::path source = sections_dir / (name + ".toml");
    auto text = kdrift::read_toml_file(source.string());
    if (!text) return fail(text.error().describe() + " (every page needs its sections file)");
    auto sections = kdrift::parse_man_sections(*text, source.string());
    if (!sections) return fail(sections.error().describe());
    used.insert(name + ".toml");
    if (!write(out / "man" / (name + ".1"),
               kdrift::render_man_page(*page, *sections, kdrift::kKdriftVersion, argv[3]))) {
      return 1;
    }
  }
  for (const auto& entry : fs::directory_iterator(sections_dir)) {
    const std::string file = entry.path().filename().string();
    if (!used.contains(file)) return fail(entry.path().string() + ": no such subcommand's page");
  }
  const auto words = completion_words();
  if (!write(out / "completions" / "kdrift", kdrift::render_bash_completion(program, words)) ||
      !write(out / "completions" / "_kdrift", kdrift::render_zsh_completion(program, words))) {
    return 1;
  }
  return 0;
}
