#pragma once
// What a bisect walks through: candidates, oldest first. A candidate is a kernel image with its
// initrd and command line (booted by kexec), or a bare name that the user or a `run` command
// turns into a boot themselves. They come from a list file (the contract outside scripts write),
// from the kernels installed in /boot, or from Boot Loader Specification entries.

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

struct Candidate {
  std::string name;
  std::string kernel;   // image path; empty for a bare name
  std::string initrd;   // may be empty: a kernel with everything built in
  std::string append;   // command line for the kexec'd kernel (the bisect token is added to it)
  std::string release;  // kernel release when known ("6.1.0-50-amd64"): what step checks
  // A kernel kdrift builds (kernel_source.h): the commit it is built from, and for a config
  // bisect the name of its config in the state directory. Its kernel is the build's image.
  std::string commit;
  std::string config;
};

// The --candidates FILE format: one candidate per line, oldest first,
// `NAME [kernel=PATH] [initrd=PATH] [append="…"] [release=R]`; blank lines and lines starting
// with '#' are skipped. Values may be double-quoted (\" and \\ inside). A bare NAME, or one
// with initrd/append but no kernel, is handed as it is to `run` and manual mode. Errors name the
// source and line: an unknown or repeated key, a word that is not key=value, an unterminated
// quote, a name listed twice, an empty list.
Result<std::vector<Candidate>> parse_candidate_list(std::string_view text,
                                                    const std::string& source);

// parse_candidate_list on a regular file (or standard input for "-") of at most 1 MiB.
Result<std::vector<Candidate>> read_candidate_list(const std::string& path);

// The list file format back: parse_candidate_list(format_candidate_list(c)) == c.
std::string format_candidate_list(const std::vector<Candidate>& candidates);

// Kernels in /boot, oldest first by version: Debian/Ubuntu (vmlinuz-R + initrd.img-R), Fedora
// (vmlinuz-R + initramfs-R.img), Arch (vmlinuz-NAME + initramfs-NAME.img). Rescue images and
// the vmlinuz/vmlinuz.old symlinks are left out. append is this boot's command line without
// BOOT_IMAGE= and initrd=, so a candidate boots as the running kernel did.
Result<std::vector<Candidate>> candidates_from_boot(const SysRoot& root);

// Boot Loader Specification entries (/boot/loader/entries/*.conf: version, linux, initrd,
// options), oldest first by version.
Result<std::vector<Candidate>> candidates_from_bls(const SysRoot& root);

// Version order as `sort -V` and dpkg give it for kernel releases: digit runs compare as numbers,
// other runs character by character with '~' before everything (even the end), then the end,
// then letters, then other characters. Negative, zero or positive.
int compare_versions(std::string_view a, std::string_view b);

}  // namespace kdrift
