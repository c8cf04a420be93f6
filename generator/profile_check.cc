#include "profile_check.h"

#include "lint.h"
#include "validate.h"

namespace hkim {

std::optional<Profile> CheckLoadedProfile(const LoadedProfile& loaded, DiagnosticSink& sink) {
  const ProfileSchema* schema = ProfileSchema::Embedded(sink);
  if (schema == nullptr) return std::nullopt;
  if (!ValidateProfile(loaded, *schema, sink) || sink.HasErrors()) return std::nullopt;
  std::optional<Profile> profile = BuildProfile(loaded, sink);
  if (!profile || sink.HasErrors()) return std::nullopt;
  RunLint(*profile, loaded, sink);
  return profile;
}

std::optional<CheckedProfile> CheckProfile(const LayerInputs& inputs, DiagnosticSink& sink,
                                           SourceTexts* sources) {
  std::optional<LayeredProfile> layered = LoadLayeredProfile(inputs, sink, sources);
  if (!layered) return std::nullopt;
  CheckedProfile checked{std::move(*layered), std::nullopt};
  if (!sink.HasErrors()) checked.profile = CheckLoadedProfile(checked.layered.merged, sink);
  return checked;
}

}  // namespace hkim
