#pragma once
// "Field: value [kB]" lines of /proc/meminfo and of /sys/devices/system/node/nodeN/meminfo,
// whose lines carry a "Node N " prefix.

#include <map>
#include <string>
#include <string_view>

#include "snapshot/snapshot.h"

namespace kdrift {

// Field name -> value text as written ("5859104 kB", "0").
using MeminfoFields = std::map<std::string, std::string, std::less<>>;

MeminfoFields parse_meminfo(std::string_view text);

// section[key] = the field in bytes when the kernel writes it in kB, as a plain count when it has
// no unit (HugePages_Total); otherwise records why not, naming path.
void put_meminfo_field(Json& section, std::string_view key, const MeminfoFields& fields,
                       std::string_view field, std::string_view path);

}  // namespace kdrift
