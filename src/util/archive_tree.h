#pragma once
// A tar archive (plain or compressed) read whole into memory and never written anywhere: the
// dump a stranger attached is served from here, so none of its names, modes or owners ever reach
// a filesystem. Only regular files, directories and symlinks are taken, under relative names
// without "." or ".." components, and within ArchiveLimits; anything else refuses the archive
// with an error naming the member. A HoldPolicy may name the members whose content is worth
// memory: the others are kept as names (a read of one says it was not held), their bytes skipped,
// so a sos report's logs and symbol tables neither fill memory nor refuse the archive. What the
// archive costs to decompress, skipped bytes included, is bounded by ArchiveLimits too.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "util/decompressed_stream.h"
#include "util/result.h"

namespace kdrift {

struct ArchiveLimits {
  uint64_t total_bytes;         // all regular files' content together
  uint64_t member_bytes;        // one regular file's content
  size_t members;               // entries in the archive
  size_t depth;                 // components in a member's name
  uint64_t decompressed_bytes;  // the tar stream decompressed, skipped bytes and sparse holes too
  uint64_t header_bytes;        // one member's headers: names, pax records, a sparse map
  uint64_t decoder_memory;      // the decompressor's own (decompressed_stream.h)
};

// The largest committed dump (tests/fixtures/sysroots/generic-6.12) holds 716 KB in 455 members,
// its largest member is 383 KB, its deepest name 11 components; the most members (943) are in
// fc-6.18-host. A dump of a large server has more CPUs, devices and interrupts, so each limit is
// about a hundred times that, except depth, which grows only with the PCI bridge chain. The
// total also bounds the memory a hostile archive can take.
inline constexpr ArchiveLimits kDumpArchiveLimits{
    .total_bytes = uint64_t{64} << 20,
    .member_bytes = uint64_t{16} << 20,
    .members = 100'000,
    .depth = 64,
    // The work an archive may cost, counted as bytes coming out of the decompressor (what a
    // header declares is the stranger's word). A sos report caps each log at 25 MiB and the
    // journal at 100 MiB, so a large server's unpacks to a few hundred MiB; 4 GiB is ten times
    // that. Reaching it on zeros took bzip2, the slowest filter, 13 s here (xz 7 s, gzip 1.3 s),
    // and 25 s with the 2 cores shared by 4 builds (xz 17 s, gzip 3 s).
    .decompressed_bytes = uint64_t{4} << 30,
    // libarchive takes a pax record, a long name or a long link target of up to 1 MiB each; it
    // holds a sparse map in about twice its bytes (1 GiB of map: 2 GiB), so this bounds that too.
    .header_bytes = uint64_t{4} << 20,
    .decoder_memory = kDecoderMemoryLimit,
};

// Whether the file at an absolute path in the archive ("/sosreport-x/proc/cpuinfo") is held in
// memory; an empty policy holds every file.
using HoldPolicy = std::function<bool(std::string_view path)>;

class ArchiveTree {
 public:
  struct Node {
    enum class Type { kFile, kDirectory, kSymlink };
    Type type = Type::kDirectory;
    std::string data;                          // a file's content, or a symlink's target
    bool held = true;                          // false: a file named but its content not kept
    std::set<std::string, std::less<>> names;  // a directory's entries
  };

  // Reads the archive at path (any filter kdrift links: gzip, xz, bzip2, zstd, lz4, or none).
  static Result<ArchiveTree> read_file(const std::string& path,
                                       const ArchiveLimits& limits = kDumpArchiveLimits,
                                       const HoldPolicy& hold = {});
  static Result<ArchiveTree> read_bytes(std::string_view bytes,
                                        const ArchiveLimits& limits = kDumpArchiveLimits,
                                        const HoldPolicy& hold = {});

  // The node at an absolute path ("/sys/block"; "/" is the top), no symlink followed.
  const Node* find(std::string_view path) const;
  // Every node by absolute path, sorted: parents before their entries.
  const std::map<std::string, Node, std::less<>>& nodes() const { return nodes_; }

 private:
  ArchiveTree();
  friend class ArchiveTreeBuilder;

  std::map<std::string, Node, std::less<>> nodes_;
};

}  // namespace kdrift
