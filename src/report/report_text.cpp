#include "report/report_text.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "model/percentile_set.h"
#include "report/change_text.h"
#include "report/markdown_text.h"
#include "report/text_table.h"
#include "report/verdict_text.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::size_t kMaxChangesPerSection = 40;
// Kernel config symbols outside the named groups, summed by prefix: the largest this many.
constexpr std::size_t kReportedPrefixes = 12;

std::string iops_text(const Json* value) {
  return value != nullptr && value->is_number() ? count_text(value->get<double>()) : "-";
}

std::string ratio_text(const Json* value) {
  return value != nullptr && value->is_number() ? fixed(value->get<double>(), 3) : "-";
}

std::string p_text(const Json* value) {
  if (value == nullptr || !value->is_number()) return "-";
  char text[32];
  (void)std::snprintf(text, sizeof text, "%.2g", value->get<double>());
  return text;
}

// The job's verdict, and which measure carried it when the IOPS alone did not.
std::string verdict_text(const Json& job) {
  const Verdict verdict = Verdict::from_json(job);
  const std::string token = verdict_token(verdict);
  const Json* iops = at(job, {"iops_verdict"});
  if (iops == nullptr || text_of(*iops) == token) return token;
  std::string by;
  if (const Json* latency = at(job, {"latency"}); latency != nullptr && latency->is_object()) {
    for (const auto& [key, result] : latency->items()) {
      if (verdict_token(Verdict::from_json(result)) != token) continue;
      by += (by.empty() ? "p" : ", p") + percentile_label(key);
    }
  }
  return by.empty() ? token : token + " (latency " + by + ")";
}

// Paragraphs in rule files are wrapped for the file; re-flow them for the output.
std::string paragraph(const std::string& text) {
  return join(split_whitespace(text), " ");
}

std::vector<std::string> strings(const Json* list) {
  std::vector<std::string> out;
  if (list == nullptr || !list->is_array()) return out;
  for (const auto& item : *list)
    out.push_back(text_of(item));
  return out;
}

// What differs between the two formats: how headings, emphasis and blocks are written.
class Writer {
 public:
  Writer(bool markdown, bool colour) : markdown_(markdown), colour_(colour && !markdown) {}

  std::string str() const { return out_.str(); }
  std::ostream& out() { return out_; }

  // Every value from the document reaches the output through text() or code(), which make it
  // inert: no control character on a terminal and, in markdown, nothing that leaves its line,
  // table cell or code span, or that becomes HTML, a link or emphasis.
  std::string text(const std::string& value) const {
    return markdown_ ? markdown_text(value) : terminal_safe(value);
  }

  std::string code(const std::string& value) const {
    return markdown_ ? markdown_code(value) : terminal_safe(value);
  }

  void heading(const std::string& title) {
    if (markdown_) {
      out_ << "\n## " << text(title) << "\n\n";
    } else {
      out_ << "\n" << bold(title) << "\n";
    }
  }

  std::string bold(const std::string& value) const {
    if (markdown_) return "**" + text(value) + "**";
    return colour_ ? "\033[1m" + text(value) + "\033[0m" : text(value);
  }

  std::string severity(const std::string& name) const {
    std::string label = name;
    for (auto& c : label)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    label = text(label);
    if (markdown_) return "**" + label + "**";
    if (!colour_) return label;
    const char* tint = name == "critical"  ? "\033[1;31m"
                       : name == "warning" ? "\033[1;33m"
                                           : "\033[36m";
    return tint + label + "\033[0m";
  }

  void table(const Table& table, const std::vector<std::vector<std::string>>& rows,
             const std::vector<std::string>& header) {
    if (!markdown_) {
      table.render(out_);
      return;
    }
    out_ << "|";
    for (const auto& cell : header)
      out_ << " " << text(cell) << " |";
    out_ << "\n|";
    for (std::size_t i = 0; i < header.size(); ++i)
      out_ << "---|";
    out_ << "\n";
    for (const auto& row : rows) {
      out_ << "|";
      for (const auto& cell : row)
        out_ << " " << text(cell) << " |";
      out_ << "\n";
    }
  }

