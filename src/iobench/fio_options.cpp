#include "iobench/fio_options.h"

#include <charconv>
#include <tuple>

#include "snapshot/json_access.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr const char* kValuelessLeftOut =
    "fio before 3.39 leaves out an option given without a value";

// Whether "fio version" ("fio-3.42", "fio-3.39-12-g6f77155") is major.minor or later.
bool fio_version_at_least(const Json& document, uint64_t major, uint64_t minor) {
  const std::string version = text_member(document, "fio version");
  if (version.rfind("fio-", 0) != 0) return false;
  const char* last = version.data() + version.size();
  uint64_t got_major = 0;
  uint64_t got_minor = 0;
  const auto major_end = std::from_chars(version.data() + 4, last, got_major);
  if (major_end.ec != std::errc() || major_end.ptr == last || *major_end.ptr != '.') return false;
  if (std::from_chars(major_end.ptr + 1, last, got_minor).ec != std::errc()) return false;
  return std::tie(got_major, got_minor) >= std::tie(major, minor);
}

bool has_empty_value(const Json* table) {
  if (table == nullptr || !table->is_object()) return false;
  for (const auto& value : *table) {
    if (value.is_string() && value.get_ref<const std::string&>().empty()) return true;
  }
  return false;
}

// fio 3.39 is the first to write an option given without a value ("" in the JSON): in a file of
// 3.39 or later, or one where such an option shows, an absent flag was not given.
bool states_valueless_options(const Json& document) {
  if (fio_version_at_least(document, 3, 39)) return true;
  if (const Json* global = member(document, "global options")) {
    if (has_empty_value(global)) return true;
    if (global->is_array()) {
      for (const auto& entry : *global)
        if (has_empty_value(&entry)) return true;
    }
  }
  for (const char* list : {"jobs", "client_stats"}) {
    for (const auto& job : array_at(document, {list}))
      if (has_empty_value(member(job, "job options"))) return true;
  }
  return false;
}

bool several_clients(const Json& document, const std::map<FioClient, size_t>& clients) {
  if (clients.size() > 1) return true;
  for (const auto& job : array_at(document, {"client_stats"})) {
    if (text_member(job, "jobname") == kFioAllClientsJob) return true;
  }
  return false;
}

// One entry of the list form: its client, and its options without the members naming it.
struct ClientGlobals {
  FioClient client;
  Json options;
};

Result<ClientGlobals> client_globals(const Json& entry, size_t index, const std::string& source) {
  const std::string where = source + ": global options entry " + std::to_string(index + 1);
  if (!entry.is_object()) return content_error(where + " is not an object");
  const Json* hostname = member(entry, "hostname");
  if (hostname == nullptr || !hostname->is_string()) {
    return content_error(where + " names no client: \"hostname\" is missing or not a string");
  }
  const auto port = count_member(entry, "port");
  if (!port || !entry["port"].is_number_integer()) {
    return content_error(where + " names no client: \"port\" is missing or not a port number");
  }
  ClientGlobals out{{hostname->get<std::string>(), *port}, entry};
  out.options.erase("hostname");
  out.options.erase("port");
  if (auto checked = check_fio_options(out.options, where); !checked) return checked.error();
  return out;
}

}  // namespace

FioClient FioClient::of(const Json& fio_job) {
  return {text_member(fio_job, "hostname"), count_member(fio_job, "port")};
}

std::string FioClient::label(bool with_port) const {
  if (!with_port || !port) return hostname;
  const bool ipv6 = hostname.find(':') != std::string::npos;
  return (ipv6 ? "[" + hostname + "]" : hostname) + ":" + std::to_string(*port);
}

bool FioClient::operator<(const FioClient& other) const {
  return std::tie(hostname, port) < std::tie(other.hostname, other.port);
}

FioFlag fio_flag_value(const std::string& value) {
  if (value.empty()) return FioFlag::kSet;
  uint64_t number = 0;
  const bool hex = value.size() > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
  const char* first = value.data() + (hex ? 2 : 0);
  const char* last = value.data() + value.size();
  const auto [end, error] = std::from_chars(first, last, number, hex ? 16 : 10);
  if (error != std::errc() || end != last) return FioFlag::kUnknown;
  return number != 0 ? FioFlag::kSet : FioFlag::kUnset;
}

