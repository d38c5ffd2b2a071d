#pragma once
// What a kernel bisect answers, in the terms a kernel developer or a distribution's bug tracker
// asks for: the first bad commit with its subject, author, date and files (or, for a config
// bisect, the symbols the final pair of configs differ in, with their Kconfig help), the commits
// that could also be it when skips leave it open, the steps as `git bisect log` output that `git
// bisect replay` accepts, and the reproducer. Added to the bisect report document
// (bisect_dir.h) as "kernel"; rendered as text and as mailing-list markdown by report/.

#include <string>

#include "bisect/session.h"
#include "kbuild/git_tree.h"
#include "kbuild/kconfig.h"
#include "kbuild/kconfig_help.h"
#include "snapshot/json_access.h"
#include "util/result.h"

namespace kdrift {

// The lookups the answer needs, on the tree and the state directory; faked in tests.
class KernelFacts {
 public:
  virtual ~KernelFacts() = default;
  virtual Result<CommitInfo> commit(const std::string& sha) = 0;
  // A config bisect's candidate's config, by its file name in the state directory.
  virtual Result<Kconfig> config(const std::string& name) = 0;
  virtual Result<KconfigSymbolHelp> help(const std::string& symbol) = 0;
};

// {"kind", "tree", "first_bad_commit"{sha, subject, author, date, files, more_files, merge,
// "inside"?{good, bad, commits, start}: a merge's side branch and the start options that bisect
// inside it}, "could_also_be"[{sha, subject}],
// "config_change"?{last_good, first_bad, symbols[{symbol, from, to, help?{file, line, type,
// choice, help, depends_on}}]}, "git_bisect_log", "reproducer"{...}, "builds"{built, failed,
// timed_out, seconds}}. A lookup that fails leaves its part out with "unavailable" saying why:
// the answer itself comes from the journal.
Json kernel_answer(const Session& session, KernelFacts& facts);

// `git bisect log` as git writes it: start (with --first-parent), each candidate's mark with a
// "# good: [sha] subject" line before it, and the first bad commit; candidates not decided are
// left out.
std::string git_bisect_log(const Session& session, KernelFacts& facts);

}  // namespace kdrift
