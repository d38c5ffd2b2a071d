#include "util/budgeted_backend.h"

#include <cerrno>

namespace kdrift {

bool BudgetedBackend::spent() const {
  return operations_ > budget_.operations || bytes_ > budget_.bytes || entries_ > budget_.entries;
}

std::string BudgetedBackend::limit_passed() const {
  std::string limit;
  if (operations_ > budget_.operations) {
    limit = std::to_string(budget_.operations) + " lookups and reads";
  } else if (bytes_ > budget_.bytes) {
    limit = std::to_string(budget_.bytes) + " bytes of files";
  } else {
    limit = std::to_string(budget_.entries) + " directory entries";
  }
  return name_ + " holds more than " + limit + ", far more than a capture of any host reads";
}

Status BudgetedBackend::spend(const std::string& path) const {
  ++operations_;
  if (spent()) return make_error(E2BIG, path + ": " + limit_passed());
  return ok_status();
}

Status BudgetedBackend::within_budget() const {
  if (spent()) return content_error(limit_passed());
  return ok_status();
}

Result<EntryKind> BudgetedBackend::kind(const std::string& path) const {
  if (auto spent = spend(path); !spent) return spent.error();
  return inner_->kind(path);
}

Result<std::string> BudgetedBackend::link_target(const std::string& path) const {
  if (auto spent = spend(path); !spent) return spent.error();
  return inner_->link_target(path);
}

Result<std::string> BudgetedBackend::read(const std::string& path, size_t max_bytes,
                                          ReadExtent extent) const {
  if (auto spent = spend(path); !spent) return spent.error();
  auto content = inner_->read(path, max_bytes, extent);
  if (content) bytes_ += content->size();
  return content;
}

Result<std::vector<DirEntry>> BudgetedBackend::list(const std::string& path) const {
  if (auto spent = spend(path); !spent) return spent.error();
  auto entries = inner_->list(path);
  if (entries) entries_ += entries->size();
  return entries;
}

Result<std::string> BudgetedBackend::host_path(const std::string& path) const {
  return inner_->host_path(path);
}

}  // namespace kdrift
