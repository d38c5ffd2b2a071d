#include "util/tarball.h"

#include <ctime>
#include <memory>

#include "util/libarchive.h"

namespace kdrift {
namespace {

struct ArchiveDeleter {
  void operator()(archive* handle) const { libarchive().archive_free(handle); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveDeleter>;

struct EntryDeleter {
  void operator()(archive_entry* entry) const { libarchive().archive_entry_free(entry); }
};
using EntryPtr = std::unique_ptr<archive_entry, EntryDeleter>;

la_ssize_t append_to_string(archive* /*handle*/, void* sink, const void* buffer, size_t length) {
  static_cast<std::string*>(sink)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

Error archive_failure(archive* handle, const std::string& what) {
  const char* message = libarchive().archive_error_string(handle);
  return make_error(libarchive().archive_errno(handle),
                    what + (message != nullptr ? std::string(": ") + message : ""));
}

}  // namespace

Result<std::string> make_tar_gz(const std::vector<TarMember>& members) {
  const LibArchive& la = libarchive();
  ArchivePtr writer(la.archive_write_new());
  la.archive_write_add_filter_gzip(writer.get());
  la.archive_write_set_format_pax_restricted(writer.get());
  std::string bytes;
  if (la.archive_write_open(writer.get(), &bytes, nullptr, append_to_string, nullptr) !=
      ARCHIVE_OK) {
    return archive_failure(writer.get(), "start archive");
  }
  const time_t now = std::time(nullptr);
  for (const auto& member : members) {
    EntryPtr entry(la.archive_entry_new());
    la.archive_entry_set_pathname(entry.get(), member.path.c_str());
    la.archive_entry_set_mtime(entry.get(), now, 0);
    switch (member.type) {
      case TarMember::Type::kFile:
        la.archive_entry_set_filetype(entry.get(), AE_IFREG);
        la.archive_entry_set_perm(entry.get(), 0644);
        la.archive_entry_set_size(entry.get(), static_cast<la_int64_t>(member.data.size()));
        break;
      case TarMember::Type::kDirectory:
        la.archive_entry_set_filetype(entry.get(), AE_IFDIR);
        la.archive_entry_set_perm(entry.get(), 0755);
        break;
      case TarMember::Type::kSymlink:
        la.archive_entry_set_filetype(entry.get(), AE_IFLNK);
        la.archive_entry_set_perm(entry.get(), 0777);
        la.archive_entry_set_symlink(entry.get(), member.data.c_str());
        break;
    }
    if (la.archive_write_header(writer.get(), entry.get()) != ARCHIVE_OK) {
      return archive_failure(writer.get(), "add " + member.path);
    }
    if (member.type == TarMember::Type::kFile && !member.data.empty() &&
        la.archive_write_data(writer.get(), member.data.data(), member.data.size()) < 0) {
      return archive_failure(writer.get(), "write " + member.path);
    }
  }
  if (la.archive_write_close(writer.get()) != ARCHIVE_OK) {
    return archive_failure(writer.get(), "finish archive");
  }
  return bytes;
}

}  // namespace kdrift
