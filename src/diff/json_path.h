#pragma once
// Paths into a snapshot, as rules, evidence and the structured diff name them:
//   iommu.devices[device].mode        the array iommu.devices, each element named by its "device"
//   block.devices.*.queue.nomerges    every member of block.devices
//   sysctl."kernel.io_uring_disabled" a key that contains dots
// A concrete path names one value (iommu.devices[nvme0n1].mode); a pattern may use * and [field]
// to name many. Arrays are matched by an identifying field rather than by position so that the
// same device is compared with itself when two hosts list devices in another order.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

// One step of a concrete path: an object member, or an array element (name[label]).
struct PathStep {
  std::string key;
  bool element = false;  // key is then the element's label (its identifying field, or index)

  bool operator==(const PathStep&) const = default;
};
using ConcretePath = std::vector<PathStep>;

std::string render_path(const ConcretePath& path);

// A value found by a pattern: where it is, which wildcard keys led to it, and the value itself.
struct PathHit {
  ConcretePath path;
  std::string subject;  // the keys the wildcards took, joined by "/" (empty without wildcards)
  const Json* value = nullptr;
};

class PathPattern {
 public:
  // An empty text is the empty pattern: it names the value it is resolved from.
  static Result<PathPattern> parse(std::string_view text);

  // Every value the pattern names under root, in document order. Missing keys give no hit.
  std::vector<PathHit> resolve(const Json& root) const;

  // Whether a concrete path (or a path below it, when prefix is true) is named by this pattern.
  bool matches(const ConcretePath& path, bool prefix = false) const;

  // Why the pattern names nothing under root where the snapshot says so: a key it needs is
  // absent and named in its object's "unavailable" map (unknown_reason). The first such reason
  // along the pattern; none when nothing it needs is unknown.
  std::optional<std::string> unknown_reason(const Json& root) const;

  // The pattern without its last segment (the empty pattern for a single segment).
  PathPattern parent() const;

  bool has_wildcards() const;
  bool empty() const { return segments_.empty(); }
  const std::string& text() const { return text_; }

 private:
  struct Segment {
    enum class Kind { kKey, kAnyMember, kKeyedArray };
    Kind kind = Kind::kKey;
    std::string name;   // the key (kKey, kKeyedArray)
    std::string field;  // kKeyedArray: the field naming each element
  };
  void resolve_from(const Json& node, std::size_t index, PathHit hit,
                    std::vector<PathHit>& hits) const;
  std::optional<std::string> unknown_from(const Json& node, std::size_t index) const;

  std::vector<Segment> segments_;
  std::string text_;
};

// Why `key` of `object` is unknown: its entry in the object's "unavailable" map (collectors write
// it, docs/snapshot.md), or that of "*" (nothing of the object could be listed); none when the
// object does not say it is unknown.
std::optional<std::string> unknown_reason(const Json& object, std::string_view key);

// The label an array element gets: its identifying field's value as text, or its index.
std::string element_label(const Json& element, const std::string& field, std::size_t index);

// Appends a resolved relative hit to the hit it was resolved from.
PathHit join_hits(const PathHit& outer, const PathHit& inner);

}  // namespace kdrift
