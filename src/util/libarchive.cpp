#include "util/libarchive.h"

#include <dlfcn.h>

#include <string>

#include "util/fatal.h"

namespace kdrift {
namespace {

[[noreturn]] void cannot_load(const std::string& what) {
  const char* why = ::dlerror();
  throw FatalError(std::string("cannot load ") + kLibArchiveSoname + " (" + what +
                   "): " + (why != nullptr ? why : "unknown error") +
                   "; kdrift needs it to read and write archives and compressed files");
}

LibArchive load() {
  // RTLD_LOCAL: its symbols serve this table alone. The handle is never closed: the table
  // points into the library for the rest of the process.
  void* handle = ::dlopen(kLibArchiveSoname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) cannot_load("dlopen");
  LibArchive table;
#define KDRIFT_LIBARCHIVE_RESOLVE(name)                                     \
  table.name = reinterpret_cast<decltype(&::name)>(::dlsym(handle, #name)); \
  if (table.name == nullptr) cannot_load(#name);
  KDRIFT_LIBARCHIVE_FUNCTIONS(KDRIFT_LIBARCHIVE_RESOLVE)
#undef KDRIFT_LIBARCHIVE_RESOLVE
  return table;
}

}  // namespace

const LibArchive& libarchive() {
  static const LibArchive table = load();
  return table;
}

}  // namespace kdrift
