#include "support/accuracy_cases.h"

#include <toml++/toml.h>

#include <algorithm>

#include "support/fixtures.h"

namespace kdrift::testing {
namespace {

Json json_of(const toml::node& node) {
  if (const auto* table = node.as_table()) {
    Json object = Json::object();
    for (const auto& [key, value] : *table)
      object[std::string(key.str())] = json_of(value);
    return object;
  }
  if (const auto* array = node.as_array()) {
    Json list = Json::array();
    for (const auto& item : *array)
      list.push_back(json_of(item));
    return list;
  }
  if (const auto* text = node.as_string()) return text->get();
  if (const auto* number = node.as_integer()) return number->get();
  if (const auto* number = node.as_floating_point()) return number->get();
  if (const auto* flag = node.as_boolean()) return flag->get();
  return nullptr;
}

}  // namespace

AccuracyCase load_accuracy_case(const std::filesystem::path& file,
                                const CaseSnapshots& snapshot_of) {
  const toml::table document = toml::parse_file(file.string());
  AccuracyCase loaded;
  loaded.name = file.stem().string();
  loaded.description = document["description"].value_or(std::string());
  loaded.a = snapshot_of(document["a"].value_or(std::string()));
  loaded.b = snapshot_of(document["b"].value_or(std::string()));
  loaded.top = document["top"].value_or(std::string());
  if (const auto* edits = document["edit"].as_array()) {
    for (const auto& edit : *edits) {
      const auto& table = *edit.as_table();
      Json& side = table["side"].value_or(std::string()) == "a" ? loaded.a : loaded.b;
      side[Json::json_pointer(table["pointer"].value_or(std::string()))] =
          json_of(*table.get("value"));
    }
  }
  return loaded;
}

std::vector<std::filesystem::path> accuracy_case_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(source_dir() + "/tests/fixtures/cases")) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace kdrift::testing
