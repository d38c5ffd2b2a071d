#include "snapshot/redact.h"

#include <algorithm>
#include <cctype>

#include "snapshot/json_access.h"

namespace kdrift {
namespace {

// Keys whose string values identify one piece of hardware.
constexpr std::string_view kSerialKeys[] = {
    "serial",
    "serial_number",
    "product_serial",
    "board_serial",
    "chassis_serial",
    "product_uuid",
    "wwid",
    "wwn",
    "eui",
    "nguid",
    "uuid",
    "machine_id",
};

bool is_serial_key(std::string_view key) {
  return std::find(std::begin(kSerialKeys), std::end(kSerialKeys), key) != std::end(kSerialKeys);
}

bool is_hex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

bool is_uuid(std::string_view token) {
  if (token.size() != 36) return false;
  for (std::size_t i = 0; i < token.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? token[i] != '-' : !is_hex(token[i])) return false;
  }
  return true;
}

bool is_mac(std::string_view token) {
  if (token.size() != 17) return false;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (i % 3 == 2 ? token[i] != ':' : !is_hex(token[i])) return false;
  }
  return true;
}

bool is_ipv4(std::string_view token) {
  int parts = 0;
  std::size_t at = 0;
  while (at <= token.size()) {
    const auto end = std::min(token.find('.', at), token.size());
    const auto part = token.substr(at, end - at);
    if (part.empty() || part.size() > 3 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        std::stoi(std::string(part)) > 255) {
      return false;
    }
    ++parts;
    at = end + 1;
  }
  return parts == 4;
}

// Hex groups and colons with "::" or eight groups; PCI addresses (0000:01:00.0) and times have
// neither.
bool is_ipv6(std::string_view token) {
  const auto colons = std::count(token.begin(), token.end(), ':');
  if (colons < 2 || colons > 7) return false;
  if (token.find("::") == std::string_view::npos && colons != 7) return false;
  return std::all_of(token.begin(), token.end(), [](char c) { return is_hex(c) || c == ':'; });
}

bool token_char(char c) {
  return is_hex(c) || c == ':' || c == '.' || c == '-';
}

}  // namespace

std::string Redactor::pseudonym(const std::string& kind, const std::string& original) {
  const auto found = pseudonyms_.find(original);
  if (found != pseudonyms_.end()) return found->second;
  const std::string name = kind + "-" + std::to_string(++counts_[kind]);
  pseudonyms_.emplace(original, name);
  return name;
}

void Redactor::learn_values(const Json& node, const std::string& key) {
  if (node.is_object()) {
    for (const auto& [child_key, child] : node.items())
      learn_values(child, child_key);
  } else if (node.is_array()) {
    for (const auto& child : node)
      learn_values(child, key);
  } else if (node.is_string() && is_serial_key(key)) {
    const std::string value = node.get<std::string>();
    if (value.size() >= 3) literals_.emplace_back(value, "serial");
  }
}

void Redactor::learn(const Json& snapshot) {
  const Json* environment = object_member(snapshot, "environment");
  const std::string host = environment != nullptr ? text_member(*environment, "hostname") : "";
  // Names shorter than three characters would match inside ordinary words.
  if (host.size() >= 3 && host != "localhost") literals_.emplace_back(host, "host");
  learn_values(snapshot, "");
  std::sort(literals_.begin(), literals_.end(), [](const auto& x, const auto& y) {
    return x.first.size() != y.first.size() ? x.first.size() > y.first.size() : x < y;
  });
  literals_.erase(std::unique(literals_.begin(), literals_.end()), literals_.end());
}

std::string Redactor::redact_text(const std::string& text) {
  std::string out = text;
  for (const auto& [original, kind] : literals_) {
    for (auto at = out.find(original); at != std::string::npos;) {
      const std::string name = pseudonym(kind, original);
      out.replace(at, original.size(), name);
      at = out.find(original, at + name.size());
    }
  }
  std::string result;
  std::size_t at = 0;
  while (at < out.size()) {
    if (!token_char(out[at])) {
      result += out[at++];
      continue;
    }
    std::size_t end = at;
    while (end < out.size() && token_char(out[end]))
      ++end;
    std::string token = out.substr(at, end - at);
    // A sentence's full stop or a trailing separator is not part of the address.
    std::string tail;
    while (!token.empty() && (token.back() == '.' || token.back() == '-' ||
                              (token.back() == ':' && token.find("::") == std::string::npos))) {
      tail.insert(tail.begin(), token.back());
      token.pop_back();
    }
    if (is_uuid(token)) {
      result += pseudonym("uuid", token);
    } else if (is_mac(token)) {
      result += pseudonym("mac", token);
    } else if (is_ipv4(token) || is_ipv6(token)) {
      result += pseudonym("ip", token);
    } else {
      result += token;
    }
    result += tail;
    at = end;
  }
  return result;
}

Json Redactor::redact(const Json& document) {
  return redact_node(document, "");
}

void redact_snapshots(std::initializer_list<Json*> snapshots) {
  redact_snapshots(std::vector<Json*>(snapshots));
}

void redact_snapshots(const std::vector<Json*>& snapshots) {
  Redactor redactor;
  for (const Json* snapshot : snapshots) {
    if (snapshot != nullptr) redactor.learn(*snapshot);
  }
  for (Json* snapshot : snapshots) {
    if (snapshot != nullptr) *snapshot = redactor.redact(*snapshot);
  }
}

Json Redactor::redact_node(const Json& node, const std::string& key) {
  if (node.is_string()) {
    const std::string text = node.get<std::string>();
    if (key == "hostname") return pseudonym("host", text);
    if (is_serial_key(key)) return pseudonym("serial", text);
    // Version numbers look like IPv4 addresses ("1.0.0.3") and identify no one.
    if (key == "firmware_rev" || key == "version" || key == "release") return text;
    return redact_text(text);
  }
  if (node.is_array()) {
    Json out = Json::array();
    for (const auto& item : node)
      out.push_back(redact_node(item, key));
    return out;
  }
  if (!node.is_object()) return node;
  Json out = Json::object();
  for (const auto& [child_key, value] : node.items()) {
    out[redact_text(child_key)] = redact_node(value, child_key);
  }
  return out;
}

}  // namespace kdrift
