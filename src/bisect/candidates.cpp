#include "bisect/candidates.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "util/input_file.h"
#include "util/text.h"

namespace kdrift {
namespace {

Error line_error(const std::string& source, size_t line, const std::string& what) {
  return content_error(source + ":" + std::to_string(line) + ": " + what);
}

// Splits a list line into words; a double-quoted stretch (with \" and \\ escapes) belongs to the
// word it is in. nullopt on an unterminated quote.
std::optional<std::vector<std::string>> split_quoted(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      in_word = true;
      for (++i;; ++i) {
        if (i >= line.size()) return std::nullopt;
        if (line[i] == '"') break;
        if (line[i] == '\\' && i + 1 < line.size() && (line[i + 1] == '"' || line[i + 1] == '\\')) {
          ++i;
        }
        word += line[i];
      }
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::string quote_if_needed(const std::string& value) {
  const bool plain = !value.empty() && value.find_first_of(" \t\"\\#") == std::string::npos;
  if (plain) return value;
  std::string out = "\"";
  for (const char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The running kernel's command line as a candidate's: what the boot loader adds for its own
// sake (the image it loaded, the initrd it passed) is not the kernel's to repeat.
std::string boot_append(const SysRoot& root) {
  const auto cmdline = root.read_value("/proc/cmdline");
  if (!cmdline) return {};
  std::vector<std::string> kept;
  for (const std::string& word : split_whitespace(*cmdline)) {
    if (starts_with(word, "BOOT_IMAGE=") || starts_with(word, "initrd=")) continue;
    kept.push_back(word);
  }
  return join(kept, " ");
}

bool is_rescue(std::string_view release) {
  return release.find("rescue") != std::string_view::npos;
}

void sort_by_release(std::vector<Candidate>& candidates) {
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) {
                     return compare_versions(a.release, b.release) < 0;
                   });
}

// Rank of a character in a non-digit run: '~' before the end of the run, letters before the
// rest (dpkg's order).
int character_order(int c) {
  if (c == '~') return -1;
  if (c == 0) return 0;
  if (std::isalpha(c) != 0) return c;
  return c + 256;
}

}  // namespace

Result<std::vector<Candidate>> parse_candidate_list(std::string_view text,
                                                    const std::string& source) {
  std::vector<Candidate> candidates;
  std::set<std::string> names;
  const auto lines = split_lines(text);
  for (size_t index = 0; index < lines.size(); ++index) {
    const size_t line_number = index + 1;
    const std::string_view line = trim(lines[index]);
    if (line.empty() || line.front() == '#') continue;
    const auto words = split_quoted(line);
    if (!words) return line_error(source, line_number, "unterminated double quote");
    Candidate candidate;
    candidate.name = (*words)[0];
    if (candidate.name.find('=') != std::string::npos) {
      return line_error(source, line_number,
                        "a line starts with the candidate's name, not " + quote_value((*words)[0]));
    }
    std::set<std::string> seen_keys;
    for (size_t w = 1; w < words->size(); ++w) {
      const std::string& word = (*words)[w];
      const size_t equals = word.find('=');
      const std::string key = word.substr(0, equals);
      if (equals == std::string::npos) {
        return line_error(
            source, line_number,
            "expected kernel=, initrd= or append= after the name, not " + quote_value(word));
      }
      if (!seen_keys.insert(key).second) {
        return line_error(source, line_number, key + "= is given twice");
      }
      const std::string value = word.substr(equals + 1);
      if (key == "kernel") {
        candidate.kernel = value;
      } else if (key == "initrd") {
        candidate.initrd = value;
      } else if (key == "append") {
        candidate.append = value;
      } else if (key == "release") {
        candidate.release = value;
      } else {
        return line_error(source, line_number,
                          "unknown key " + quote_value(key) +
                              " (kernel=, initrd=, append= and release= are known)");
      }
      if (value.empty() && key != "append") {
        return line_error(source, line_number, key + "= has no value");
      }
    }
    if (!names.insert(candidate.name).second) {
      return line_error(source, line_number,
                        "candidate " + quote_value(candidate.name) + " is listed twice");
    }
    candidates.push_back(std::move(candidate));
  }
  if (candidates.empty()) return content_error(source + ": no candidate in the list");
  return candidates;
}

Result<std::vector<Candidate>> read_candidate_list(const std::string& path) {
  // A line per kernel: even a bisect over every release of a decade is a few tens of KB.
  constexpr size_t kMaxListBytes = size_t{1} << 20;
  auto text = read_whole_file(path, kMaxListBytes);
  if (!text) return text.error();
  return parse_candidate_list(*text, path);
}

std::string format_candidate_list(const std::vector<Candidate>& candidates) {
  std::string out;
  for (const Candidate& candidate : candidates) {
    out += quote_if_needed(candidate.name);
    if (!candidate.kernel.empty()) out += " kernel=" + quote_if_needed(candidate.kernel);
    if (!candidate.initrd.empty()) out += " initrd=" + quote_if_needed(candidate.initrd);
    if (!candidate.append.empty()) out += " append=" + quote_if_needed(candidate.append);
    if (!candidate.release.empty()) out += " release=" + quote_if_needed(candidate.release);
    out += "\n";
  }
  return out;
}

Result<std::vector<Candidate>> candidates_from_boot(const SysRoot& root) {
  auto entries = root.list("/boot");
  if (!entries) return entries.error();
  const std::set<std::string> files(entries->begin(), entries->end());
  const std::string append = boot_append(root);
  std::vector<Candidate> candidates;
  for (const std::string& file : files) {
    constexpr std::string_view kImage = "vmlinuz-";
    if (!starts_with(file, kImage)) continue;
    const std::string release = file.substr(kImage.size());
    if (release.empty() || is_rescue(release)) continue;
    Candidate candidate{release, "/boot/" + file, "", append, release, "", ""};
    for (const std::string& initrd :
         {"initrd.img-" + release, "initramfs-" + release + ".img", "initrd-" + release}) {
      if (files.contains(initrd)) {
        candidate.initrd = "/boot/" + initrd;
        break;
      }
    }
    candidates.push_back(std::move(candidate));
  }
  if (candidates.empty()) return content_error("/boot: no vmlinuz-<release> image");
  sort_by_release(candidates);
  return candidates;
}

Result<std::vector<Candidate>> candidates_from_bls(const SysRoot& root) {
  constexpr std::string_view kEntries = "/boot/loader/entries";
  auto files = root.list(kEntries);
  if (!files) return files.error();
  std::vector<Candidate> candidates;
  for (const std::string& file : *files) {
    if (!file.ends_with(".conf")) continue;
    const std::string path = std::string(kEntries) + "/" + file;
    auto text = root.read(path);
    if (!text) return text.error();
    std::map<std::string, std::string> keys;
    for (const std::string& raw : split_lines(*text)) {
      const std::string_view line = trim(raw);
      if (line.empty() || line.front() == '#') continue;
      const size_t space = line.find_first_of(" \t");
      const std::string key(line.substr(0, space));
      const std::string value =
          space == std::string_view::npos ? "" : std::string(trim(line.substr(space)));
      // initrd may repeat (microcode first); the last one is the kernel's own.
      keys[key] = value;
    }
    if (keys["linux"].empty()) return content_error(path + ": no linux line");
    const std::string stem = file.substr(0, file.size() - std::string_view(".conf").size());
    const std::string release = keys["version"].empty() ? stem : keys["version"];
    if (is_rescue(release) || is_rescue(stem)) continue;
    // BLS paths are relative to the partition holding the entries: /boot here.
    auto on_boot = [](const std::string& value) {
      if (value.empty() || starts_with(value, "/boot/")) return value;
      return "/boot" + (value.front() == '/' ? value : "/" + value);
    };
    candidates.push_back({release, on_boot(keys["linux"]), on_boot(keys["initrd"]), keys["options"],
                          release, "", ""});
  }
  if (candidates.empty()) return content_error(std::string(kEntries) + ": no boot entry");
  sort_by_release(candidates);
  return candidates;
}

int compare_versions(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t j = 0;
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() || j < b.size()) {
    // Non-digit run, character by character.
    while ((i < a.size() && !is_digit(a[i])) || (j < b.size() && !is_digit(b[j]))) {
      const int ca = i < a.size() && !is_digit(a[i]) ? character_order(a[i]) : 0;
      const int cb = j < b.size() && !is_digit(b[j]) ? character_order(b[j]) : 0;
      if (ca != cb) return ca < cb ? -1 : 1;
      if (i < a.size() && !is_digit(a[i])) ++i;
      if (j < b.size() && !is_digit(b[j])) ++j;
    }
    // Digit run, as numbers: skip leading zeros, then the longer run is the larger number.
    while (i < a.size() && a[i] == '0')
      ++i;
    while (j < b.size() && b[j] == '0')
      ++j;
    size_t end_a = i;
    size_t end_b = j;
    while (end_a < a.size() && is_digit(a[end_a]))
      ++end_a;
    while (end_b < b.size() && is_digit(b[end_b]))
      ++end_b;
    if (end_a - i != end_b - j) return end_a - i < end_b - j ? -1 : 1;
    const int digits = a.substr(i, end_a - i).compare(b.substr(j, end_b - j));
    if (digits != 0) return digits < 0 ? -1 : 1;
    i = end_a;
    j = end_b;
  }
  return 0;
}

}  // namespace kdrift
