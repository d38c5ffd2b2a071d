#pragma once
// A kernel git tree, read through git itself (run as a program, by argv): which commits lie
// between two revisions, what each one is, and kdrift's own work tree of the repository, where
// candidates are checked out so that the user's checkout is never touched.
//
// Every call is `git -C DIR` with no pager, no terminal prompt, no system config, no optional
// locks, hooks and fsmonitor off (a repository's own config must not make kdrift run its
// programs), and bounded output. What git prints (subjects, names, paths) is the repository's
// text, untrusted: whoever shows it to a terminal makes it safe.

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/result.h"

namespace kdrift {

// The files describe() lists of one commit; the rest are counted.
inline constexpr size_t kMaxCommitFiles = 200;
// The longest range() hands out: more commits than a bisect of builds could ever get through.
inline constexpr size_t kMaxRangeCommits = 100000;

struct CommitInfo {
  std::string sha;
  std::string subject;
  std::string author;  // "Name <email>"
  std::string date;    // the author date, strict ISO 8601
  // The files the commit touched (for a merge: against its first parent), the first
  // kMaxCommitFiles of them; more_files counts the others.
  std::vector<std::string> files;
  size_t more_files = 0;
  bool merge = false;
  // For a merge: the side branch its second parent brought in, from the merge base of the two
  // parents (good) to the second parent (bad) — the range that bisects inside the merge.
  struct Side {
    std::string base;
    std::string tip;
    size_t commits = 0;
  };
  std::optional<Side> side;
};

class GitTree {
 public:
  // A git work tree (not a bare repository) at path or above it; the tree's top directory,
  // absolute, is kept. Errors name path.
  static Result<GitTree> open(const std::string& path);

  const std::string& path() const { return path_; }

  // A refusal naming the first paths that differ from HEAD, untracked files included.
  Status check_clean() const;

  // The full sha of rev^{commit}. A rev that starts with '-' is refused before git sees it.
  Result<std::string> resolve(const std::string& rev) const;

  // Whether a is an ancestor of b (or b itself); errors for revisions that do not resolve.
  Result<bool> is_ancestor(const std::string& a, const std::string& b) const;

  // The commits after good up to and including bad, oldest first (git rev-list --reverse
  // good..bad; with first_parent, only bad's first-parent line, so a merge is one candidate).
  // Errors: no commit in the range, or more than kMaxRangeCommits.
  Result<std::vector<std::string>> range(const std::string& good, const std::string& bad,
                                         bool first_parent) const;

  Result<CommitInfo> describe(const std::string& sha) const;

  // kdrift's own work tree of this repository at dir, checked out (detached, forced) at sha with
  // every file git does not track removed (git clean -fdx), so that a kernel's out-of-tree build
  // finds a clean source; build directories live elsewhere. A missing or empty dir becomes a new
  // work tree (git worktree add), marked as kdrift's in its administrative directory; an
  // existing one is reused only if it carries that mark, so neither the user's checkout nor a
  // work tree of theirs is ever checked out or cleaned. dir must lie outside this tree.
  Status checkout_worktree(const std::string& dir, const std::string& sha) const;

 private:
  GitTree(std::string path, std::string common_dir)
      : path_(std::move(path)), common_dir_(std::move(common_dir)) {}
  Result<CommitInfo::Side> merge_side(const std::string& first, const std::string& second) const;

  std::string path_;
  std::string common_dir_;  // the repository's own .git, shared by all its work trees
};

}  // namespace kdrift