FioOptions::FioOptions(const Json& job, const Json* global, std::string why_unknown,
                       bool absent_flags_are_unset)
    : job_(job),
      global_(global),
      why_absent_(global != nullptr ? kFioNotInOutput : std::move(why_unknown)),
      absent_flags_are_unset_(absent_flags_are_unset) {}

std::optional<std::string> FioOptions::get(std::initializer_list<const char*> names) const {
  for (const Json* table : {&job_, global_}) {
    if (table == nullptr) continue;
    for (const char* name : names) {
      const auto it = table->find(name);
      if (it != table->end() && it->is_string()) return it->get<std::string>();
    }
  }
  return std::nullopt;
}

FioOptions::Flag FioOptions::flag(const char* name) const {
  const auto value = get({name});
  if (!value) {
    if (global_ == nullptr) return {FioFlag::kUnknown, why_absent_};
    if (absent_flags_are_unset_) return {FioFlag::kUnset, {}};
    return {FioFlag::kUnknown, kValuelessLeftOut};
  }
  const FioFlag state = fio_flag_value(*value);
  if (state != FioFlag::kUnknown) return {state, {}};
  return {state,
          std::string(name) + "=" + quote_value(*value) + " is not a value fio takes for it"};
}

Result<FioGlobalOptions> FioGlobalOptions::read(const Json& document,
                                                const std::map<FioClient, size_t>& clients,
                                                const std::string& source) {
  FioGlobalOptions out;
  out.absent_flags_are_unset_ = states_valueless_options(document);
  const Json global = document.value("global options", Json::object());
  if (global.is_object()) {
    if (auto checked = check_fio_options(global, source + ": global options"); !checked) {
      return checked.error();
    }
    out.shared_.options = global;
    if (!global.empty() && several_clients(document, clients)) {
      out.shared_.why_unknown =
          "fio before 3.39 writes the global options of every client into one object: which "
          "client's options they are is not in the file";
    }
    return out;
  }
  if (!global.is_array()) {
    return content_error(source + ": global options are neither an object nor a list");
  }
  auto& per_client = out.per_client_.emplace();
  for (size_t i = 0; i < global.size(); ++i) {
    auto entry = client_globals(global[i], i, source);
    if (!entry) return entry.error();
    const auto [it, added] = per_client.try_emplace(entry->client, Known{entry->options, {}});
    if (!added && it->second.options != entry->options) {
      // One server given twice (--client=h,p a.fio --client=h,p b.fio): fio runs both and
      // names both alike, so no job says which set it ran with.
      it->second.why_unknown = "fio wrote two different sets of global options for clients at " +
                               entry->client.label(true) + ": which this job ran with is not known";
    }
  }
  return out;
}

FioOptions FioGlobalOptions::for_job(const Json& fio_job, const Json& job_options) const {
  static const Json kNone = Json::object();
  const auto options_of = [&](const Known& known) {
    if (!known.why_unknown.empty()) {
      return FioOptions(job_options, nullptr, known.why_unknown, absent_flags_are_unset_);
    }
    return FioOptions(job_options, &known.options, {}, absent_flags_are_unset_);
  };
  if (!per_client_) return options_of(shared_);
  const FioClient client = FioClient::of(fio_job);
  const Json* hostname = member(fio_job, "hostname");
  if (!client.port || hostname == nullptr || !hostname->is_string()) {
    return FioOptions(job_options, nullptr,
                      "this job names no client (hostname and port) to find its global options "
                      "by among the file's list of them",
                      absent_flags_are_unset_);
  }
  const auto it = per_client_->find(client);
  // fio lists only the clients that had global options.
  if (it == per_client_->end()) return FioOptions(job_options, &kNone, {}, absent_flags_are_unset_);
  return options_of(it->second);
}

Result<bool> check_fio_options(const Json& table, const std::string& where) {
  if (!table.is_object()) return content_error(where + " are not an object");
  for (const auto& [key, value] : table.items()) {
    if (!value.is_string()) {
      return content_error(where + ": option \"" + key + "\" is not a string");
    }
  }
  return true;
}

}  // namespace kdrift
