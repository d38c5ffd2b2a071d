#pragma once
// A whole snapshot: every collector run against one reader, each section independent, so a
// section that cannot be read degrades alone.

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

Json capture_snapshot(const SysRoot& root);

}  // namespace kdrift
