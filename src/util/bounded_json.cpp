#include "util/bounded_json.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kdrift {
namespace {

// The refusals both readers give, worded once so that the SAX pass and the filtered walk agree.
std::string too_many_values(const JsonLimits& limits) {
  return "more than " + std::to_string(limits.max_values) + " values";
}
std::string too_deep_for(const JsonLimits& limits) {
  return "nested deeper than " + std::to_string(limits.max_depth) + " levels";
}

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
    problem_ = too_many_values(limits_);
    return false;
  }
  bool open() {
    if (++depth_ > limits_.max_depth) {
      problem_ = too_deep_for(limits_);
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

namespace ondemand = simdjson::ondemand;

// The filtered parse as one walk over simdjson's On-Demand document. Every value is visited,
// counted and, for a container, its depth checked, so the limits hold for the whole text as
// they do for a whole parse, and every scalar is read, so the text is refused wherever nlohmann
// would refuse it; only the members keep accepts are built, into the same values nlohmann
// would have made of them.
class FilteredWalk {
 public:
  FilteredWalk(const JsonLimits& limits, const JsonMemberFilter& keep)
      : limits_(limits), keep_(keep) {}

  // Why the document was refused, once a call returned false.
  const std::string& problem() const { return problem_; }

  // The value at depth (its container's depth + 1), built into *built unless built is null.
  bool walk(ondemand::value& value, std::size_t depth, Json* built) {
    ondemand::json_type type = ondemand::json_type::null;
    if (!count() || failed(value.type().get(type))) return false;
    if (type == ondemand::json_type::object) return object(value, depth, built);
    if (type == ondemand::json_type::array) return array(value, depth, built);
    return scalar(value, type, built);
  }

  // A document that is one scalar: simdjson reads it through the document, not as a value.
  bool scalar_document(ondemand::document& document, ondemand::json_type type, Json& built) {
    return count() && scalar(document, type, &built);
  }

  bool failed(simdjson::error_code error) {
    if (error == simdjson::SUCCESS) return false;
    problem_ = std::string("not valid JSON (") + simdjson::error_message(error) + ")";
    return true;
  }

 private:
  bool count() {
    if (++values_ <= limits_.max_values) return true;
    problem_ = too_many_values(limits_);
    return false;
  }

  bool too_deep(std::size_t depth) {
    if (depth <= limits_.max_depth) return false;
    problem_ = too_deep_for(limits_);
    return true;
  }

  // path_[d] names what sits at depth d + 1: a member's name, or "[]" inside an array.
  bool object(ondemand::value& value, std::size_t depth, Json* built) {
    ondemand::object object;
    if (too_deep(depth) || failed(value.get_object().get(object))) return false;
    if (built != nullptr) *built = Json::object();
    for (auto field : object) {
      std::string_view key;
      ondemand::value member;
      if (failed(field.error()) || failed(field.unescaped_key().get(key))) return false;
      Json* kept = nullptr;
      if (built != nullptr) {
        path_.resize(depth);
        path_[depth - 1] = key;
        // A name given twice keeps its last value, as nlohmann's parse does.
        if (keep_(std::span<const std::string>(path_))) kept = &(*built)[path_[depth - 1]];
      }
      if (failed(field.value().get(member)) || !walk(member, depth + 1, kept)) return false;
    }
    return true;
  }

  bool array(ondemand::value& value, std::size_t depth, Json* built) {
    ondemand::array array;
    if (too_deep(depth) || failed(value.get_array().get(array))) return false;
    if (built != nullptr) {
      *built = Json::array();
      path_.resize(depth);
      path_[depth - 1] = "[]";
    }
    for (auto element : array) {
      ondemand::value item;
      if (failed(std::move(element).get(item))) return false;
      if (!walk(item, depth + 1, built != nullptr ? &built->emplace_back() : nullptr)) return false;
    }
    return true;
  }

  // A scalar is read whether it is built or not, so what nlohmann refuses (a bad escape, a
  // number out of range, "tru") is refused wherever it is.
  template <class Value>
  bool scalar(Value& value, ondemand::json_type type, Json* built) {
    switch (type) {
      case ondemand::json_type::string: {
        std::string_view text;
        if (failed(value.get_string().get(text))) return false;
        if (built != nullptr) *built = std::string(text);
        return true;
      }
      case ondemand::json_type::boolean: {
        bool truth = false;
        if (failed(value.get_bool().get(truth))) return false;
        if (built != nullptr) *built = truth;
        return true;
      }
      case ondemand::json_type::null: {
        bool null = false;
        if (failed(value.is_null().get(null)) || (!null && failed(simdjson::N_ATOM_ERROR)))
          return false;
        if (built != nullptr) *built = nullptr;
        return true;
      }
      default:
        return number(value, built);
    }
  }

  // As nlohmann types a number: with a fraction or an exponent a double, else a signed integer
  // (with a minus) or an unsigned one, and a double when the integer does not fit.
  template <class Value>
  bool number(Value& value, Json* built) {
    std::string_view token;
    if (failed(simdjson::simdjson_result<std::string_view>(value.raw_json_token()).get(token)))
      return false;
    // A loop, not find_first_of: that is a memchr per character, and numbers are most values.
    if (std::none_of(token.begin(), token.end(),
                     [](char c) { return c == '.' || c == 'e' || c == 'E'; })) {
      int64_t negative = 0;
      uint64_t positive = 0;
      if (token.starts_with('-') && value.get_int64().get(negative) == simdjson::SUCCESS) {
        if (built != nullptr) *built = negative;
        return true;
      }
      if (!token.starts_with('-') && value.get_uint64().get(positive) == simdjson::SUCCESS) {
        if (built != nullptr) *built = positive;
        return true;
      }
    }
    double real = 0;
    if (failed(value.get_double().get(real))) return false;
    if (built != nullptr) *built = real;
    return true;
  }

  const JsonLimits limits_;
  const JsonMemberFilter& keep_;
  std::vector<std::string> path_;
  std::size_t values_ = 0;
  std::string problem_;
};

constexpr std::size_t kReusedParserBytes = std::size_t{4} << 20;

Result<Json> parse_filtered(ondemand::parser& parser, std::string_view text,
                            const std::string& source, const JsonLimits& limits,
                            const JsonMemberFilter& keep) {
  // nlohmann skips a byte order mark; simdjson would refuse it.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  const simdjson::padded_string padded(text);
  FilteredWalk walk(limits, keep);
  const auto refused = [&] { return content_error(source + ": " + walk.problem()); };
  ondemand::document document;
  ondemand::json_type type = ondemand::json_type::null;
  if (walk.failed(parser.iterate(padded).get(document)) || walk.failed(document.type().get(type)))
    return refused();
  Json built;
  if (type == ondemand::json_type::object || type == ondemand::json_type::array) {
    ondemand::value root;
    if (walk.failed(document.get_value().get(root)) || !walk.walk(root, 1, &built))
      return refused();
  } else if (!walk.scalar_document(document, type, built)) {
    return refused();
  }
  // Anything after the document is refused, as nlohmann refuses it.
  const bool at_end = document.current_location().error() == simdjson::OUT_OF_BOUNDS;
  if (walk.failed(at_end ? simdjson::SUCCESS : simdjson::TRAILING_CONTENT)) return refused();
  return built;
}

}  // namespace

Result<Json> parse_bounded_json(std::string_view text, const std::string& source,
                                const JsonLimits& limits, const JsonMemberFilter& keep) {
  // A parser's buffers are about six times the document it last read: one is kept per thread
  // for documents the size of real snapshots, and a larger one gets its own, freed with it.
  thread_local simdjson::ondemand::parser reused;
  simdjson::ondemand::parser own;
  return parse_filtered(text.size() <= kReusedParserBytes ? reused : own, text, source, limits,
                        keep);
}

}  // namespace kdrift
