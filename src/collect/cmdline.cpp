#include "collect/cmdline.h"

#include "util/text.h"

namespace kdrift {
namespace {

// Splits like the kernel's next_arg(): a quote toggles quoting anywhere in a word and is dropped.
std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::string current;
  bool in_word = false;
  bool quoted = false;
  for (const char c : text) {
    if (c == '"') {
      quoted = !quoted;
      in_word = true;
      continue;
    }
    if (!quoted && (c == ' ' || c == '\t' || c == '\n')) {
      if (in_word) words.push_back(std::move(current));
      current.clear();
      in_word = false;
      continue;
    }
    current += c;
    in_word = true;
  }
  if (in_word) words.push_back(std::move(current));
  return words;
}

}  // namespace

Cmdline parse_cmdline(std::string_view text) {
  Cmdline cmdline;
  bool after_separator = false;
  for (auto& word : split_words(text)) {
    if (after_separator) {
      cmdline.init_args.push_back(std::move(word));
      continue;
    }
    if (word == "--") {
      after_separator = true;
      continue;
    }
    CmdlineParam param;
    const auto equals = word.find('=');
    param.key = word.substr(0, equals);
    if (equals != std::string::npos) param.value = word.substr(equals + 1);
    const auto dot = param.key.find('.');
    if (dot != std::string::npos && dot > 0 && dot + 1 < param.key.size()) {
      param.module = param.key.substr(0, dot);
    }
    cmdline.params.push_back(std::move(param));
  }
  return cmdline;
}

Json cmdline_to_json(std::string_view raw, const Cmdline& cmdline) {
  Json params = Json::array();
  Json effective = Json::object();
  for (const auto& param : cmdline.params) {
    Json entry = {{"key", param.key}};
    if (param.value) entry["value"] = *param.value;
    if (!param.module.empty()) entry["module"] = param.module;
    params.push_back(std::move(entry));
    effective[param.key] = param.value ? Json(*param.value) : Json(true);
  }
  return {{"raw", std::string(trim(raw))},
          {"params", std::move(params)},
          {"effective", std::move(effective)},
          {"init_args", cmdline.init_args}};
}

}  // namespace kdrift
