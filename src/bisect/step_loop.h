#pragma once
// What `kdrift bisect step` does on the boot it runs on, after plan_step has said what is due:
// record a crash or an isolation test's candidate and plan again, measure this boot and record
// it, or record the attempt and kexec into the next candidate. The machine (its boot identity,
// the probe, a finding's judge, kexec) and the journal are interfaces, so that tests drive the
// loop through kills and reboots with fakes.

#include <iosfwd>
#include <string>
#include <vector>

#include "bisect/session.h"
#include "bisect/step.h"
#include "boot/boot_method.h"
#include "model/bisect_metric.h"
#include "util/result.h"

namespace kdrift {

class StepHost {
 public:
  virtual ~StepHost() = default;
  virtual Result<BootIdentity> boot_identity() = 0;
  // One value per run of the probe on target.
  virtual Result<std::vector<double>> probe(const ProbeMetric& metric, const std::string& target,
                                            int runs) = 0;
  // A functional bisect's verdict event on this boot for the candidate (without boot id and
  // attempt): the start's finding observed here against the endpoints'.
  virtual Result<Json> judge_finding(const Session& session, std::size_t candidate) = 0;
  // Whether this host can boot image the bisect's way (the machine, the boot loader, the
  // image's files); checked before an attempt is recorded.
  virtual Status prepare_boot(const BootImage& image) = 0;
  // Starts the boot into the image (kexec, or a loader's one-shot entry and a reboot): returns
  // only on a dry run, when the reboot is left to a person, or with an error.
  virtual Status start_boot(const BootImage& image, bool dry_run) = 0;
  // A kernel bisect (kernel_source.h): builds the candidate, its kernel kept at
  // built_kernel(candidate). A host that builds nothing says so.
  virtual Result<CandidateBuild> build_kernel(const Session& session, std::size_t candidate) = 0;
  virtual std::string built_kernel(const Candidate& candidate) const = 0;
};

class StepJournal {
 public:
  virtual ~StepJournal() = default;
  // Durable when it returns; the journal replayed with the event.
  virtual Result<Session> record(const Json& event) = 0;
};

struct StepOutcome {
  bool finished = false;  // the bisect has its answer (or refused); else a dry run stopped
  Session session;        // as recorded when the step stopped
};

// Runs step until the bisect finishes, a boot into a candidate is started, or (dry_run) the
// first thing it would record. Says what it does on out. Errors (a wrong boot, a failed
// measurement or kexec) leave recorded only what was recorded before them.
Result<StepOutcome> run_step(Session session, StepHost& host, StepJournal& journal, bool dry_run,
                             std::ostream& out);

// The image that boots plan's candidate with this bisect's token: the candidate's own command
// line, or the running one without its boot words; a built candidate's kernel is built_kernel.
BootImage candidate_image(const Session& session, const StepPlan& plan, const BootIdentity& boot,
                          const std::string& built_kernel = "");

// A file name for what a step saves about a candidate, unique per journal position: the attempt
// count, the candidate's name with what a file name should not hold as '_', the boots measured.
std::string step_snapshot_name(const Session& session, std::size_t candidate);

}  // namespace kdrift
