#include "report/bisect_markdown.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "report/markdown_text.h"
#include "util/text.h"

namespace kdrift {
namespace {

std::string field(const Json& node, std::string_view key) {
  return text_member(node, key);
}

// Four significant digits, but never an exponent: an IOPS level reads 14689, not 1.469e+04.
std::string figure(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, std::abs(value) >= 1e4 ? "%.0f" : "%.4g", value);
  return buffer;
}

void first_bad_commit(const Json& kernel, std::ostringstream& out) {
  const Json* commit = object_member(kernel, "first_bad_commit");
  if (commit == nullptr) return;
  out << "**First bad commit:** " << markdown_code(field(*commit, "sha")) << " "
      << markdown_text(field(*commit, "subject")) << "\n\n";
  if (const std::string author = field(*commit, "author"); !author.empty()) {
    out << "- Author: " << markdown_text(author)
        << "\n- Date: " << markdown_text(field(*commit, "date")) << "\n";
  }
  if (const Json* files = array_member(*commit, "files"); files != nullptr && !files->empty()) {
    out << "- Files:";
    for (const Json& file : *files)
      if (file.is_string()) out << " " << markdown_code(file.get<std::string>());
    if (const auto more = number_member(*commit, "more_files"); more && *more > 0)
      out << " and " << figure(*more) << " more";
    out << "\n";
  }
  if (const Json* inside = object_member(*commit, "inside")) {
    out << "- A merge: its side branch of " << figure(number_member(*inside, "commits").value_or(0))
        << " commits came in at once; to bisect inside it: "
        << markdown_code("kdrift bisect start " + field(*inside, "start")) << "\n";
  }
  if (const std::string missing = field(*commit, "unavailable"); !missing.empty()) {
    out << "- (" << markdown_text(missing) << ")\n";
  }
  const Json* also = array_member(kernel, "could_also_be");
  if (also != nullptr && !also->empty()) {
    out << "\nSkipped commits leave it open; it could also be:\n\n";
    for (const Json& other : *also) {
      out << "- " << markdown_code(field(other, "sha")) << " "
          << markdown_text(field(other, "subject")) << "\n";
    }
  }
  out << "\n";
}

void config_change(const Json& kernel, std::ostringstream& out) {
  const Json* change = object_member(kernel, "config_change");
  if (change == nullptr) return;
  out << "**The config change:** between " << markdown_code(field(*change, "last_good"))
      << " (good) and " << markdown_code(field(*change, "first_bad")) << " (bad)\n\n";
  const Json* symbols = array_member(*change, "symbols");
  for (const Json& symbol : symbols != nullptr ? *symbols : Json::array()) {
    const auto value = [&](const char* key) {
      const Json* node = at(symbol, {key});
      return node != nullptr && node->is_string() ? node->get<std::string>() : "(absent)";
    };
    out << "- " << markdown_code("CONFIG_" + field(symbol, "symbol")) << ": "
        << markdown_code(value("from")) << " → " << markdown_code(value("to")) << "\n";
    if (const Json* help = object_member(symbol, "help")) {
      out << "  - " << markdown_code(field(*help, "type")) << " in "
          << markdown_code(field(*help, "file")) << "\n";
      if (const std::string text = field(*help, "help"); !text.empty()) {
        out << "\n" << markdown_code_block(text) << "\n";
      }
    }
  }
  if (const std::string missing = field(*change, "unavailable"); !missing.empty()) {
    out << "(" << markdown_text(missing) << ")\n";
  }
  out << "\n";
}

void steps(const Json& report, std::ostringstream& out) {
  out << "## Steps\n\n| candidate | commit | build | verdict | level (99 % interval) | boots |\n"
      << "|---|---|---|---|---|---|\n";
  const Json* all = array_member(report, "steps");
  for (const Json& step : all != nullptr ? *all : Json::array()) {
    std::string build = "";
    if (const Json* built = object_member(step, "build")) {
      build = field(*built, "outcome") + " " +
              figure(number_member(*built, "seconds").value_or(0)) + " s";
    }
    std::string level = "";
    std::string boots = "";
    if (const Json* measured = object_member(step, "level")) {
      level = figure(number_member(*measured, "value").value_or(0)) + " (" +
              figure(number_member(*measured, "low").value_or(0)) + "–" +
              figure(number_member(*measured, "high").value_or(0)) + ")";
      boots = figure(number_member(*measured, "boots").value_or(0));
    }
    const std::string commit = field(step, "commit").substr(0, 12);
    out << "| " << markdown_text(field(step, "candidate")) << " | " << markdown_text(commit)
        << " | " << markdown_text(build) << " | " << markdown_text(field(step, "verdict")) << " | "
        << markdown_text(level) << " | " << markdown_text(boots) << " |\n";
  }
  out << "\n";
}

void reproducer(const Json& kernel, std::ostringstream& out) {
  const Json* how = object_member(kernel, "reproducer");
  if (how == nullptr) return;
  out << "## Reproducer\n\n- Metric: " << markdown_code(field(*how, "metric"));
  if (const std::string target = field(*how, "target"); !target.empty()) {
    out << " on " << markdown_code(target);
  } else {
    out << " (the boot command's exit status)";
  }
  out << "\n- Config: " << markdown_code(field(*how, "config"))
      << " (in the bisect's state directory)\n";
  if (const std::string append = field(*how, "append"); !append.empty()) {
    out << "- Kernel command line: " << markdown_code(append) << "\n";
  }
  out << "- Tree: " << markdown_code(field(kernel, "tree")) << "\n\n";
}

}  // namespace

std::string kernel_answer_text(const Json& report) {
  const Json* kernel = object_member(report, "kernel");
  if (kernel == nullptr) return "";
  std::string text;
  if (const Json* commit = object_member(*kernel, "first_bad_commit")) {
    text += "first bad commit: " + terminal_safe(field(*commit, "sha")) + " " +
            terminal_safe(field(*commit, "subject")) + "\n";
  }
  if (const Json* change = object_member(*kernel, "config_change")) {
    const Json* symbols = array_member(*change, "symbols");
    text += "config change:";
    for (const Json& symbol : symbols != nullptr ? *symbols : Json::array())
      text += " CONFIG_" + terminal_safe(field(symbol, "symbol"));
    text += "\n";
  }
  return text;
}

std::string render_bisect_markdown(const Json& report) {
  std::ostringstream out;
  const Json* kernel = object_member(report, "kernel");
  out << "# Bisect " << markdown_text(field(report, "id")) << ": "
      << markdown_text(field(report, "state")) << "\n\nMetric "
      << markdown_code(field(report, "metric")) << ", good " << markdown_code(field(report, "good"))
      << ", bad " << markdown_code(field(report, "bad")) << ".\n\n";
  if (kernel != nullptr) {
    first_bad_commit(*kernel, out);
    config_change(*kernel, out);
  } else if (const Json* first = member(report, "first_bad"); first && first->is_string()) {
    out << "**First bad:** " << markdown_code(first->get<std::string>()) << "\n\n";
  }
  if (field(report, "state") != "done") {
    out << "No answer yet: " << markdown_text(field(report, "why")) << "\n\n";
  }
  steps(report, out);
  if (kernel != nullptr) {
    if (const std::string log = field(*kernel, "git_bisect_log"); !log.empty()) {
      out << "## git bisect log\n\n" << markdown_code_block(log) << "\n";
    }
    reproducer(*kernel, out);
  }
  return out.str();
}

}  // namespace kdrift
