#include "support/child_process.h"

#include <sys/wait.h>
#include <unistd.h>

namespace kdrift::testing {

int exit_status_in_child(const std::function<int()>& check) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(check());
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

}  // namespace kdrift::testing