  bool markdown() const { return markdown_; }

 private:
  bool markdown_;
  bool colour_;
  std::ostringstream out_;
};

std::string side_text(const Json& side) {
  std::string text = text_at(side, {"label"}, "");
  const std::string host = text_at(side, {"hostname"}, "");
  const std::string kernel = text_at(side, {"kernel"}, "");
  std::string detail;
  if (!host.empty()) detail += host;
  if (!kernel.empty()) detail += (detail.empty() ? "" : ", ") + kernel;
  const std::string profile = text_at(side, {"probe_profile"}, "");
  if (!profile.empty()) detail += (detail.empty() ? "" : ", ") + std::string("probe ") + profile;
  return detail.empty() ? text : text + " (" + detail + ")";
}

void header(const Json& report, Writer& w) {
  const std::string kind = text_at(report, {"kind"}, "report");
  const Json* a = at(report, {"a"});
  const Json* b = at(report, {"b"});
  std::string title = "kdrift " + kind;
  if (a != nullptr && b != nullptr) {
    title += ": " + side_text(*a) + " → " + side_text(*b);
  } else if (b != nullptr) {
    title += ": " + side_text(*b);
  }
  if (w.markdown()) {
    w.out() << "# " << w.text(title) << "\n\n";
  } else {
    w.out() << w.bold(title) << "\n";
  }
  const Json* status = at(report, {"status"});
  if (status == nullptr) return;
  const std::string regressions = text_at(*status, {"regressions"}, "0");
  w.out() << "Result: " << w.text(text_at(*status, {"critical"}, "0")) << " critical, "
          << w.text(text_at(*status, {"warning"}, "0")) << " warning, "
          << w.text(text_at(*status, {"info"}, "0")) << " info";
  if (regressions != "0") w.out() << ", " << w.text(regressions) << " probe regression(s)";
  const std::string inconclusive = text_at(*status, {"inconclusive"}, "0");
  if (inconclusive != "0") w.out() << ", " << w.text(inconclusive) << " probe job(s) inconclusive";
  w.out() << " → exit " << w.text(text_at(*status, {"exit_status"}, "0")) << "\n";
}

void findings(const Json& report, Writer& w) {
  const Json* list = at(report, {"findings"});
  w.heading("Findings, most likely cause first");
  if (list == nullptr || !list->is_array() || list->empty()) {
    // With a probe job undecided, "nothing differs" would claim what the runs did not show.
    if (text_at(report, {"status", "inconclusive"}, "0") != "0") {
      w.out() << "No finding; the probe could not decide every job (see the probe section): "
                 "this is not \"nothing differs\".\n";
    } else {
      // Rules that could not judge a side are listed below; "nothing differs" covers only what
      // both snapshots show.
      const Json* not_judged = at(report, {"not_judged"});
      const bool partly = not_judged != nullptr && not_judged->is_array() && !not_judged->empty();
      if (text_at(report, {"kind"}, "") != "diff") {
        w.out() << (partly ? "Nothing to report of what the snapshot shows; some rules could "
                             "not judge (below).\n"
                           : "Nothing to report.\n");
      } else {
        w.out() << (partly ? "Nothing that matters for I/O differs in what both snapshots show; "
                             "some rules could not judge (below).\n"
                           : "Nothing that matters for I/O differs between the two snapshots.\n");
      }
    }
    return;
  }
  for (const auto& finding : *list) {
    if (!finding.is_object()) continue;
    const auto subjects = strings(at(finding, {"subjects"}));
    std::string subject_text = join(subjects, ", ");
    std::string line = w.text(text_at(finding, {"rank"}, "?")) + ". " +
                       w.severity(text_at(finding, {"severity"}, "info")) + " " +
                       w.code(text_at(finding, {"id"}, "?")) + " " +
                       w.text(text_at(finding, {"title"}, "")) + " [" +
                       w.text(text_at(finding, {"direction"}, "")) +
                       (subject_text.empty() ? "" : ": " + w.text(subject_text)) + "]";
    const std::string indent = w.markdown() ? "   " : "    ";
    w.out() << (w.markdown() ? "" : " ") << line << "\n";
    auto block = [&](const char* label, const std::vector<std::string>& lines) {
      if (lines.empty()) return;
      w.out() << indent << (w.markdown() ? "- " + w.bold(label) : std::string(label)) << "\n";
      for (const auto& item : lines) {
        w.out() << indent << (w.markdown() ? "  - " : "  ") << w.code(item) << "\n";
      }
    };
    block("evidence:", strings(at(finding, {"evidence"})));
    block("proof (trace):", strings(at(finding, {"proof"})));
    const std::string why = paragraph(raw_text_of(at(finding, {"explanation"})));
    const std::string fix = paragraph(raw_text_of(at(finding, {"remedy"})));
    if (!why.empty()) {
      w.out() << indent << (w.markdown() ? "- " + w.bold("why:") + " " : "why: ") << w.text(why)
              << "\n";
    }
    if (!fix.empty()) {
      w.out() << indent << (w.markdown() ? "- " + w.bold("remedy:") + " " : "remedy: ")
              << w.text(fix) << "\n";
    }
    if (w.markdown()) w.out() << "\n";
  }
}

