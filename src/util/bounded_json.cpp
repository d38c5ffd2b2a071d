#include "util/bounded_json.h"

#include <vector>

namespace kdrift {
namespace {

using Json = nlohmann::json;

// A first pass that builds nothing: it counts, and stops at the first value over a limit, so a
// refused document costs no memory. Only a document within the limits is then built.
class LimitCheck final : public nlohmann::json_sax<Json> {
 public:
  explicit LimitCheck(const JsonLimits& limits) : limits_(limits) {}

  // Empty when the document is within the limits (or not JSON: parse_error says so).
  const std::string& problem() const { return problem_; }

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& error) override {
    problem_ = std::string("not valid JSON (") + error.what() + ")";
    return false;
  }

 private:
  bool value() {
    if (++values_ <= limits_.max_values) return true;
    problem_ = "more than " + std::to_string(limits_.max_values) + " values";
    return false;
  }
  bool open() {
    if (++depth_ > limits_.max_depth) {
      problem_ = "nested deeper than " + std::to_string(limits_.max_depth) + " levels";
      return false;
    }
    return value();
  }
  bool close() {
    --depth_;
    return true;
  }

  JsonLimits limits_;
  size_t values_ = 0;
  size_t depth_ = 0;
  std::string problem_;
};

}  // namespace

Result<Json> parse_bounded_json(std::string_view text, const std::string& source,
                                const JsonLimits& limits) {
  LimitCheck check(limits);
  if (!Json::sax_parse(text, &check)) return content_error(source + ": " + check.problem());
  // Valid and within the limits: this parse cannot fail.
  return Json::parse(text);
}

namespace {

// Raised inside the filtered parse when the document passes a limit; caught before it returns.
struct OverLimit {
  std::string problem;
};

}  // namespace

Result<Json> parse_bounded_json(std::string_view text, const std::string& source,
                                const JsonLimits& limits, const JsonMemberFilter& keep) {
  // One pass: thousands of documents are read this way (kdrift fleet), and lexing is most of the
  // cost. The parser reports every container's start and every value, built or not, so the
  // limits hold for the whole text.
  // path[d] names what sits at depth d + 1: a member's name, or "[]" inside an array. A key is
  // reported at the depth of its object, a container's start at its parent's.
  std::vector<std::string> path;
  size_t values = 0;
  const Json::parser_callback_t filter = [&](int depth, Json::parse_event_t event, Json& parsed) {
    const auto level = static_cast<size_t>(depth);
    switch (event) {
      case Json::parse_event_t::array_start:
      case Json::parse_event_t::object_start:
        if (level + 1 > limits.max_depth) {
          throw OverLimit{"nested deeper than " + std::to_string(limits.max_depth) + " levels"};
        }
        if (event == Json::parse_event_t::array_start) {
          path.resize(level + 1);
          path[level] = "[]";
        }
        return true;
      case Json::parse_event_t::key:
        path.resize(level);
        path[level - 1] = parsed.get<std::string>();
        return keep(std::span<const std::string>(path));
      case Json::parse_event_t::value:
        if (++values > limits.max_values) {
          throw OverLimit{"more than " + std::to_string(limits.max_values) + " values"};
        }
        return true;
      default:
        return true;
    }
  };
  try {
    return Json::parse(text, filter);
  } catch (const OverLimit& over) {
    return content_error(source + ": " + over.problem);
  } catch (const Json::exception& error) {
    return content_error(source + ": not valid JSON (" + error.what() + ")");
  }
}

}  // namespace kdrift
