#include "cli/service_install.h"

#include <span>

#include "util/embedded.h"
#include "util/fatal.h"
#include "util/systemd_unit.h"

namespace kdrift {

// Generated from dist/systemd/*.service (cmake/embed.cmake); names without ".service".
std::span<const EmbeddedText> embedded_unit_texts();

namespace {

constexpr std::string_view kWantedBy = "multi-user.target";

}  // namespace

std::string_view kdrift_unit_text(std::string_view name) {
  const std::string_view stem = name.substr(0, name.rfind(".service"));
  for (const EmbeddedText& unit : embedded_unit_texts()) {
    if (unit.name == stem) return unit.text;
  }
  throw FatalError("no unit " + std::string(name) + " in this kdrift");
}

std::string install_kdrift_unit(const std::string& unit_dir, std::string_view name) {
  return install_kdrift_unit(unit_dir, name, std::string(kdrift_unit_text(name)));
}

std::string install_kdrift_unit(const std::string& unit_dir, std::string_view name,
                                std::string text) {
  const auto program = running_executable();
  if (!program) throw FatalError("cannot tell where this kdrift is: " + program.error().describe());
  const auto installed =
      install_unit(unit_dir, std::string(name), std::move(text), *program, std::string(kWantedBy));
  if (!installed)
    throw FatalError("install " + std::string(name) + ": " + installed.error().describe());
  return *installed;
}

void remove_kdrift_unit(const std::string& unit_dir, std::string_view name) {
  const auto removed = remove_unit(unit_dir, std::string(name), std::string(kWantedBy));
  if (!removed) {
    throw FatalError("remove " + std::string(name) + ": " + removed.error().describe());
  }
}

}  // namespace kdrift
