#include "util/bounded_json.h"

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

}  // namespace kdrift