// The rules that met facts a snapshot does not know: neither flagged nor cleared there.
void not_judged(const Json& report, Writer& w) {
  const Json* list = at(report, {"not_judged"});
  if (list == nullptr || !list->is_array() || list->empty()) return;
  w.heading("Could not judge (facts unknown)");
  for (const auto& rule : *list) {
    w.out() << (w.markdown() ? "- " : "  ") << w.code(text_at(rule, {"id"}, "?")) << " "
            << w.text(text_at(rule, {"title"}, "")) << "\n";
    for (const auto& fact : array_at(rule, {"facts"})) {
      const std::string side = text_at(fact, {"side"}, "");
      const std::string line = (side.empty() ? "" : (side == "a" ? "A: " : "B: ")) +
                               text_at(fact, {"path"}, "?") + ": " + text_at(fact, {"why"}, "?");
      w.out() << (w.markdown() ? "  - " : "      ") << w.code(line) << "\n";
    }
    if (const auto more = count_at(rule, {"facts_not_listed"}); more && *more > 0) {
      w.out() << (w.markdown() ? "  - … " : "      … ") << *more << " more (see --format json)\n";
    }
  }
}

void probe(const Json& report, Writer& w) {
  const Json* section = at(report, {"probe"});
  if (section == nullptr || !section->is_object()) return;
  const bool per_snapshot = text_at(*section, {"unit"}, "") == "snapshot";
  w.heading(
      per_snapshot
          ? "Probe, A vs B (one value per snapshot: " + text_at(*section, {"snapshots", "a"}, "?") +
                " vs " + text_at(*section, {"snapshots", "b"}, "?") +
                "; Welch's t on log IOPS, alpha " + text_at(*section, {"alpha"}, "0.01") + ")"
          : "Probe, A vs B (per-second IOPS, alpha " + text_at(*section, {"alpha"}, "0.01") + ")");
  if (const Json* why = at(*section, {"unavailable"})) {
    w.out() << "No comparison: " << w.text(text_of(*why)) << "\n";
    return;
  }
  const std::vector<std::string> columns = {
      "job",
      per_snapshot ? "A IOPS (geo mean)" : "A IOPS (median/s)",
      per_snapshot ? "B IOPS (geo mean)" : "B IOPS (median/s)",
      "ratio",
      interval_heading(1 - number_at(*section, {"alpha"}).value_or(0.01)),
      "p",
      "verdict"};
  Table table(columns);
  std::vector<std::vector<std::string>> rows;
  const Json* jobs = at(*section, {"jobs"});
  if (jobs == nullptr || !jobs->is_array()) return;
  for (const auto& job : *jobs) {
    // Medians of the per-second samples: the figures iops_ratio compares.
    auto median_iops = [&](const char* side) {
      const Json* median = at(job, {side, "iops_per_second", "median"});
      return iops_text(median != nullptr ? median : at(job, {side, "iops"}));
    };
    std::vector<std::string> row = {text_at(job, {"name"}, "?"),
                                    median_iops("a"),
                                    median_iops("b"),
                                    ratio_text(at(job, {"iops_ratio"})),
                                    bounds_text(Verdict::from_json(job)),
                                    p_text(at(job, {"p_value"})),
                                    verdict_text(job)};
    table.add(row);
    rows.push_back(std::move(row));
  }
  w.table(table, rows, columns);
  for (const auto& job : *jobs) {
    std::string why = text_at(job, {"reason"}, "");
    const std::string deciding = deciding_text(Verdict::from_json(job));
    if (!deciding.empty()) why += (why.empty() ? "inconclusive: " : "; inconclusive: ") + deciding;
    if (why.empty()) continue;
    w.out() << (w.markdown() ? "- " : "  ") << w.text(text_at(job, {"name"}, "?")) << ": "
            << w.text(why) << "\n";
  }
}

