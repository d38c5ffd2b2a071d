#pragma once
// A bisect over kernels kdrift builds itself: between two commits of a git tree (every
// candidate the same base config, brought forward), or between two configs of one commit (each
// candidate the good config with more of the bad one's symbols). How each candidate is built
// and booted is part of the bisect's start, so a step after a crash or a reboot builds and boots
// exactly as the first one did.
//
// Order: commits are walked along the first-parent chain from good to bad. A linear search is
// only sound where every candidate holds everything the one before it held; on the first-parent
// chain it does (a merge brings its whole side branch at once), while a topological order of the
// full history puts side-branch commits that lack an earlier mainline commit between ones that
// have it. A merge named first bad is reported with the range that bisects inside it.

#include <optional>
#include <string>
#include <string_view>

#include "snapshot/json_access.h"
#include "util/result.h"

namespace kdrift {

struct KernelSource {
  enum class Kind { kCommits, kConfigs };
  Kind kind = Kind::kCommits;
  std::string tree;    // the user's repository: read, and a work tree of kdrift's added to it
  std::string commit;  // kConfigs: the commit every candidate is built from
  bool localmodconfig = false;
  int jobs = 0;  // make -j; 0: the machine's cores
  // Empty: kdrift runs make itself. Otherwise a program called with the candidate in its
  // environment (kbuild/kernel_build.h: CommandBuilder).
  std::string build_command;
  // Empty: kexec on this host. Otherwise a program that boots and measures the candidate
  // elsewhere (boot/boot_command.h).
  std::string boot_command;
  int build_timeout_seconds = 3 * 3600;
  int boot_timeout_seconds = 1800;
};

// Files a kernel bisect keeps in its state directory.
inline constexpr std::string_view kBaseConfigFile = "base.config";  // commits: every build's start
inline constexpr std::string_view kWorktreeDir = "worktree";        // kdrift's checkout
inline constexpr std::string_view kBuildDir = "build";              // make O=, shared: incremental
inline constexpr std::string_view kCandidatesDir = "candidates";    // one folder per candidate
inline constexpr std::string_view kConfigsDir = "configs";  // configs: each candidate's config

Json kernel_source_json(const KernelSource& source);
// nullopt for a start event without one; an error naming where for one that does not hold.
Result<std::optional<KernelSource>> kernel_source_from(const Json& event, const std::string& where);

// A full commit id as git prints it (40 hex digits, or 64 for SHA-256 repositories).
bool is_commit_id(std::string_view text);
// A name that may be used as one file or folder name in the state directory: no '/', not "."
// or "..", no leading '-', printable ASCII, at most 64 bytes.
bool is_plain_file_name(std::string_view name);

}  // namespace kdrift
