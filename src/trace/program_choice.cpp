#include "trace/program_choice.h"

namespace kdrift {

std::vector<ProgramChoice> choose_programs(const std::vector<TracepointPrograms>& wanted,
                                           const TraceFeatures& features) {
  std::vector<ProgramChoice> choices;
  const auto no_btf = features.unavailable();
  for (const auto& entry : wanted) {
    ProgramChoice choice{entry.tracepoint, std::nullopt, ""};
    const auto arguments = no_btf ? std::nullopt : features.tracepoint_arguments(entry.tracepoint);
    if (no_btf) {
      choice.reason = *no_btf;
    } else if (!arguments) {
      choice.reason = "this kernel has no tracepoint " + entry.tracepoint;
    } else {
      std::string known;
      for (const auto& variant : entry.variants) {
        if (variant.arguments == *arguments || variant.arguments == ProgramVariant::kAnyArguments) {
          choice.program = variant.program;
        }
        known += (known.empty() ? "" : " or ") + std::to_string(variant.arguments);
      }
      if (!choice.program) {
        choice.reason = "tracepoint " + entry.tracepoint + " takes " + std::to_string(*arguments) +
                        " arguments here; kdrift knows layouts with " + known;
      }
    }
    choices.push_back(std::move(choice));
  }
  return choices;
}

}  // namespace kdrift
