#pragma once
// `kdrift bisect step` on the live host: the boot identity and kexec as bisect reads and does
// them, the probe and a finding's judge from here (measuring needs probe, collect and checks
// together), and the state directory's journal.

#include <string>

#include "bisect/bisect_dir.h"
#include "bisect/machine_step_host.h"

namespace kdrift {

class LiveStepHost : public MachineStepHost {
 public:
  // root_path: --root ("/" for the live host, where alone the probe runs); checks_directory:
  // more rules for a predicate, or empty.
  // method boots the next candidate; reboot false leaves a loader's entry set for a person.
  LiveStepHost(const SysRoot& root, BootMethod& method, bool reboot, std::string root_path,
               std::string checks_directory, const BisectDir& dir);

  Result<std::vector<double>> probe(const ProbeMetric& metric, const std::string& target,
                                    int runs) override;
  Result<Json> judge_finding(const Session& session, std::size_t candidate) override;
  Result<CandidateBuild> build_kernel(const Session& session, std::size_t candidate) override;
  std::string built_kernel(const Candidate& candidate) const override;

 private:
  std::string root_path_;
  std::string checks_directory_;
  const BisectDir& dir_;
};

class DirectoryJournal : public StepJournal {
 public:
  explicit DirectoryJournal(BisectDir& dir) : dir_(dir) {}
  Result<Session> record(const Json& event) override { return dir_.record(event); }

 private:
  BisectDir& dir_;
};

}  // namespace kdrift
