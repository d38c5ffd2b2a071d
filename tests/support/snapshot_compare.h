#pragma once

#include "snapshot/snapshot.h"

namespace kdrift::testing {

// The snapshot without its capture-meta section (timings, root path): what two captures of the
// same files must agree on.
Json file_derived(Json snapshot);

}  // namespace kdrift::testing
