#pragma once
// A check run in a child process, for one that changes its process for good (its user, its
// mounts): nothing the child does reaches the test runner.

#include <functional>

namespace kdrift::testing {

// check's return value as the child's exit status; -1 when the child could not be run or did
// not exit. Checks return 77 for "could not be set up", which callers turn into a skip.
int exit_status_in_child(const std::function<int()>& check);

}  // namespace kdrift::testing
