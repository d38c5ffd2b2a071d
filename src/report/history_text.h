#pragma once
// `kdrift history` as a person reads it: one row a recorded boot, marking where the kernel
// changed and which boot is this one (the document is history/boot_history.h's).

#include <string>

#include "snapshot/snapshot.h"

namespace kdrift {

std::string render_history_text(const Json& history);

}  // namespace kdrift
