#include "support/snapshot_compare.h"

namespace kdrift::testing {

Json file_derived(Json snapshot) {
  snapshot.erase(std::string(kCaptureMetaSection));
  return snapshot;
}

}  // namespace kdrift::testing
