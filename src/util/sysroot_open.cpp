#include "util/sysroot_open.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "util/archive_backend.h"
#include "util/archive_tree.h"
#include "util/directory_backend.h"
#include "util/subtree_backend.h"
#include "util/text.h"

namespace kdrift {
namespace {

bool marks_a_host_tree(const DirEntry& entry) {
  if (entry.name == kDumpManifest) return entry.kind == EntryKind::kFile;
  return (entry.name == "proc" || entry.name == "sys") && entry.kind == EntryKind::kDirectory;
}

bool holds_a_host_tree(const std::vector<DirEntry>& entries) {
  return std::any_of(entries.begin(), entries.end(), marks_a_host_tree);
}

// Names the top of a refused tree: a few names, each short and safe to print.
std::string found_names(const std::vector<DirEntry>& entries) {
  constexpr size_t kShown = 8;
  constexpr size_t kNameChars = 60;
  if (entries.empty()) return "it is empty";
  std::vector<std::string> names;
  for (const auto& entry : entries) {
    std::string name = terminal_safe(entry.name.substr(0, kNameChars));
    if (entry.kind == EntryKind::kDirectory) name += '/';
    names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  std::string text = "found ";
  for (size_t i = 0; i < std::min(names.size(), kShown); ++i)
    text += (i ? ", " : "") + names[i];
  if (names.size() > kShown) text += " and " + std::to_string(names.size() - kShown) + " more";
  return text;
}

// Hidden entries (a packer's ".DS_Store", "._x" resource forks) do not make a second folder.
std::vector<DirEntry> visible(std::vector<DirEntry> entries) {
  std::erase_if(entries, [](const DirEntry& entry) { return entry.name.starts_with('.'); });
  return entries;
}

std::string absolute_name(const std::string& argument) {
  std::error_code error;
  std::string name = std::filesystem::absolute(argument, error).lexically_normal().string();
  if (error) return argument;
  while (name.size() > 1 && name.ends_with('/'))
    name.pop_back();
  return name;
}

// The host's folders a capture reads files from.
constexpr std::string_view kReadTops[] = {"proc", "sys", "boot", "dev", "etc"};

bool is_below(std::string_view path, std::string_view top) {
  return path.starts_with(top) && (path.size() == top.size() || path[top.size()] == '/');
}

bool read_from_top(std::string_view relative, const SourceFormat& format) {
  if (relative.find('/') == std::string_view::npos) return true;  // the manifest, version.txt
  for (const auto top : kReadTops) {
    if (is_below(relative, top)) return true;
  }
  for (const auto read : format.reads) {
    if (is_below(relative, read)) return true;
  }
  return false;
}

Result<std::shared_ptr<const SysRootBackend>> backend_for(const std::string& name,
                                                          const SourceFormat& format) {
  struct stat st {};
  if (::stat(name.c_str(), &st) != 0) {
    return make_error(errno, name + " (no such directory or dump archive)");
  }
  if (S_ISDIR(st.st_mode)) {
    return std::shared_ptr<const SysRootBackend>(std::make_shared<DirectoryBackend>(name));
  }
  if (!S_ISREG(st.st_mode)) {
    return make_error(EINVAL, name + ": neither a directory nor a dump archive");
  }
  auto tree = ArchiveTree::read_file(name, kDumpArchiveLimits, [&format](std::string_view path) {
    return capture_may_read(path, format);
  });
  if (!tree) return tree.error();
  return std::shared_ptr<const SysRootBackend>(std::make_shared<ArchiveBackend>(std::move(*tree)));
}

}  // namespace

Result<std::string> sysroot_folder(const SysRootBackend& backend) {
  auto top = backend.list("/");
  if (!top) return top.error();
  if (holds_a_host_tree(*top)) return std::string("/");
  const auto shown = visible(*top);
  if (shown.size() == 1 && shown.front().kind == EntryKind::kDirectory) {
    const std::string folder = "/" + shown.front().name;
    auto inner = backend.list(folder);
    if (!inner) return inner.error();
    if (holds_a_host_tree(*inner)) return folder;
    return content_error("neither proc/ nor sys/ nor " + std::string(kDumpManifest) +
                         " at its top or in its one folder " + terminal_safe(folder) + "/ (" +
                         found_names(*inner) + " there)");
  }
  return content_error("neither proc/ nor sys/ nor " + std::string(kDumpManifest) +
                       " at its top, and not one folder holding them (" + found_names(*top) + ")");
}

bool capture_may_read(std::string_view path, const SourceFormat& format) {
  const auto start = path.find_first_not_of('/');
  if (start == std::string_view::npos) return true;
  const std::string_view relative = path.substr(start);
  if (read_from_top(relative, format)) return true;
  const auto slash = relative.find('/');
  return slash != std::string_view::npos && read_from_top(relative.substr(slash + 1), format);
}

Result<SysRoot> open_sysroot(const std::string& argument, const SourceFormat& format) {
  const std::string name = absolute_name(argument);
  if (name == "/") return SysRoot("/");
  auto backend = backend_for(name, format);
  if (!backend) return backend.error();
  auto folder = sysroot_folder(**backend);
  if (!folder) return folder.error();
  std::shared_ptr<const SysRootBackend> served =
      *folder == "/" ? std::move(*backend)
                     : std::make_shared<SubtreeBackend>(std::move(*backend), *folder);
  return SysRoot(name,
                 format.layer == nullptr ? std::move(served) : format.layer(std::move(served)));
}

}  // namespace kdrift
