#include "collect/pci_ids.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <optional>

#include "util/gzip.h"
#include "util/input_file.h"
#include "util/unique_fd.h"

namespace kdrift {
namespace {

constexpr size_t kMaxBytes = size_t{64} << 20;
// pci_lookup_name's buffers in kdrift: a longer name ends in "..." within them.
constexpr size_t kVendorBytes = 128;
constexpr size_t kDeviceBytes = 256;
constexpr size_t kClassBytes = 128;

struct Line {
  std::string_view text;  // without the line end and one trailing blank, as libpci reads it
  size_t next = 0;        // offset of the following line
};

bool blank(char c) {
  return c == ' ' || c == '\t';
}

Line line_at(std::string_view all, size_t offset) {
  size_t end = all.find('\n', offset);
  const size_t next = end == std::string_view::npos ? all.size() : end + 1;
  if (end == std::string_view::npos) end = all.size();
  std::string_view text = all.substr(offset, end - offset);
  if (const size_t cr = text.find('\r'); cr != std::string_view::npos) text = text.substr(0, cr);
  if (!text.empty() && blank(text.back())) text.remove_suffix(1);
  return {text, next};
}

// Comments and blank lines belong to no block and end none.
bool ignored(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t");
  return first == std::string_view::npos || text[first] == '#';
}

size_t tabs(std::string_view text) {
  const size_t first = text.find_first_not_of('\t');
  return first == std::string_view::npos ? text.size() : first;
}

std::optional<uint16_t> hex_id(std::string_view text, size_t digits) {
  if (text.size() <= digits || !blank(text[digits])) return std::nullopt;
  unsigned value = 0;
  for (size_t i = 0; i < digits; ++i) {
    const char c = text[i];
    unsigned digit = 0;
    if (c >= '0' && c <= '9') {
      digit = static_cast<unsigned>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      digit = static_cast<unsigned>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      digit = static_cast<unsigned>(c - 'A' + 10);
    } else {
      return std::nullopt;
    }
    value = value * 16 + digit;
  }
  return static_cast<uint16_t>(value);
}

// The name after an id of digits and its blanks; empty (no entry) when there is none.
std::string_view name_after(std::string_view text, size_t digits) {
  text.remove_prefix(digits);
  const size_t first = text.find_first_not_of(" \t");
  return first == std::string_view::npos ? std::string_view() : text.substr(first);
}

std::string fitted(std::string_view name, size_t buffer) {
  if (name.size() < buffer) return std::string(name);
  return std::string(name.substr(0, buffer - 4)) + "...";
}

}  // namespace

PciIdDatabase::PciIdDatabase(std::shared_ptr<const void> storage, std::string_view text)
    : storage_(std::move(storage)), text_(text) {
  for (size_t offset = 0; offset < text_.size();) {
    if (text_[offset] == '\t') {  // nine lines in ten are nested ones: only their end is sought
      const size_t end = text_.find('\n', offset);
      offset = end == std::string_view::npos ? text_.size() : end + 1;
      continue;
    }
    const Line line = line_at(text_, offset);
    offset = line.next;
    if (ignored(line.text) || line.text.front() == '\t') continue;
    const std::string_view top = line.text;
    if (top.size() >= 2 && top[0] == 'C' && top[1] == ' ') {
      const auto id = hex_id(top.substr(2), 2);
      const auto name = name_after(top.substr(2), 2);
      if (id && !name.empty()) classes_.push_back({*id, name, offset});
    } else if (!(top.size() >= 2 && top[0] >= 'A' && top[0] <= 'Z' && top[1] == ' ')) {
      const auto id = hex_id(top, 4);
      const auto name = name_after(top, 4);
      if (id && !name.empty()) vendors_.push_back({*id, name, offset});
    }
  }
}

Result<PciIdDatabase> PciIdDatabase::open(const std::string& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd) return make_error(errno, path);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return make_error(errno, path);
  if (!S_ISREG(info.st_mode)) return make_error(EINVAL, path + ": not a regular file");
  const auto size = static_cast<size_t>(info.st_size);
  if (size > kMaxBytes) return size_limit_error(path, kMaxBytes);
  if (path.ends_with(".gz")) {
    auto compressed = read_descriptor(fd.get(), kMaxBytes);
    if (!compressed) return make_error(compressed.error().code, path);
    auto text = gunzip(*compressed, path, kMaxBytes);
    if (!text) return text.error();
    return from_text(std::move(*text));
  }
  if (size == 0) return PciIdDatabase(nullptr, {});
  // Populated at once: one call instead of a fault per page. The file is root's (dpkg replaces
  // it by renaming, which leaves this mapping whole).
  void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd.get(), 0);
  if (mapped == MAP_FAILED) return make_error(errno, path);
  std::shared_ptr<const void> storage(
      mapped, [size](const void* at) { ::munmap(const_cast<void*>(at), size); });
  return PciIdDatabase(std::move(storage), {static_cast<const char*>(mapped), size});
}

PciIdDatabase PciIdDatabase::from_text(std::string text) {
  auto owned = std::make_shared<const std::string>(std::move(text));
  const std::string_view view = *owned;
  return PciIdDatabase(std::move(owned), view);
}

const PciIdDatabase::Block* PciIdDatabase::find_block(const std::vector<Block>& blocks,
                                                      uint16_t id) {
  for (const auto& block : blocks) {
    if (block.id == id) return &block;
  }
  return nullptr;
}

std::string_view PciIdDatabase::nested_name(const std::vector<Block>& blocks, uint16_t block_id,
                                            uint16_t id, size_t digits) const {
  const Block* block = find_block(blocks, block_id);
  if (block == nullptr) return {};
  for (size_t offset = block->body; offset < text_.size();) {
    const Line line = line_at(text_, offset);
    offset = line.next;
    if (ignored(line.text)) continue;
    const size_t depth = tabs(line.text);
    if (depth == 0) break;
    if (depth != 1) continue;
    const std::string_view entry = line.text.substr(1);
    const auto found = hex_id(entry, digits);
    if (found && *found == id) {
      const auto name = name_after(entry, digits);
      if (!name.empty()) return name;
    }
  }
  return {};
}

std::string PciIdDatabase::vendor(uint16_t vendor) const {
  const Block* block = find_block(vendors_, vendor);
  return block == nullptr ? std::string() : fitted(block->name, kVendorBytes);
}

std::string PciIdDatabase::device(uint16_t vendor, uint16_t device) const {
  return fitted(nested_name(vendors_, vendor, device, 4), kDeviceBytes);
}

std::string PciIdDatabase::class_name(uint16_t class_and_subclass) const {
  const auto base = static_cast<uint16_t>(class_and_subclass >> 8);
  const auto sub = nested_name(classes_, base, class_and_subclass & 0xff, 2);
  if (!sub.empty()) return fitted(sub, kClassBytes);
  const Block* block = find_block(classes_, base);
  if (block == nullptr) return {};
  char number[8];
  (void)std::snprintf(number, sizeof number, "%04x", class_and_subclass);
  return fitted(std::string(block->name) + " [" + number + "]", kClassBytes);
}

}  // namespace kdrift
