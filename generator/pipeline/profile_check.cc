#include "pipeline/profile_check.h"

#include "lint/lint.h"
#include "plan/closure.h"
#include "plan/plan.h"
#include "validate/validate.h"

namespace hkim {

std::optional<Profile> CheckLoadedProfile(const LoadedProfile& loaded, DiagnosticSink& sink,
                                          BundlePlan* plan) {
  const ProfileSchema* schema = ProfileSchema::Embedded(sink);
  if (schema == nullptr) return std::nullopt;
  if (!ValidateProfile(loaded, *schema, sink) || sink.HasErrors()) return std::nullopt;
  // Lint runs even after the model's cross-field errors, so every fault of a profile with
  // several is reported in one run; its rules never repeat a model.* finding.
  std::optional<Profile> profile = BuildProfileForLint(loaded, sink);
  if (!profile) return std::nullopt;
  RunLint(*profile, loaded, sink);
  if (sink.HasErrors()) return std::nullopt;
  // Closure (plan/closure.h): what render would refuse, validate and lint report too.
  BundlePlan planned = PlanBundle(*profile);
  if (CheckClosure(*profile, loaded, planned, sink) > 0) return std::nullopt;
  if (plan != nullptr) *plan = std::move(planned);
  return profile;
}

std::optional<CheckedProfile> CheckLayeredProfile(const LayerInputs& inputs, DiagnosticSink& sink,
                                                  SourceTexts* sources) {
  std::optional<LayeredProfile> layered = LoadLayeredProfile(inputs, sink, sources);
  if (!layered) return std::nullopt;
  CheckedProfile checked{std::move(*layered), std::nullopt, std::nullopt};
  if (sink.HasErrors()) return checked;
  BundlePlan plan;
  checked.profile = CheckLoadedProfile(checked.layered.merged, sink, &plan);
  if (checked.profile) checked.plan = std::move(plan);
  return checked;
}

}  // namespace hkim
