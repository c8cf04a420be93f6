#include "commands/layer_options.h"

namespace hkim {

void AddLayerOptions(CLI::App* command, std::vector<std::string>& extra_files,
                     std::vector<std::string>& set_values) {
  // allow_extra_args(false): each -f/--set takes exactly one value, so a following positional
  // PROFILE is never swallowed.
  command
      ->add_option("-f,--values", extra_files,
                   "Values file merged over the profile (repeatable, in order; - reads stdin)")
      ->type_name("FILE")
      ->allow_extra_args(false);
  command
      ->add_option("--set", set_values,
                   "Override values, as Helm: --set workload.replicas=8,nccl.debug=INFO or "
                   "--set 'network.rails[name=eno5np0].mtu_bytes=4200' (repeatable; write \\, "
                   "for a comma inside a value)")
      ->type_name("PATH=VALUE")
      ->allow_extra_args(false);
}

void AddLayerOptions(CLI::App* command, LayerInputs& inputs) {
  AddLayerOptions(command, inputs.extra_files, inputs.set_values);
}

void AddAllowOption(CLI::App* command, std::vector<std::string>& allow) {
  command
      ->add_option("--allow", allow,
                   "Accept the warnings of RULE (repeatable); they are shown as accepted notes. "
                   "A profile can list its own: accept_warnings: [{rule: R, reason: ...}]")
      ->type_name("RULE")
      ->allow_extra_args(false);
}

}  // namespace hkim
