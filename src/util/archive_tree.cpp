#include "util/archive_tree.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "util/libarchive.h"
#include "util/text.h"
#include "util/unique_fd.h"
#include "util/units.h"

namespace kdrift {
namespace {

// What the tar reader is handed per call: a bound on how far a read can overshoot the limits.
constexpr size_t kFeedBytes = 65536;

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

  // The tar format only, and no filter: the stream is the one layer of compression undone.
  Result<ArchiveTree> read(DecompressedStream& stream) {
    stream_ = &stream;
    in_header_ = true;  // opening reads the first header's bytes
    ArchiveReadPtr reader(libarchive().archive_read_new());
    libarchive().archive_read_support_format_tar(reader.get());
    if (libarchive().archive_read_open(reader.get(), this, nullptr, &ArchiveTreeBuilder::pull,
                                       nullptr) != ARCHIVE_OK) {
      return unreadable(reader.get());
    }
    while (true) {
      archive_entry* entry = nullptr;
      in_header_ = true;
      header_start_ = decompressed_;
      const int status = libarchive().archive_read_next_header(reader.get(), &entry);
      in_header_ = false;
      if (status == ARCHIVE_EOF) return std::move(tree_);
      if (status != ARCHIVE_OK) return unreadable(reader.get());
      if (auto added = add(reader.get(), entry); !added) return added.error();
    }
  }

 private:
  static la_ssize_t pull(archive* reader, void* client, const void** buffer) {
    auto* self = static_cast<ArchiveTreeBuilder*>(client);
    auto piece = self->next_piece();
    if (!piece) {
      libarchive().archive_set_error(reader, piece.error().code, "%s",
                                     piece.error().context.c_str());
      self->stream_error_ = piece.error();
      return -1;
    }
    *buffer = piece->data();
    return static_cast<la_ssize_t>(piece->size());
  }

  Result<std::string_view> next_piece() {
    if (pending_.empty()) {
      auto chunk = stream_->next();
      if (!chunk) return in_member(chunk.error());
      pending_ = *chunk;
    }
    const auto piece = pending_.substr(0, kFeedBytes);
    pending_.remove_prefix(piece.size());
    if (auto within = charge(piece.size()); !within) return within.error();
    return piece;
  }

  // Every byte the decompressor produced and every zero of a sparse hole kdrift wrote.
  Status charge(uint64_t bytes) {
    decompressed_ += bytes;
    if (decompressed_ > limits_.decompressed_bytes) {
      return refuse_here("brings the archive past " + describe_bytes(limits_.decompressed_bytes) +
                         " decompressed, the most kdrift reads of one archive");
    }
    if (in_header_ && decompressed_ - header_start_ > limits_.header_bytes) {
      return refuse_here("its headers (names, pax records, sparse map) take more than " +
                         describe_bytes(limits_.header_bytes));
    }
    return ok_status();
  }

  // Within a header the member is not named yet: the one before it is.
  Error refuse_here(const std::string& why) const {
    if (!in_header_) return refuse(why);
    if (members_ == 0) return content_error("the first member: " + why);
    return content_error("the member after " + quote_value(raw_name_) + ": " + why);
  }

  // A decompression error met within a member's data (a later xz block asking for more memory,
  // corrupt data) names the member.
  Error in_member(Error error) const {
    if (!in_header_) error.context = "member " + quote_value(raw_name_) + ": " + error.context;
    return error;
  }

  Error unreadable(archive* reader) const {
    if (stream_error_) return *stream_error_;
    const char* message = libarchive().archive_error_string(reader);
    return content_error(std::string("not a readable tar archive") +
                         (message != nullptr ? std::string(": ") + message : ""));
  }

  Error refuse(const std::string& why) const {
    return content_error("member " + quote_value(raw_name_) + ": " + why);
  }

