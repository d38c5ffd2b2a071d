#pragma once
// What `kdrift --version` prints: the version the build was made from (git describe, or the
// package's), what the build carries (its BPF programs, the libraries' versions, the PCI ID
// database libpci reads) and, with --verbose, what the running kernel offers it.

#include <string>

namespace kdrift {

std::string version_report(bool verbose);

}  // namespace kdrift
