#include "report/command_spec.h"

namespace kdrift {

std::string command_name(const CommandSpec& command) {
  std::string name = "kdrift";
  for (const std::string& word : command.path)
    name += " " + word;
  return name;
}

}  // namespace kdrift
