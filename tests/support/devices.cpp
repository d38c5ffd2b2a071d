#include "support/devices.h"

#include <sys/sysmacros.h>

namespace kdrift::testing {

FileIdentity block_identity(unsigned major, unsigned minor) {
  FileIdentity identity;
  identity.block = true;
  identity.rdev = makedev(major, minor);
  return identity;
}

}  // namespace kdrift::testing