// Several snapshots a side: what disagrees inside a side, which the diff does not call a change.
void varies_within(const Json& report, Writer& w) {
  const Json* within = at(report, {"varies_within"});
  if (within == nullptr || !within->is_object()) return;
  const auto listed = [](const Json& value) {
    if (value.is_array()) return !value.empty();
    if (!value.is_object()) return false;
    return std::any_of(value.begin(), value.end(),
                       [](const Json& list) { return list.is_array() && !list.empty(); });
  };
  if (std::none_of(within->begin(), within->end(), listed)) return;
  w.heading("Differs within a side (not a change)");
  const Json* findings = at(*within, {"findings"});
  if (findings != nullptr && findings->is_array()) {
    for (const auto& finding : *findings) {
      w.out() << (w.markdown() ? "- " : "  ") << w.text(text_at(finding, {"id"}, "?")) << ": "
              << w.text(text_at(finding, {"title"}, "")) << " (" << text_at(finding, {"pairs"}, "?")
              << " of " << text_at(finding, {"of"}, "?") << " pairs)\n";
    }
  }
  for (const char* side : {"a", "b"}) {
    const Json* sections = at(*within, {side});
    if (sections == nullptr || !sections->is_object()) continue;
    for (const auto& [name, list] : sections->items()) {
      if (!list.is_array()) continue;
      std::size_t shown = 0;
      for (const auto& change : list) {
        if (++shown > kMaxChangesPerSection) break;
        const ChangeText text =
            change_text(text_at(change, {"path"}, "?"), at(change, {"a"}), at(change, {"b"}));
        w.out() << (w.markdown() ? "- " : "  ") << (side[0] == 'a' ? "A: " : "B: ")
                << w.code(text.summary) << "\n";
      }
    }
  }
}

void changes(const Json& report, Writer& w) {
  const Json* sections = at(report, {"changes"});
  if (sections == nullptr || !sections->is_object()) return;
  std::size_t total = 0;
  for (const auto& [name, list] : sections->items())
    total += list.is_array() ? list.size() : 0;
  w.heading("Every other difference (" + std::to_string(total) + " values, noise removed)");
  if (total == 0) {
    w.out() << "None.\n";
    return;
  }
  for (const auto& [name, list] : sections->items()) {
    if (!list.is_array()) continue;
    w.out() << (w.markdown() ? "- " + w.bold(name) : w.text(name)) << " (" << list.size() << ")\n";
    std::size_t shown = 0;
    for (const auto& change : list) {
      if (++shown > kMaxChangesPerSection) {
        w.out() << (w.markdown() ? "  - … " : "    … ") << list.size() - kMaxChangesPerSection
                << " more (see --format json)\n";
        break;
      }
      const ChangeText text =
          change_text(text_at(change, {"path"}, "?"), at(change, {"a"}), at(change, {"b"}));
      w.out() << (w.markdown() ? "  - " : "    ") << w.code(text.summary) << "\n";
      for (const auto& element : text.elements) {
        w.out() << (w.markdown() ? "    - " : "        ") << w.code(element) << "\n";
      }
      if (text.elements_not_shown > 0) {
        w.out() << (w.markdown() ? "    - … " : "        … ") << text.elements_not_shown
                << " more elements (see --format json)\n";
      }
    }
  }
}

