#include "probe/fio_import.h"

#include "model/probe_job.h"
#include "snapshot/json_access.h"
#include "util/bounded_json.h"
#include "util/input_file.h"
#include "util/text.h"
#include "util/units.h"

namespace kdrift {
namespace {

// fio's output nests 7 levels (jobs[].read.clat_ns.percentile.N) and each file in
// tests/fixtures/fio holds 250 values in 6.5 KB; --output-format=json+ adds up to ~1,900
// latency bins (~30 KB) per job and direction. A million values and 32 MiB admit json+ output
// of 250 jobs that both read and write, every bin filled; 32 levels is four times fio's depth.
// A hostile file (a percentile nested 500,000 deep, millions of empty arrays) is refused while
// parsing, before it can exhaust the stack or the memory of what reads it.
constexpr size_t kMaxFioOutputBytes = size_t{32} << 20;
constexpr JsonLimits kFioLimits{.max_depth = 32, .max_values = 1'000'000};

// A job's option: its own "job options" first, then the file's "global options".
std::string option(const Json& job, const Json& global, const char* key) {
  for (const Json* options : {&job, &global}) {
    const auto it = options->find(key);
    if (it != options->end() && it->is_string()) return it->get<std::string>();
  }
  return "";
}

bool enabled(const std::string& value) {
  return !value.empty() && value != "0";
}

// fio's engine options mapped onto kdrift's engine label.
std::string engine_label(const Json& options, const Json& global) {
  std::string engine = option(options, global, "ioengine");
  if (engine.empty()) engine = "psync";
  if (engine == "io_uring") {
    if (enabled(option(options, global, "hipri"))) engine += "+iopoll";
    if (enabled(option(options, global, "sqthread_poll"))) engine += "+sqpoll";
    if (enabled(option(options, global, "fixedbufs"))) engine += "+fixedbufs";
    if (enabled(option(options, global, "registerfiles"))) engine += "+regfiles";
  } else if (engine == "pvsync2" && enabled(option(options, global, "hipri"))) {
    engine += "+hipri";
  }
  return engine;
}

Json latency(const Json& fio_direction, const char* key) {
  const auto it = fio_direction.find(key);
  if (it == fio_direction.end() || !it->is_object()) return Json::object();
  Json out = {{"min", integer_member(*it, "min").value_or(0)},
              {"max", integer_member(*it, "max").value_or(0)},
              {"mean", it->value("mean", 0.0)},
              {"stddev", it->value("stddev", 0.0)}};
  if (const auto percentiles = it->find("percentile"); percentiles != it->end()) {
    out["percentile"] = *percentiles;
  }
  return out;
}

Json direction(const Json& fio_direction) {
  const double runtime_ms = fio_direction.value("runtime", 0.0);
  Json out = {{"ios", integer_member(fio_direction, "total_ios").value_or(0)},
              {"bytes", integer_member(fio_direction, "io_bytes").value_or(0)},
              {"iops", fio_direction.value("iops", 0.0)},
              {"bw_bytes", fio_direction.value("bw_bytes", 0.0)},
              {"slat_ns", latency(fio_direction, "slat_ns")},
              {"clat_ns", latency(fio_direction, "clat_ns")},
              {"lat_ns", latency(fio_direction, "lat_ns")},
              {"runtime_s", runtime_ms / 1000}};
  if (fio_direction.contains("iops_min")) {
    out["iops_per_second"] = {{"min", fio_direction.value("iops_min", 0.0)},
                              {"median", fio_direction.value("iops_mean", 0.0)},
                              {"max", fio_direction.value("iops_max", 0.0)}};
  }
  return out;
}

Result<Json> import_document(std::string_view text, const std::string& source) {
  const auto brace = text.find('{');
  if (brace == std::string_view::npos) return content_error(source + ": no JSON object in it");
  auto parsed = parse_bounded_json(text.substr(brace), source, kFioLimits);
  if (!parsed) return parsed.error();
  const Json& document = *parsed;
  if (!document.is_object()) return content_error(source + ": not a JSON object");
  const auto fio_jobs = document.find("jobs");
  if (fio_jobs == document.end() || !fio_jobs->is_array()) {
    return content_error(source + ": no \"jobs\" array: not fio --output-format=json output");
  }
  const Json global = document.value("global options", Json::object());
  Json jobs = Json::array();
  for (const auto& fio_job : *fio_jobs) {
    if (!fio_job.is_object()) return content_error(source + ": a job is not an object");
    const Json options = fio_job.value("job options", Json::object());
    // fio writes every option as a string; anything else is not fio's output.
    for (const Json* table : {&options, &global}) {
      for (const auto& [key, value] : table->items()) {
        if (!value.is_string()) {
          return content_error(source + ": option \"" + key + "\" is not a string");
        }
      }
    }
    const std::string rw = option(options, global, "rw");
    const auto bs = parse_size(option(options, global, "bs"));
    const auto depth = parse_uint(option(options, global, "iodepth"));
    const int64_t error = integer_member(fio_job, "error").value_or(0);
    Json job = {
        {"name", fio_job.value("jobname", std::string("fio"))},
        {"workload", fio_job.value("jobname", std::string("fio"))},
        {"engine", engine_label(options, global)},
        {"rw", rw.empty() ? "read" : rw},
        {"bs", bs.value_or(4096)},
        {"iodepth", depth.value_or(1)},
        {"status", error == 0 ? "ok" : "failed"},
        {"cpu",
         {{"usr_pct", fio_job.value("usr_cpu", 0.0)}, {"sys_pct", fio_job.value("sys_cpu", 0.0)}}}};
    if (error != 0) {
      job["failure"] = {{"errno", error}, {"error", "reported by fio"}};
    }
    double elapsed_s = 0;
    for (const char* key : {"read", "write"}) {
      const auto stats = fio_job.find(key);
      if (stats == fio_job.end() || integer_member(*stats, "total_ios").value_or(0) == 0) continue;
      job[key] = direction(*stats);
      elapsed_s = std::max(elapsed_s, job[key].value("runtime_s", 0.0));
    }
    job["elapsed_s"] = elapsed_s;
    jobs.push_back(std::move(job));
  }
  return Json{{"profile", {{"name", "fio"}, {"source", source}}},
              {"imported_from",
               {{"tool", "fio"},
                {"version", document.value("fio version", std::string("?"))},
                {"timestamp", integer_member(document, "timestamp").value_or(0)}}},
              {"jobs", std::move(jobs)}};
}

}  // namespace

Result<Json> import_fio(std::string_view text, const std::string& source) {
  try {
    return import_document(text, source);
  } catch (const Json::exception& error) {
    // A field of an unexpected type ("iodepth": [1]) in a hand-edited or foreign file.
    return content_error(source + ": unexpected fio JSON: " + error.what());
  }
}

Result<Json> import_fio_file(const std::string& path) {
  auto text = read_whole_file(path, kMaxFioOutputBytes);
  if (!text) return text.error();
  return import_fio(*text, path);
}

}  // namespace kdrift
