#include "kbuild/git_tree.h"

#include <sys/stat.h>

#include <array>
#include <filesystem>
#include <string_view>
#include <utility>

#include "kbuild/tree_paths.h"
#include "util/atomic_file.h"
#include "util/process.h"
#include "util/text.h"

namespace kdrift {
namespace {

namespace fs = std::filesystem;

constexpr size_t kSmallOutput = size_t{64} << 10;
// A commit's header line; a subject or author beyond this is not something git would write.
constexpr size_t kHeaderOutput = size_t{1} << 20;
// Names of every file of a kernel tree (~85k files) fit several times over.
constexpr size_t kFilesOutput = size_t{16} << 20;
// A sha (40 or 64 hex digits) and its newline per commit, one more commit than is allowed.
constexpr size_t kRangeOutput = (kMaxRangeCommits + 1) * 65;
// Longer revisions than this are no one's: refused before git sees them.
constexpr size_t kMaxRevLength = 1024;
// How many dirty paths the refusal names.
constexpr size_t kDirtyNamed = 5;
// Written into the administrative directory of each work tree kdrift makes.
constexpr std::string_view kWorktreeMark = "kdrift-worktree";

// The repository's own configuration must not make kdrift run its programs (fsmonitor, hooks)
// nor change the form of what kdrift reads.
constexpr std::array<std::string_view, 4> kSafeConfig = {
    "core.fsmonitor=false", "core.hooksPath=/dev/null", "core.warnAmbiguousRefs=false",
    "advice.detachedHead=false"};

// What git prints on failure (stderr interleaved with stdout), as one bounded line.
std::string git_complaint(std::string_view output) {
  std::string line;
  for (const std::string& part : split_lines(output)) {
    const std::string_view text = trim(part);
    if (text.empty()) continue;
    if (!line.empty()) line += "; ";
    line += text;
  }
  constexpr size_t kMaxComplaint = 300;
  if (line.size() > kMaxComplaint) line = line.substr(0, kMaxComplaint) + "...";
  return line.empty() ? "no message" : line;
}

// git -C dir ARGS..., safe against the repository's own configuration, its output captured.
Result<ProcessResult> run_git(const std::string& dir, const std::vector<std::string>& args,
                              size_t max_output) {
  std::vector<std::string> argv = {"git", "--no-pager", "-C", dir};
  for (const std::string_view setting : kSafeConfig) {
    argv.emplace_back("-c");
    argv.emplace_back(setting);
  }
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions options;
  options.capture_output = true;
  options.max_output_bytes = max_output;
  options.environment = {{"GIT_TERMINAL_PROMPT", "0"},
                         {"GIT_CONFIG_NOSYSTEM", "1"},
                         {"GIT_OPTIONAL_LOCKS", "0"},
                         {"LC_ALL", "C"}};
  auto ran = run_process(argv, options);
  if (!ran) return make_error(ran.error().code, "cannot run git: " + ran.error().context);
  return ran;
}

// git's output when it exits 0; otherwise an error naming what was asked, where, and git's words.
Result<std::string> git_output(const std::string& dir, const std::vector<std::string>& args,
                               size_t max_output) {
  auto ran = run_git(dir, args, max_output);
  if (!ran) return ran.error();
  if (ran->exit_status != 0) {
    return content_error("git " + args.front() + " in " + dir + " failed (exit " +
                         std::to_string(ran->exit_status) + "): " + git_complaint(ran->output));
  }
  if (ran->output_truncated) {
    return content_error("git " + args.front() + " in " + dir + " wrote more than " +
                         std::to_string(max_output) + " bytes");
  }
  return std::move(ran->output);
}

bool is_object_name(std::string_view text) {
  if (text.size() != 40 && text.size() != 64) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// What git -z prints, as fields (the last terminator does not start an empty field).
std::vector<std::string> nul_fields(std::string_view text) {
  std::vector<std::string> fields = split(text, '\0');
  if (!fields.empty() && fields.back().empty()) fields.pop_back();
  return fields;
}

// Porcelain -z entries as "XY path" words, a rename's source skipped.
std::vector<std::string> dirty_entries(const std::string& status) {
  std::vector<std::string> entries;
  const std::vector<std::string> fields = nul_fields(status);
  for (size_t i = 0; i < fields.size(); ++i) {
    entries.push_back(fields[i]);
    const std::string_view code = std::string_view(fields[i]).substr(0, 2);
    if (code.find_first_of("RC") != std::string_view::npos) ++i;
  }
  return entries;
}

// The administrative directory (--git-dir) of the work tree whose top is dir, when dir is a work
// tree of the repository at common_dir.
Result<std::string> worktree_admin_dir(const std::string& dir, const std::string& common_dir) {
  auto listed = git_output(
      dir,
      {"rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir", "--git-dir"},
      kSmallOutput);
  if (!listed) return listed.error();
  const std::vector<std::string> lines = split_lines(*listed);
  if (lines.size() < 3 || canonical_path(lines[0]) != dir ||
      canonical_path(lines[1]) != common_dir) {
    return content_error(dir + " is a git work tree, but not one of this repository's");
  }
  return canonical_path(lines[2]);
}

bool is_empty_directory(const std::string& dir) {
  std::error_code error;
  return fs::is_directory(dir, error) && fs::is_empty(dir, error) && !error;
}

}  // namespace

Result<GitTree> GitTree::open(const std::string& path) {
  if (path.empty()) return content_error("git tree: no path given");
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return make_error(errno, path);
  if (!S_ISDIR(status.st_mode)) return make_error(ENOTDIR, path);
  const std::string absolute = canonical_path(path);
  auto listed = git_output(absolute,
                           {"rev-parse", "--is-bare-repository", "--path-format=absolute",
                            "--show-toplevel", "--git-common-dir"},
                           kSmallOutput);
  if (!listed) {
    return content_error(path + " is not a git work tree (" + listed.error().context + ")");
  }
  const std::vector<std::string> lines = split_lines(*listed);
  if (lines.size() < 3 || lines[0] != "false") {
    return content_error(path + " is not a git work tree (a bare repository has no checkout)");
  }
  return GitTree(canonical_path(lines[1]), canonical_path(lines[2]));
}

Status GitTree::check_clean() const {
  auto ran =
      run_git(path_, {"status", "--porcelain=v1", "-z", "--untracked-files=normal"}, kSmallOutput);
  if (!ran) return ran.error();
  if (ran->exit_status != 0) {
    return content_error("git status in " + path_ + " failed: " + git_complaint(ran->output));
  }
  std::vector<std::string> entries = dirty_entries(ran->output);
  // Output cut at its start loses the head of its first entry.
  if (ran->output_truncated && !entries.empty()) entries.erase(entries.begin());
  if (entries.empty() && !ran->output_truncated) return ok_status();
  std::string named;
  for (size_t i = 0; i < entries.size() && i < kDirtyNamed; ++i)
    named += (named.empty() ? "" : ", ") + quote_value(entries[i]);
  if (ran->output_truncated) {
    named += " and more";
  } else if (entries.size() > kDirtyNamed) {
    named += " and " + std::to_string(entries.size() - kDirtyNamed) + " more";
  }
  return content_error(path_ + " has changes that are not committed (" + named +
                       "): a bisect builds commits only; commit or stash them first");
}

Result<std::string> GitTree::resolve(const std::string& rev) const {
  if (rev.empty()) return content_error("an empty revision");
  if (rev.front() == '-') {
    return content_error("revision " + quote_value(rev) +
                         " starts with '-', which git would take as an option");
  }
  if (rev.size() > kMaxRevLength || rev.find('\0') != std::string::npos) {
    return content_error("revision " + quote_value(rev) + " is not a revision");
  }
  auto ran =
      run_git(path_, {"rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"},
              kSmallOutput);
  if (!ran) return ran.error();
  const std::string_view sha = trim(ran->output);
  if (ran->exit_status != 0 || !is_object_name(sha)) {
    return content_error("unknown revision " + quote_value(rev) + " in " + path_ +
                         " (not a commit of this repository)");
  }
  return std::string(sha);
}

Result<bool> GitTree::is_ancestor(const std::string& a, const std::string& b) const {
  auto first = resolve(a);
  if (!first) return first.error();
  auto second = resolve(b);
  if (!second) return second.error();
  auto ran = run_git(path_, {"merge-base", "--is-ancestor", *first, *second}, kSmallOutput);
  if (!ran) return ran.error();
  if (ran->exit_status == 0) return true;
  if (ran->exit_status == 1) return false;
  return content_error("git merge-base in " + path_ + " failed: " + git_complaint(ran->output));
}

Result<std::vector<std::string>> GitTree::range(const std::string& good, const std::string& bad,
                                                bool first_parent) const {
  auto from = resolve(good);
  if (!from) return from.error();
  auto to = resolve(bad);
  if (!to) return to.error();
  std::vector<std::string> args = {"rev-list",
                                   "--max-count=" + std::to_string(kMaxRangeCommits + 1)};
  if (first_parent) args.emplace_back("--first-parent");
  args.insert(args.end(), {"--reverse", *from + ".." + *to});
  auto listed = git_output(path_, args, kRangeOutput);
  if (!listed) return listed.error();
  std::vector<std::string> commits = split_lines(*listed);
  for (const std::string& commit : commits) {
    if (!is_object_name(commit)) {
      return content_error("git rev-list in " + path_ + " printed " + quote_value(commit) +
                           ", not a commit");
    }
  }
  if (commits.size() > kMaxRangeCommits) {
    return content_error("more than " + std::to_string(kMaxRangeCommits) + " commits between " +
                         good + " and " + bad + ": narrow the range");
  }
  if (commits.empty()) {
    return content_error("no commit after " + good + " up to " + bad +
                         " (the same commit, or bad is an ancestor of good)");
  }
  return commits;
}

Result<CommitInfo::Side> GitTree::merge_side(const std::string& first,
                                             const std::string& second) const {
  auto base = git_output(path_, {"merge-base", first, second}, kSmallOutput);
  if (!base) return base.error();
  CommitInfo::Side side{std::string(trim(*base)), second, 0};
  if (!is_object_name(side.base) || !is_object_name(side.tip)) {
    return content_error("git merge-base " + first + " " + second + " in " + path_ +
                         ": unexpected output");
  }
  auto count =
      git_output(path_, {"rev-list", "--count", side.base + ".." + side.tip}, kSmallOutput);
  if (!count) return count.error();
  const auto commits = parse_uint(trim(*count));
  if (!commits) {
    return content_error("git rev-list --count in " + path_ + ": unexpected output");
  }
  side.commits = *commits;
  return side;
}

Result<CommitInfo> GitTree::describe(const std::string& sha) const {
  auto full = resolve(sha);
  if (!full) return full.error();
  auto header = git_output(
      path_, {"show", "--no-patch", "--format=%H%x00%P%x00%s%x00%an <%ae>%x00%aI", *full},
      kHeaderOutput);
  if (!header) return header.error();
  const std::vector<std::string> fields = split(trim(*header), '\0');
  if (fields.size() != 5 || fields[0] != *full) {
    return content_error("git show " + *full + " in " + path_ + ": unexpected output");
  }
  CommitInfo info;
  info.sha = fields[0];
  const std::vector<std::string> parents = split_whitespace(fields[1]);
  info.merge = parents.size() > 1;
  if (info.merge) {
    auto side = merge_side(parents[0], parents[1]);
    if (!side) return side.error();
    info.side = std::move(*side);
  }
  info.subject = fields[2];
  info.author = fields[3];
  info.date = fields[4];
  auto names = git_output(path_,
                          {"show", "--format=", "--name-only", "-z", "--no-renames",
                           "--diff-merges=first-parent", *full},
                          kFilesOutput);
  if (!names) return names.error();
  std::vector<std::string> files = nul_fields(*names);
  if (files.size() > kMaxCommitFiles) {
    info.more_files = files.size() - kMaxCommitFiles;
    files.resize(kMaxCommitFiles);
  }
  info.files = std::move(files);
  return info;
}

Status GitTree::checkout_worktree(const std::string& dir, const std::string& sha) const {
  auto full = resolve(sha);
  if (!full) return full.error();
  if (dir.empty()) return content_error("no directory given for kdrift's work tree");
  const std::string target = canonical_path(dir);
  if (is_within(target, path_) || is_within(path_, target)) {
    return content_error("kdrift's work tree " + target + " must lie outside the git tree " +
                         path_);
  }
  std::error_code ignored;
  if (!fs::exists(target, ignored) || is_empty_directory(target)) {
    // --force: a work tree of ours whose folder was deleted by hand is still registered, and
    // git refuses that path without it; detached, nothing else --force allows can happen.
    auto added = git_output(
        path_, {"worktree", "add", "--force", "--detach", "--no-checkout", target, *full},
        kSmallOutput);
    if (!added) return added.error();
    auto admin = worktree_admin_dir(target, common_dir_);
    if (!admin) return admin.error();
    auto marked = write_file_atomically(*admin + "/" + std::string(kWorktreeMark), "kdrift\n");
    if (!marked) return marked.error();
  } else {
    auto admin = worktree_admin_dir(target, common_dir_);
    if (!admin || !fs::exists(*admin + "/" + std::string(kWorktreeMark), ignored)) {
      return content_error(target + " exists and is not a work tree kdrift made of " + path_ +
                           ": remove it or choose another directory");
    }
  }
  auto checked_out =
      git_output(target, {"checkout", "--detach", "--force", "--quiet", *full}, kSmallOutput);
  if (!checked_out) return checked_out.error();
  auto cleaned = git_output(target, {"clean", "-fdxq"}, kSmallOutput);
  if (!cleaned) return cleaned.error();
  return ok_status();
}

}  // namespace kdrift
