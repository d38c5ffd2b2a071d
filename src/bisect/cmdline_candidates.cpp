#include "bisect/cmdline_candidates.h"

#include <algorithm>
#include <map>

namespace kdrift {
namespace {

std::string key_of(const std::string& word) {
  return word.substr(0, word.find('='));
}

// Keys in order of first appearance, each with its words.
std::vector<std::pair<std::string, std::vector<std::string>>> grouped(std::string_view cmdline) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (std::string& word : kernel_cmdline_words(cmdline)) {
    const std::string key = key_of(word);
    auto found = std::find_if(groups.begin(), groups.end(),
                              [&](const auto& group) { return group.first == key; });
    if (found == groups.end()) {
      groups.push_back({key, {std::move(word)}});
    } else {
      found->second.push_back(std::move(word));
    }
  }
  return groups;
}

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words)
    text += (text.empty() ? "" : " ") + word;
  return text;
}

}  // namespace

std::vector<std::string> kernel_cmdline_words(std::string_view cmdline) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false;
  for (const char c : cmdline) {
    if (c == '"') quoted = !quoted;
    if (!quoted && (c == ' ' || c == '\t' || c == '\n')) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
      continue;
    }
    word += c;
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

std::vector<CmdlineChange> cmdline_changes(std::string_view good, std::string_view bad) {
  const auto before = grouped(good);
  const auto after = grouped(bad);
  auto find = [](const auto& groups, const std::string& key) {
    return std::find_if(groups.begin(), groups.end(),
                        [&](const auto& group) { return group.first == key; });
  };
  std::vector<CmdlineChange> changes;
  for (const auto& [key, words] : after) {
    const auto old = find(before, key);
    if (old != before.end() && old->second == words) continue;
    const char mark = old == before.end() ? '+' : '~';
    changes.push_back({key, words, mark + joined(words)});
  }
  for (const auto& [key, words] : before) {
    if (find(after, key) == after.end()) changes.push_back({key, {}, "-" + joined(words)});
  }
  return changes;
}

std::string apply_changes(std::string_view good, const std::vector<CmdlineChange>& changes) {
  auto groups = grouped(good);
  for (const CmdlineChange& change : changes) {
    auto found = std::find_if(groups.begin(), groups.end(),
                              [&](const auto& group) { return group.first == change.key; });
    if (found != groups.end()) {
      found->second = change.words;
    } else {
      groups.push_back({change.key, change.words});
    }
  }
  std::vector<std::string> words;
  for (auto& group : groups)
    words.insert(words.end(), group.second.begin(), group.second.end());
  return joined(words);
}

std::vector<Candidate> cmdline_candidates(std::string_view good, std::string_view bad,
                                          const Candidate& kernel) {
  const auto changes = cmdline_changes(good, bad);
  std::vector<Candidate> candidates;
  candidates.reserve(changes.size() + 1);
  auto add = [&](std::string name, std::size_t applied) {
    Candidate candidate = kernel;
    candidate.name = std::move(name);
    candidate.append = apply_changes(
        good, std::vector<CmdlineChange>(changes.begin(),
                                         changes.begin() + static_cast<std::ptrdiff_t>(applied)));
    candidates.push_back(std::move(candidate));
  };
  add("good-cmdline", 0);
  for (std::size_t i = 0; i < changes.size(); ++i)
    add(changes[i].label, i + 1);
  return candidates;
}

}  // namespace kdrift
