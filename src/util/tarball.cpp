#include "util/tarball.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <ctime>
#include <memory>

namespace kdrift {
namespace {

struct ArchiveDeleter {
  void operator()(archive* handle) const { archive_free(handle); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveDeleter>;

struct EntryDeleter {
  void operator()(archive_entry* entry) const { archive_entry_free(entry); }
};
using EntryPtr = std::unique_ptr<archive_entry, EntryDeleter>;

la_ssize_t append_to_string(archive* /*handle*/, void* sink, const void* buffer, size_t length) {
  static_cast<std::string*>(sink)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

Error archive_failure(archive* handle, const std::string& what) {
  const char* message = archive_error_string(handle);
  return make_error(archive_errno(handle),
                    what + (message != nullptr ? std::string(": ") + message : ""));
}

}  // namespace

Result<std::string> make_tar_gz(const std::vector<TarMember>& members) {
  ArchivePtr writer(archive_write_new());
  archive_write_add_filter_gzip(writer.get());
  archive_write_set_format_pax_restricted(writer.get());
  std::string bytes;
  if (archive_write_open(writer.get(), &bytes, nullptr, append_to_string, nullptr) != ARCHIVE_OK) {
    return archive_failure(writer.get(), "start archive");
  }
  const time_t now = std::time(nullptr);
  for (const auto& member : members) {
    EntryPtr entry(archive_entry_new());
    archive_entry_set_pathname(entry.get(), member.path.c_str());
    archive_entry_set_mtime(entry.get(), now, 0);
    switch (member.type) {
      case TarMember::Type::kFile:
        archive_entry_set_filetype(entry.get(), AE_IFREG);
        archive_entry_set_perm(entry.get(), 0644);
        archive_entry_set_size(entry.get(), static_cast<la_int64_t>(member.data.size()));
        break;
      case TarMember::Type::kDirectory:
        archive_entry_set_filetype(entry.get(), AE_IFDIR);
        archive_entry_set_perm(entry.get(), 0755);
        break;
      case TarMember::Type::kSymlink:
        archive_entry_set_filetype(entry.get(), AE_IFLNK);
        archive_entry_set_perm(entry.get(), 0777);
        archive_entry_set_symlink(entry.get(), member.data.c_str());
        break;
    }
    if (archive_write_header(writer.get(), entry.get()) != ARCHIVE_OK) {
      return archive_failure(writer.get(), "add " + member.path);
    }
    if (member.type == TarMember::Type::kFile && !member.data.empty() &&
        archive_write_data(writer.get(), member.data.data(), member.data.size()) < 0) {
      return archive_failure(writer.get(), "write " + member.path);
    }
  }
  if (archive_write_close(writer.get()) != ARCHIVE_OK) {
    return archive_failure(writer.get(), "finish archive");
  }
  return bytes;
}

Status extract_tar_gz(const std::string& archive_path, const std::string& destination) {
  ArchivePtr reader(archive_read_new());
  archive_read_support_filter_gzip(reader.get());
  archive_read_support_format_tar(reader.get());
  ArchivePtr disk(archive_write_disk_new());
  archive_write_disk_set_options(disk.get(), ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                                                 ARCHIVE_EXTRACT_SECURE_SYMLINKS |
                                                 ARCHIVE_EXTRACT_PERM);
  if (archive_read_open_filename(reader.get(), archive_path.c_str(), 65536) != ARCHIVE_OK) {
    return archive_failure(reader.get(), archive_path);
  }
  while (true) {
    archive_entry* entry = nullptr;
    const int status = archive_read_next_header(reader.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status != ARCHIVE_OK) return archive_failure(reader.get(), archive_path);
    const std::string name = archive_entry_pathname(entry);
    // Checked here because the destination prefix makes every path absolute for libarchive.
    if (name.empty() || name.front() == '/') {
      return make_error(EINVAL, archive_path + ": member \"" + name + "\" has an absolute path");
    }
    const auto type = archive_entry_filetype(entry);
    if ((type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK) ||
        archive_entry_hardlink(entry) != nullptr) {
      return make_error(
          EINVAL, archive_path + ": member \"" + name + "\" is not a file, directory or symlink");
    }
    const std::string target = destination + "/" + name;
    archive_entry_set_pathname(entry, target.c_str());
    if (archive_write_header(disk.get(), entry) != ARCHIVE_OK) {
      return archive_failure(disk.get(), archive_path + ": unpack " + target);
    }
    const void* block = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    int data_status = ARCHIVE_OK;
    while ((data_status = archive_read_data_block(reader.get(), &block, &size, &offset)) ==
           ARCHIVE_OK) {
      if (archive_write_data_block(disk.get(), block, size, offset) != ARCHIVE_OK) {
        return archive_failure(disk.get(), archive_path + ": write " + target);
      }
    }
    if (data_status != ARCHIVE_EOF) return archive_failure(reader.get(), archive_path);
    if (archive_write_finish_entry(disk.get()) != ARCHIVE_OK) {
      return archive_failure(disk.get(), archive_path + ": finish " + target);
    }
  }
  return ok_status();
}

}  // namespace kdrift
