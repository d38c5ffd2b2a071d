#pragma once
// bash and zsh completion for kdrift, generated from the command line's definitions
// (CommandSpec): subcommands, options, each option's values (its choices, the built-in profile
// names for --profile, the built-in finding ids for --predicate, files, snapshots, directories).
// Both scripts walk the words typed so far the same way: an option that takes a value skips the
// next word, a subcommand's name descends into it.

#include <string>

#include "report/command_spec.h"

namespace kdrift {

// For /usr/share/bash-completion/completions/kdrift (needs bash-completion's _init_completion).
std::string render_bash_completion(const CommandSpec& program, const CompletionWords& words);

// For /usr/share/zsh/vendor-completions/_kdrift.
std::string render_zsh_completion(const CommandSpec& program, const CompletionWords& words);

}  // namespace kdrift
