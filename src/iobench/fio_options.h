#pragma once
// fio's options as its JSON states them: a job's "job options" and the "global options" of the
// client it ran on. fio writes every option it was given under the name it was given, as a
// string; what changed between versions is written down here so that the importer states no
// more than the file does:
// - An option given without a value (`time_based`, `group_reporting` on a job file line) is a
//   flag that is set. fio 3.39 writes it as "" (json: allow empty string values, 4a1f2a5b);
//   earlier versions leave it out, so there an absent flag says nothing.
// - fio 3.39 and later, as a client of several servers, write "global options" as a list: one
//   object per client that had any, naming it by "hostname" and "port" beside its options
//   (client: separate global options from multiple servers, 6f771553). Earlier versions merged
//   every client's global options into one object, which then belongs to no client in particular.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

// Why a value the importer looks for is absent, when the file simply does not have it.
inline constexpr const char* kFioNotInOutput = "not in this fio output";
// fio's name for the sum it adds to client/server output over every client (client.c).
inline constexpr std::string_view kFioAllClientsJob = "All clients";

// A client of fio's client/server mode as its output names it. A job of plain fio output has
// neither member and is the one unnamed client.
struct FioClient {
  std::string hostname;
  std::optional<uint64_t> port;

  static FioClient of(const Json& fio_job);
  // "host", or "host:port" ("[::1]:8765") when the port is needed to tell clients apart.
  std::string label(bool with_port) const;
  bool operator<(const FioClient& other) const;
};

enum class FioFlag { kSet, kUnset, kUnknown };

// fio's reading of a flag option's value (parse.c, FIO_OPT_STR_SET and FIO_OPT_BOOL): no value
// ("") is set; a number, decimal or 0x hex, is set unless it is 0. fio refuses anything else,
// so such a value is no flag fio ran with: unknown.
FioFlag fio_flag_value(const std::string& value);

// The options one job ran with: its own first, then its client's global options.
class FioOptions {
 public:
  // global is null when the job's global options are not known; why_unknown then says why.
  FioOptions(const Json& job, const Json* global, std::string why_unknown,
             bool absent_flags_are_unset);

  // The first of names (an option and its aliases: rw, readwrite) the options state.
  std::optional<std::string> get(std::initializer_list<const char*> names) const;
  // Why an option get() did not find is not known.
  const std::string& why_absent() const { return why_absent_; }
  // Whether the job's global options are known (they may be empty).
  bool global_known() const { return global_ != nullptr; }

  struct Flag {
    FioFlag state;
    std::string why_unknown;  // when state is kUnknown
  };
  Flag flag(const char* name) const;

 private:
  const Json& job_;
  const Json* global_;
  std::string why_absent_;
  bool absent_flags_are_unset_;
};

// A document's "global options", each job's found by the client it ran on.
class FioGlobalOptions {
 public:
  // clients: how many entries of the document's job list each client has. Errors name source
  // and what is wrong: not an object or a list, a list entry that is not an object or names no
  // client, an option that is not a string.
  static Result<FioGlobalOptions> read(const Json& document,
                                       const std::map<FioClient, size_t>& clients,
                                       const std::string& source);

  FioOptions for_job(const Json& fio_job, const Json& job_options) const;

 private:
  struct Known {
    Json options;
    std::string why_unknown;  // non-empty: options are not known for this client
  };
  Known shared_;                                          // the object form: one for every job
  std::optional<std::map<FioClient, Known>> per_client_;  // the list form
  bool absent_flags_are_unset_ = false;
};

// fio writes every option as a string; anything else is not fio's output. where names the table
// in the error ("job options of \"cs\"").
Result<bool> check_fio_options(const Json& table, const std::string& where);

}  // namespace kdrift