  Status add(archive* reader, archive_entry* entry) {
    const char* name = libarchive().archive_entry_pathname(entry);
    raw_name_ = name != nullptr ? name : "";
    if (++members_ > limits_.members) {
      return refuse("more than " + std::to_string(limits_.members) + " members");
    }
    const mode_t type = libarchive().archive_entry_filetype(entry);
    if (names_top()) {
      // `tar -C root -czf dump.tar.gz .` starts with "./": the top, whose mode is never used.
      if (type == AE_IFDIR) return ok_status();
      return refuse("the archive's top is not a directory");
    }
    auto path = checked_name();
    if (!path) return path.error();
    if (auto parent = make_parents(*path); !parent) return parent.error();
    if (libarchive().archive_entry_hardlink(entry) != nullptr) return refuse("a hard link");
    if (type == AE_IFDIR) return add_directory(*path);
    if (type == AE_IFLNK) return add_symlink(*path, libarchive().archive_entry_symlink(entry));
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
    if (hold_ && !hold_(path)) return skip_file(reader, path);
    const auto declared = libarchive().archive_entry_size_is_set(entry) != 0
                              ? libarchive().archive_entry_size(entry)
                              : la_int64_t{0};
    if (auto fits = check_size(static_cast<uint64_t>(std::max<la_int64_t>(declared, 0))); !fits) {
      return fits.error();
    }
    auto content = read_content(reader, static_cast<size_t>(std::max<la_int64_t>(declared, 0)));
    if (!content) return content.error();
    // Counted before insert() may find it a repetition: the bound is on what was read.
    total_bytes_ += content->size();
    auto node = insert(path, ArchiveTree::Node::Type::kFile, std::move(*content));
    if (!node) return node.error();
    return ok_status();
  }

  // Block by block, each at its offset: the gaps a sparse member leaves (and the one up to its
  // size) are zeros written here, checked against the limits from the offset before a byte of
  // them is, and charged as decompressed. Counted as read, not as declared: the header's size is
  // the stranger's word.
  Result<std::string> read_content(archive* reader, size_t declared) {
    std::string content;
    content.reserve(declared);
    while (true) {
      const void* block = nullptr;
      size_t size = 0;
      la_int64_t offset = 0;
      const int status = libarchive().archive_read_data_block(reader, &block, &size, &offset);
      if (status != ARCHIVE_OK && status != ARCHIVE_EOF) return unreadable(reader);
      const bool ended = status == ARCHIVE_EOF;
      if (offset < 0 || (!ended && static_cast<uint64_t>(offset) < content.size())) {
        return refuse("sparse blocks out of order");
      }
      const uint64_t start = std::max<uint64_t>(static_cast<uint64_t>(offset), content.size());
      if (auto fits = check_size(start + (ended ? 0 : size)); !fits) return fits.error();
      if (auto hole = charge(start - content.size()); !hole) return hole.error();
      content.resize(start, '\0');
      if (ended) return content;
      content.append(static_cast<const char*>(block), size);
    }
  }

  // Only what the decompressor produces is counted (by next_piece): the header's size, or the
  // sparse map's, is the stranger's word, and libarchive skips past what the header says.
  Status skip_file(archive* reader, const std::string& path) {
    if (libarchive().archive_read_data_skip(reader) != ARCHIVE_OK) return unreadable(reader);
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
  DecompressedStream* stream_ = nullptr;
  std::string_view pending_;  // of the stream's last chunk, not yet handed to the tar reader
  std::optional<Error> stream_error_;
  uint64_t decompressed_ = 0;
  bool in_header_ = false;
  uint64_t header_start_ = 0;  // decompressed_ when the header being read began
};

ArchiveTree::ArchiveTree() {
  nodes_["/"];
}

namespace {

Result<ArchiveTree> read_input(CompressedInput input, const ArchiveLimits& limits,
                               const HoldPolicy& hold) {
  auto stream = open_decompressed(std::move(input), limits.decoder_memory);
  if (!stream) return stream.error();
  return ArchiveTreeBuilder(limits, hold).read(**stream);
}

}  // namespace

Result<ArchiveTree> ArchiveTree::read_file(const std::string& path, const ArchiveLimits& limits,
                                           const HoldPolicy& hold) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd) return make_error(errno, "open");
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return make_error(errno, "fstat");
  if (!S_ISREG(st.st_mode)) return content_error("not a regular file");
  auto input = CompressedInput::of_file(fd.get());
  if (!input) return input.error();
  return read_input(std::move(*input), limits, hold);
}

Result<ArchiveTree> ArchiveTree::read_bytes(std::string_view bytes, const ArchiveLimits& limits,
                                            const HoldPolicy& hold) {
  return read_input(CompressedInput::of_bytes(bytes), limits, hold);
}

const ArchiveTree::Node* ArchiveTree::find(std::string_view path) const {
  const auto it = nodes_.find(path);
  return it == nodes_.end() ? nullptr : &it->second;
}

}  // namespace kdrift
