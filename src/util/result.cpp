#include "util/result.h"

#include <cstring>

namespace kdrift {

std::string Error::describe() const {
  if (code == 0) return context;
  return context + ": " + std::strerror(code);
}

Error make_error(int code, std::string context) {
  return Error{code, std::move(context)};
}

Error content_error(std::string context) {
  return Error{0, std::move(context)};
}

}  // namespace kdrift
