#include "support/probe_runs.h"

namespace kdrift::testing {

Json probe_json(const std::string& arguments) {
  const auto run = run_kdrift("probe --format json " + arguments, true);
  EXPECT_EQ(run.status, 0) << arguments << "\n" << run.out;
  auto document = parse_snapshot(run.out, "probe output");
  EXPECT_TRUE(document.ok()) << run.out;
  return document.ok() ? (*document)["probe"] : Json::object();
}

const Json& job_named(const Json& probe, const std::string& name) {
  static const Json missing = Json::object();
  for (const auto& job : probe["jobs"]) {
    if (job["name"] == name) return job;
  }
  ADD_FAILURE() << "no job " << name << " in " << probe["jobs"].dump(1);
  return missing;
}

}  // namespace kdrift::testing
