#pragma once
// A command-line bisect (`kdrift bisect start --cmdline`): one kernel, and the parameters that
// differ between a good and a bad command line applied one more at a time, so that the search
// names the first change after which the candidate is bad. Parameters are grouped by key (the
// text before '='): a key repeated on a command line (console=ttyS0 console=tty0) changes as
// one unit.

#include <string>
#include <string_view>
#include <vector>

#include "bisect/candidates.h"

namespace kdrift {

// Words of a kernel command line: split at spaces outside double quotes, quotes kept.
std::vector<std::string> kernel_cmdline_words(std::string_view cmdline);

struct CmdlineChange {
  std::string key;
  std::vector<std::string> words;  // the key's words on the bad command line; empty: removed
  std::string label;               // "+iommu.strict=1", "-quiet", "~console=ttyS1"
};

// The changes from good to bad, in the order their keys appear on the bad command line, then
// the removals in the order they appear on the good one.
std::vector<CmdlineChange> cmdline_changes(std::string_view good, std::string_view bad);

// The good command line with the given changes applied: a changed key's words take the place of
// its first word, a new key goes at the end, a removed key's words go.
std::string apply_changes(std::string_view good, const std::vector<CmdlineChange>& changes);

// Candidates oldest first: "good-cmdline" (nothing changed), then one per change, named by its
// label, each with every change up to it. kernel gives the image, initrd and release they boot.
std::vector<Candidate> cmdline_candidates(std::string_view good, std::string_view bad,
                                          const Candidate& kernel);

}  // namespace kdrift
