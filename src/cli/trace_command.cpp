#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "iobench/device_trace.h"
#include "report/trace_text.h"
#include "util/fatal.h"
#include "util/interrupt_guard.h"
#include "util/text.h"
#include "util/units.h"

namespace kdrift {
namespace {

struct TraceArguments {
  std::string target;
  std::string duration = "10s";
  std::string format = "text";
  std::string output;
  mode_t mode = kDefaultOutputMode;
};

}  // namespace

void register_trace(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<TraceArguments>();
  auto* command = app.add_subcommand(
      "trace", "Count what the block layer does on a device while your own workload runs (BPF)");
  command->add_option("--target", args->target, "Block device, or a file or directory on one")
      ->required();
  command->add_option("--duration", args->duration, "How long to trace (10s; Ctrl-C ends early)");
  command->add_option("--format", args->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  command->add_option("-o,--output", args->output, "Write to FILE (default stdout)");
  add_mode_option(*command, args->mode);
  command->callback([args, &exit_status] {
    const auto duration = parse_duration(args->duration);
    if (!duration || duration->count() <= 0) {
      throw FatalError("--duration: not a duration: " + quote_value(args->duration));
    }
    DeviceTraceOptions options;
    options.target = args->target;
    options.duration = std::chrono::duration_cast<std::chrono::milliseconds>(*duration);
    options.stop_requested = [] { return InterruptGuard::received() != 0; };
    const SysRoot root;
    auto traced = [&] {
      const InterruptGuard interrupt;
      return trace_device(options, root);
    }();
    if (!traced) throw FatalError("trace: " + traced.error().describe());
    if (args->format == "json") {
      write_output(args->output, to_text(*traced), args->mode);
    } else {
      write_output(args->output, render_trace_text(*traced), args->mode);
    }
    exit_status = kExitClean;
  });
}

}  // namespace kdrift
