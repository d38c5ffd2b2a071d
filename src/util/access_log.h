#pragma once
// What a capture read, kept so dump-sysroot can write exactly those files (with the symlinks that
// resolve them and the errors the live host gave) and a replay with --root sees the same thing.

#include <map>
#include <set>
#include <string>

namespace kdrift {

class AccessLog {
 public:
  void file(const std::string& path, const std::string& content) { files_[path] = content; }
  void directory(const std::string& path) { directories_.insert(path); }
  void symlink(const std::string& path, const std::string& target) { symlinks_[path] = target; }
  // A regular file seen in a directory listing; dumped only if something also read it.
  void listed_file(const std::string& path) { listed_files_.insert(path); }
  void failure(const std::string& path, int code) { failures_[path] = code; }

  const std::map<std::string, std::string>& files() const { return files_; }
  const std::set<std::string>& directories() const { return directories_; }
  const std::map<std::string, std::string>& symlinks() const { return symlinks_; }
  const std::map<std::string, int>& failures() const { return failures_; }
  // Listed regular files that were never read: the dump names them so listings replay whole.
  std::set<std::string> unread_files() const;

 private:
  std::map<std::string, std::string> files_;
  std::set<std::string> directories_;
  std::map<std::string, std::string> symlinks_;
  std::set<std::string> listed_files_;
  std::map<std::string, int> failures_;
};

}  // namespace kdrift
