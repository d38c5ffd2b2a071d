#pragma once
// The kernel log as /dev/kmsg hands it out: one record per line, "prio,seq,usec,flags;message",
// followed by optional " KEY=value" continuation lines (the record's device dictionary).

#include <string>
#include <string_view>
#include <vector>

namespace kdrift {

// The messages of the records, oldest first; continuation lines and lines that are not records
// are left out.
std::vector<std::string> kernel_log_messages(std::string_view records);

}  // namespace kdrift
