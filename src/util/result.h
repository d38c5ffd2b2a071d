#pragma once
// Recoverable errors are values: an errno plus the context that explains it (which file, what
// was expected). Only FatalError (fatal.h) is thrown, and only main catches it.

#include <cerrno>
#include <string>
#include <utility>
#include <variant>

namespace kdrift {

struct Error {
  int code = 0;         // errno value, or 0 when the problem is the content, not the syscall
  std::string context;  // e.g. "/sys/block/vda/queue/scheduler"

  // "context: strerror(code)" or just the context when code is 0.
  std::string describe() const;
};

Error make_error(int code, std::string context);
// An error about content (a value that does not parse, a truncated file): no errno.
Error content_error(std::string context);

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<Error>(state_); }

  T value_or(T fallback) const& { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<T, Error> state_;
};

// For operations that produce nothing but can fail.
struct Done {};
using Status = Result<Done>;
inline Status ok_status() {
  return Done{};
}

}  // namespace kdrift
