#pragma once
// A tree that is not the live host costs what its files cost, and a directory root can hold as
// many as its owner cares to create: 30,000 fake block devices made a capture run 35 s, take
// 470 MB and write an 86 MB snapshot kdrift itself refuses to read back. This backend holds a
// tree to what a host's capture reads, as kDumpArchiveLimits holds an archive: every lookup,
// read and listed entry is counted, and past the budget each further one fails at once with
// E2BIG, so the collectors stop quickly and the capture is refused (SysRoot::within_budget).

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "util/sysroot_backend.h"

namespace kdrift {

struct TreeBudget {
  size_t operations;  // lookups, link reads, file reads and listings
  size_t bytes;       // read from files
  size_t entries;     // listed, over every directory
};

// A capture of a live host makes about 10,000 lookups and reads 2,500 files, 2 MB in all; the
// archive limits allow 100,000 files and 64 MiB. Forty times a host, and the archive's bytes.
inline constexpr TreeBudget kTreeBudget{
    .operations = 400'000, .bytes = size_t{64} << 20, .entries = 1'000'000};

class BudgetedBackend final : public SysRootBackend {
 public:
  // name: the root as the user gave it, for the error.
  BudgetedBackend(std::shared_ptr<const SysRootBackend> inner, std::string name,
                  const TreeBudget& budget = kTreeBudget)
      : inner_(std::move(inner)), name_(std::move(name)), budget_(budget) {}

  Result<EntryKind> kind(const std::string& path) const override;
  Result<std::string> link_target(const std::string& path) const override;
  Result<std::string> read(const std::string& path, size_t max_bytes,
                           ReadExtent extent) const override;
  Result<std::vector<DirEntry>> list(const std::string& path) const override;
  Result<std::string> host_path(const std::string& path) const override;

  // An error naming the root and the limit it went past, once any was.
  Status within_budget() const;

 private:
  // Counts one operation; an error naming path once any limit is passed.
  Status spend(const std::string& path) const;
  bool spent() const;
  std::string limit_passed() const;

  std::shared_ptr<const SysRootBackend> inner_;
  std::string name_;
  TreeBudget budget_;
  mutable std::atomic<size_t> operations_{0};
  mutable std::atomic<size_t> bytes_{0};
  mutable std::atomic<size_t> entries_{0};
};

}  // namespace kdrift
