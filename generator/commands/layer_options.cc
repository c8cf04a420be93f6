#include "commands/layer_options.h"

namespace hkim {

void AddLayerOptions(CLI::App* command, LayerInputs& inputs) {
  // allow_extra_args(false): each -f/--set takes exactly one value, so a following positional
  // PROFILE is never swallowed.
  command
      ->add_option("-f,--values", inputs.extra_files,
                   "Extra profile layer merged over the profile (repeatable, in order)")
      ->allow_extra_args(false);
  command
      ->add_option("--set", inputs.set_values,
                   "Override one value, e.g. --set workload.replicas=8 or "
                   "--set 'network.rails[name=eno5np0].mtu_bytes=4200' (repeatable; commas are "
                   "part of the value)")
      ->allow_extra_args(false);
}

void AddOutputFormatOption(CLI::App* command, std::string& format) {
  command->add_option("--output", format, "Report format: text (gcc-style) or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
}

}  // namespace hkim
