#pragma once
// libarchive, loaded the first time kdrift reads or writes an archive or a compressed stream
// rather than at every start: with libxml2 and ICU, which it brings along, it cost about 4 ms
// of every process start, a fifth of a live capture that reads no archive at all. Calls go
// through the one table below; kdrift does not link libarchive, so a direct call is a link error.

#include <archive.h>
#include <archive_entry.h>

namespace kdrift {

// The soname kdrift is built against (libarchive 3.x; the Debian package depends on it by name).
inline constexpr const char* kLibArchiveSoname = "libarchive.so.13";

// clang-format off
#define KDRIFT_LIBARCHIVE_FUNCTIONS(X) \
  X(archive_entry_filetype) \
  X(archive_entry_free) \
  X(archive_entry_hardlink) \
  X(archive_entry_new) \
  X(archive_entry_pathname) \
  X(archive_entry_set_filetype) \
  X(archive_entry_set_mtime) \
  X(archive_entry_set_pathname) \
  X(archive_entry_set_perm) \
  X(archive_entry_set_size) \
  X(archive_entry_set_symlink) \
  X(archive_entry_size) \
  X(archive_entry_size_is_set) \
  X(archive_entry_symlink) \
  X(archive_errno) \
  X(archive_error_string) \
  X(archive_filter_count) \
  X(archive_filter_name) \
  X(archive_free) \
  X(archive_read_data_block) \
  X(archive_read_data_skip) \
  X(archive_read_free) \
  X(archive_read_new) \
  X(archive_read_next_header) \
  X(archive_read_open) \
  X(archive_read_support_filter_bzip2) \
  X(archive_read_support_filter_gzip) \
  X(archive_read_support_filter_lz4) \
  X(archive_read_support_filter_zstd) \
  X(archive_read_support_format_raw) \
  X(archive_read_support_format_tar) \
  X(archive_set_error) \
  X(archive_write_add_filter_gzip) \
  X(archive_write_close) \
  X(archive_write_data) \
  X(archive_write_header) \
  X(archive_write_new) \
  X(archive_write_open) \
  X(archive_write_set_format_pax_restricted)
// clang-format on

struct LibArchive {
// NOLINTNEXTLINE(bugprone-macro-parentheses): a member's name, which parentheses cannot enclose
#define KDRIFT_LIBARCHIVE_MEMBER(name) decltype(&::name) name = nullptr;
  KDRIFT_LIBARCHIVE_FUNCTIONS(KDRIFT_LIBARCHIVE_MEMBER)
#undef KDRIFT_LIBARCHIVE_MEMBER
};

// The table, loaded once (safe from any thread). A libarchive that cannot be loaded, or lacks a
// function, is an installation kdrift cannot work with: the one FatalError, naming the library
// and what the loader said, as the dynamic linker would have said at start.
const LibArchive& libarchive();

}  // namespace kdrift
