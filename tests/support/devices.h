#pragma once
// Device identities as the probe's refusals see them, for tests that need no real device.

#include "iobench/device_users.h"

namespace kdrift::testing {

// A block device's identity: what fstat gives for /dev/<major:minor>.
FileIdentity block_identity(unsigned major, unsigned minor);

}  // namespace kdrift::testing
