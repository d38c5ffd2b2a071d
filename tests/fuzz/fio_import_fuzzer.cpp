// Any bytes given to kdrift import-fio: importing either fails with an error naming the file, or
// yields a probe section that renders back as fio JSON and serialises without crashing.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "iobench/fio_import.h"
#include "report/fio_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kdrift;
  auto section =
      import_fio(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
  if (!section) {
    if (section.error().describe().rfind("fuzz.json", 0) != 0) __builtin_trap();
    return 0;
  }
  Json document = new_snapshot();
  document["probe"] = *section;
  (void)to_text(document);
  (void)render_fio_json(*section, "fuzz").dump();
  return 0;
}
