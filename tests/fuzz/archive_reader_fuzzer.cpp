// Any bytes given as capture --root X.tar.gz: reading them into memory either fails with an error
// value or yields a tree that a whole capture runs over (every collector, every symlink resolved
// inside the tree) without crashing, and whose snapshot serialises.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/capture.h"
#include "util/archive_backend.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kdrift;
  auto tree = ArchiveTree::read_bytes(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!tree) {
    if (tree.error().describe().empty()) __builtin_trap();
    return 0;
  }
  const SysRoot root("fuzz.tar.gz", std::make_shared<ArchiveBackend>(std::move(*tree)));
  (void)to_text(capture_snapshot(root));
  return 0;
}