// What one side knows and the other does not: listed apart, since it is no change of setting.
void unknown_differences(const Json& report, Writer& w) {
  const Json* sections = at(report, {"unknown_differences"});
  if (sections == nullptr || !sections->is_object() || sections->empty()) return;
  w.heading("Known on one side only (not a change)");
  static const Json kUnknown = "(unknown)";
  for (const auto& [name, list] : sections->items()) {
    if (!list.is_array()) continue;
    w.out() << (w.markdown() ? "- " + w.bold(name) : w.text(name)) << " (" << list.size() << ")\n";
    std::size_t shown = 0;
    for (const auto& entry : list) {
      if (++shown > kMaxChangesPerSection) {
        w.out() << (w.markdown() ? "  - … " : "    … ") << list.size() - kMaxChangesPerSection
                << " more (see --format json)\n";
        break;
      }
      const Json* a = at(entry, {"a_unknown"}) != nullptr ? &kUnknown : at(entry, {"a"});
      const Json* b = at(entry, {"b_unknown"}) != nullptr ? &kUnknown : at(entry, {"b"});
      const ChangeText text = change_text(text_at(entry, {"path"}, "?"), a, b);
      w.out() << (w.markdown() ? "  - " : "    ") << w.code(text.summary) << "\n";
      for (const char* side : {"a_unknown", "b_unknown"}) {
        if (const auto why = string_at(entry, {side})) {
          w.out() << (w.markdown() ? "    - " : "        ")
                  << w.text(std::string(side[0] == 'a' ? "A" : "B") + " unknown: " + *why) << "\n";
        }
      }
    }
  }
}

void kernel_config(const Json& report, Writer& w) {
  const Json* config = at(report, {"kernel_config"});
  if (config == nullptr || !config->is_object()) return;
  w.heading("Kernel config");
  const Json* groups = at(*config, {"groups"});
  if ((groups == nullptr || !groups->is_array() || groups->empty()) &&
      text_at(*config, {"other", "count"}, "0") == "0") {
    w.out() << "Identical.\n";
    return;
  }
  if (groups != nullptr && groups->is_array()) {
    for (const auto& group : *groups) {
      const Json* changed = at(group, {"changed"});
      if (changed == nullptr || !changed->is_array()) continue;
      const std::string name = text_at(group, {"name"}, "?");
      w.out() << (w.markdown() ? "- " + w.bold(name) : w.text(name)) << " (" << changed->size()
              << ")\n";
      for (const auto& symbol : *changed) {
        std::string line = text_at(symbol, {"symbol"}, "?") + ": " +
                           text_at(symbol, {"a"}, "(absent)") + " → " +
                           text_at(symbol, {"b"}, "(absent)");
        w.out() << (w.markdown() ? "  - " : "    ") << w.code(line) << "\n";
      }
    }
  }
  if (const Json* absent = at(*config, {"absent"}); absent != nullptr && absent->is_string()) {
    w.out() << (w.markdown() ? "- " : "") << w.text("(absent): " + absent->get<std::string>())
            << "\n";
  }
  const Json* other = at(*config, {"other", "by_prefix"});
  const std::string count = text_at(*config, {"other", "count"}, "0");
  if (other != nullptr && other->is_object() && count != "0") {
    std::vector<std::pair<double, std::string>> counts;
    for (const auto& [prefix, n] : other->items()) {
      counts.emplace_back(n.is_number() ? n.get<double>() : 0, prefix);
    }
    const std::string largest = largest_counts(std::move(counts), kReportedPrefixes);
    const std::string line = count + " other symbols:" + (largest.empty() ? "" : " " + largest);
    w.out() << (w.markdown() ? "- " : "") << w.text(line) << "\n";
  }
}

std::string render(const Json& report, Writer w) {
  header(report, w);
  findings(report, w);
  not_judged(report, w);
  varies_within(report, w);
  probe(report, w);
  changes(report, w);
  unknown_differences(report, w);
  kernel_config(report, w);
  return w.str();
}

}  // namespace

std::string render_report_text(const Json& report, bool colour) {
  return render(report, Writer(false, colour));
}

std::string render_report_markdown(const Json& report) {
  return render(report, Writer(true, false));
}

}  // namespace kdrift
