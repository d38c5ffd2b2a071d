#include "util/archive_tree.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include <memory>

#include "util/text.h"
#include "util/unique_fd.h"

namespace kdrift {
namespace {

struct ArchiveDeleter {
  void operator()(archive* handle) const { archive_read_free(handle); }
};
using ReaderPtr = std::unique_ptr<archive, ArchiveDeleter>;

// Filters backed by a linked library only: registering the others (lrzip, lzop, grzip, ...)
// makes libarchive run an external program on the stranger's bytes.
ReaderPtr new_reader() {
  ReaderPtr reader(archive_read_new());
  archive_read_support_filter_gzip(reader.get());
  archive_read_support_filter_xz(reader.get());
  archive_read_support_filter_lzma(reader.get());
  archive_read_support_filter_bzip2(reader.get());
  archive_read_support_filter_zstd(reader.get());
  archive_read_support_filter_lz4(reader.get());
  archive_read_support_format_tar(reader.get());
  return reader;
}

std::string type_name(mode_t type) {
  switch (type) {
    case AE_IFCHR:
      return "a character device";
    case AE_IFBLK:
      return "a block device";
    case AE_IFIFO:
      return "a FIFO";
    case AE_IFSOCK:
      return "a socket";
    default:
      return "of an unknown type";
  }
}

Error unreadable(archive* reader) {
  const char* message = archive_error_string(reader);
  return content_error(std::string("not a readable tar archive") +
                       (message != nullptr ? std::string(": ") + message : ""));
}

std::string parent_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

// Adds members one by one, refusing what a dump never holds; the first refusal ends the read.
class ArchiveTreeBuilder {
 public:
  ArchiveTreeBuilder(const ArchiveLimits& limits, const HoldPolicy& hold)
      : limits_(limits), hold_(hold) {}

  Result<ArchiveTree> read(archive* reader) {
    while (true) {
      archive_entry* entry = nullptr;
      const int status = archive_read_next_header(reader, &entry);
      if (status == ARCHIVE_EOF) return std::move(tree_);
      if (status != ARCHIVE_OK) return unreadable(reader);
      if (auto added = add(reader, entry); !added) return added.error();
    }
  }

 private:
  Error refuse(const std::string& why) const {
    return content_error("member " + quote_value(raw_name_) + ": " + why);
  }

  Status add(archive* reader, archive_entry* entry) {
    const char* name = archive_entry_pathname(entry);
    raw_name_ = name != nullptr ? name : "";
    if (++members_ > limits_.members) {
      return refuse("more than " + std::to_string(limits_.members) + " members");
    }
    const mode_t type = archive_entry_filetype(entry);
    if (names_top()) {
      // `tar -C root -czf dump.tar.gz .` starts with "./": the top, whose mode is never used.
      if (type == AE_IFDIR) return ok_status();
      return refuse("the archive's top is not a directory");
    }
    auto path = checked_name();
    if (!path) return path.error();
    if (auto parent = make_parents(*path); !parent) return parent.error();
    if (archive_entry_hardlink(entry) != nullptr) return refuse("a hard link");
    if (type == AE_IFDIR) return add_directory(*path);
    if (type == AE_IFLNK) return add_symlink(*path, archive_entry_symlink(entry));
    if (type == AE_IFREG) return add_file(reader, entry, *path);
    return refuse(type_name(type) + "; a dump holds only files, directories and symlinks");
  }

  // The name without the "./" that `tar -C DIR ... .` puts before every member.
  std::string_view relative_name() const {
    std::string_view name = raw_name_;
    while (name.substr(0, 2) == "./")
      name.remove_prefix(2);
    return name;
  }

  bool names_top() const {
    const auto name = relative_name();
    return name == "." || (name.empty() && !raw_name_.empty() && raw_name_.front() != '/');
  }

  // "a/b/" and "./a/b" -> "/a/b"; absolute names and "." or ".." components past the leading
  // "./" are refused, not cleaned up: neither kdrift nor tar writes them.
  Result<std::string> checked_name() const {
    std::string name(relative_name());
    while (!name.empty() && name.back() == '/')
      name.pop_back();
    if (name.empty()) return refuse("an empty name (or \"/\")");
    if (name.front() == '/') return refuse("an absolute name");
    if (name.size() >= PATH_MAX) return refuse("a name longer than PATH_MAX");
    const auto parts = split(name, '/');
    for (const auto& part : parts) {
      if (part.empty() || part == "." || part == "..") {
        return refuse("an empty, \".\" or \"..\" component in its name");
      }
    }
    if (parts.size() > limits_.depth) {
      return refuse(std::to_string(parts.size()) + " components deep, more than " +
                    std::to_string(limits_.depth));
    }
    return "/" + name;
  }

  // Parents a tar leaves out are directories; one named earlier as a file or symlink is a
  // conflict (the classic way to write through a symlink on extraction).
  Status make_parents(const std::string& path) {
    const std::string parent = parent_of(path);
    auto& nodes = tree_.nodes_;
    if (const auto it = nodes.find(parent); it != nodes.end()) {
      if (it->second.type == ArchiveTree::Node::Type::kDirectory) return ok_status();
      return refuse(quote_value(parent.substr(1)) + " is not a directory earlier in the archive");
    }
    if (auto made = make_parents(parent); !made) return made.error();
    nodes[parent_of(parent)].names.insert(parent.substr(parent.rfind('/') + 1));
    nodes[parent];
    return ok_status();
  }

