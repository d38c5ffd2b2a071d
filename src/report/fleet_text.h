#pragma once
// The fleet document (docs/fleet.md, kdrift.fleet/1) for people: the outliers first, each with
// the facts it differs in and the findings the rules gave against its reference, then the
// canary/control comparison, the peer groups, the fingerprint groups and the settings that split
// the fleet. Every value from a snapshot is made terminal-safe.

#include <string>

#include "snapshot/snapshot.h"

namespace kdrift {

std::string render_fleet_text(const Json& fleet);

}  // namespace kdrift
