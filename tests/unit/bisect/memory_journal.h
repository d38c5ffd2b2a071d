#pragma once
// What the bisect loops' tests share: an in-memory journal replayed like the real one, and a
// bisect over candidates k0..kN-1 (the last one bad) with release rI for candidate kI.

#include <string>
#include <utility>
#include <vector>

#include "bisect/step_loop.h"

namespace kdrift::bisect_test {

class MemoryJournal : public StepJournal {
 public:
  explicit MemoryJournal(const BisectStart& start) : events({start_event(start)}) {}
  Result<Session> record(const Json& event) override {
    events.push_back(event);
    return replay(events, "journal");
  }
  Session session() const { return *replay(events, "journal"); }
  std::vector<Json> events;
};

inline BisectStart start_for(std::size_t count, BisectMetric metric, const std::string& mode) {
  BisectStart start;
  start.id = "b7";
  for (std::size_t i = 0; i < count; ++i) {
    start.candidates.push_back({"k" + std::to_string(i), "/k/vmlinuz-" + std::to_string(i), "", "",
                                "r" + std::to_string(i), "", ""});
  }
  start.bad = count - 1;
  start.metric = std::move(metric);
  start.mode = mode;
  if (mode == "reboot") start.loader = {"grub", "/boot/grub"};
  start.target = "/dev/test";
  const bool declared = !std::holds_alternative<ProbeMetric>(start.metric);
  start.config.declared = declared;
  start.config.verify_endpoints = declared;
  start.config.reference_samples = 10;
  return start;
}

}  // namespace kdrift::bisect_test
