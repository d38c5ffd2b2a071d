#pragma once
// Whether this host lets a process set up the asynchronous interfaces the probe drives, asked
// the cheapest way (a two-entry ring, a one-event aio context, torn down at once): for
// `kdrift --version --verbose`, before anyone runs a probe that would fail on them.

#include <string>

#include "util/result.h"

namespace kdrift {

// "features 0x..., N of M opcodes", or the io_uring_setup error.
Result<std::string> io_uring_support();
// "io_setup works", or the io_setup error.
Result<std::string> libaio_support();

}  // namespace kdrift