  // A name given twice is refused unless the second says exactly what the first did (a
  // directory named again, or a file or symlink appended again with the same bytes, as
  // `tar -r` leaves it): then no reading of "last one wins" can make a replay differ from the
  // capture that wrote the dump.
  Result<ArchiveTree::Node*> insert(const std::string& path, ArchiveTree::Node::Type type,
                                    std::string data = {}, bool held = true) {
    auto [it, added] = tree_.nodes_.try_emplace(path);
    if (!added) {
      if (it->second.type == type && it->second.data == data && it->second.held == held) {
        return &it->second;
      }
      return refuse("named twice in the archive");
    }
    it->second.type = type;
    it->second.data = std::move(data);
    it->second.held = held;
    tree_.nodes_[parent_of(path)].names.insert(path.substr(path.rfind('/') + 1));
    return &it->second;
  }

  Status add_directory(const std::string& path) {
    auto node = insert(path, ArchiveTree::Node::Type::kDirectory);
    if (!node) return node.error();
    return ok_status();
  }

  Status add_symlink(const std::string& path, const char* target) {
    if (target == nullptr || *target == '\0') return refuse("a symlink without a target");
    const std::string_view text(target);
    if (text.size() >= PATH_MAX) return refuse("a symlink target longer than PATH_MAX");
    auto node = insert(path, ArchiveTree::Node::Type::kSymlink, std::string(text));
    if (!node) return node.error();
    return ok_status();
  }

  Status add_file(archive* reader, archive_entry* entry, const std::string& path) {
    const auto declared =
        archive_entry_size_is_set(entry) != 0 ? archive_entry_size(entry) : la_int64_t{0};
    if (hold_ && !hold_(path)) return skip_file(reader, path, std::max<la_int64_t>(declared, 0));
    if (auto fits = check_size(static_cast<uint64_t>(std::max<la_int64_t>(declared, 0))); !fits) {
      return fits.error();
    }
    std::string content;
    content.reserve(static_cast<size_t>(std::max<la_int64_t>(declared, 0)));
    char buffer[65536];
    while (true) {
      const auto got = archive_read_data(reader, buffer, sizeof buffer);
      if (got < 0) return unreadable(reader);
      if (got == 0) break;
      // Counted as read too: the header's size is the stranger's word.
      if (auto fits = check_size(content.size() + static_cast<uint64_t>(got)); !fits) {
        return fits.error();
      }
      content.append(buffer, static_cast<size_t>(got));
    }
    // Counted before insert() may find it a repetition: the bound is on what was read.
    total_bytes_ += content.size();
    auto node = insert(path, ArchiveTree::Node::Type::kFile, std::move(content));
    if (!node) return node.error();
    return ok_status();
  }

  // Only the header's size is known without decompressing: a member that lies about it is read
  // past by libarchive all the same, within what the stream holds.
  Status skip_file(archive* reader, const std::string& path, la_int64_t declared) {
    skipped_bytes_ += static_cast<uint64_t>(declared);
    if (skipped_bytes_ > limits_.skipped_bytes) {
      return refuse("brings the archive past " + std::to_string(limits_.skipped_bytes) +
                    " bytes of files not read");
    }
    if (archive_read_data_skip(reader) != ARCHIVE_OK) return unreadable(reader);
    auto node = insert(path, ArchiveTree::Node::Type::kFile, {}, /*held=*/false);
    if (!node) return node.error();
    return ok_status();
  }

  Status check_size(uint64_t size) const {
    if (size > limits_.member_bytes) {
      return refuse(std::to_string(size) + " bytes, more than the " +
                    std::to_string(limits_.member_bytes) + " a member may hold");
    }
    if (total_bytes_ + size > limits_.total_bytes) {
      return refuse("brings the archive past " + std::to_string(limits_.total_bytes) +
                    " bytes of content");
    }
    return ok_status();
  }

  const ArchiveLimits limits_;
  const HoldPolicy& hold_;
  ArchiveTree tree_;
  std::string raw_name_;
  size_t members_ = 0;
  uint64_t total_bytes_ = 0;
  uint64_t skipped_bytes_ = 0;
};

ArchiveTree::ArchiveTree() {
  nodes_["/"];
}

Result<ArchiveTree> ArchiveTree::read_file(const std::string& path, const ArchiveLimits& limits,
                                           const HoldPolicy& hold) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd) return make_error(errno, "open");
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return make_error(errno, "fstat");
  if (!S_ISREG(st.st_mode)) return content_error("not a regular file");
  auto reader = new_reader();
  if (archive_read_open_fd(reader.get(), fd.get(), 65536) != ARCHIVE_OK) {
    return unreadable(reader.get());
  }
  return ArchiveTreeBuilder(limits, hold).read(reader.get());
}

Result<ArchiveTree> ArchiveTree::read_bytes(std::string_view bytes, const ArchiveLimits& limits,
                                            const HoldPolicy& hold) {
  auto reader = new_reader();
  if (archive_read_open_memory(reader.get(), bytes.data(), bytes.size()) != ARCHIVE_OK) {
    return unreadable(reader.get());
  }
  return ArchiveTreeBuilder(limits, hold).read(reader.get());
}

const ArchiveTree::Node* ArchiveTree::find(std::string_view path) const {
  const auto it = nodes_.find(path);
  return it == nodes_.end() ? nullptr : &it->second;
}

}  // namespace kdrift
