#pragma once
// --redact: snapshots that can be pasted into a public bug report. Host names, serial numbers
// (and WWIDs, EUIs, DMI UUIDs), MAC and IP addresses and UUIDs are replaced wherever they occur,
// in values, in object keys and inside longer strings (kernel log lines, the command line), by
// pseudonyms: host-1, serial-1, mac-1, ip-1, uuid-1. One Redactor gives the same value the same
// pseudonym in every snapshot it redacts, so a diff of two redacted snapshots still pairs the same
// device and still sees a changed UUID as changed.

#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "snapshot/snapshot.h"

namespace kdrift {

class Redactor {
 public:
  // Learns the identifying values of a snapshot (host name, serials) before any is redacted, so
  // that a value known from one snapshot is caught inside strings of the other.
  void learn(const Json& snapshot);
  Json redact(const Json& document);

 private:
  std::string pseudonym(const std::string& kind, const std::string& original);
  std::string redact_text(const std::string& text);
  Json redact_node(const Json& node, const std::string& key);
  void learn_values(const Json& node, const std::string& key);

  std::map<std::string, std::string> pseudonyms_;              // original -> pseudonym
  std::map<std::string, int> counts_;                          // kind -> pseudonyms handed out
  std::vector<std::pair<std::string, std::string>> literals_;  // (original, kind), longest first
};

// Redacts every snapshot given (null pointers skipped) with one Redactor that has learned them all.
void redact_snapshots(std::initializer_list<Json*> snapshots);
void redact_snapshots(const std::vector<Json*>& snapshots);

}  // namespace kdrift
