#pragma once

// The lint rule groups (one file each) and the helpers they share. Only lint/lint.cc includes this.

#include <optional>
#include <string>
#include <vector>

#include "lint/lint.h"

namespace hkim {

/// Rails, NADs, SR-IOV resources, VF and IP capacity, subnets.
std::vector<LintRule> NetworkLintRules();
/// Network values as addresses: host bits in a network, a gateway outside its subnet.
std::vector<LintRule> AddressLintRules();
/// NCCL variables: cross-NIC, GPUDirect/DMA-BUF, NCCL_IB_HCA and NCCL_SOCKET_IFNAME lists.
std::vector<LintRule> NcclLintRules();
/// Node shape: GPUs per pod, IOMMU policy and kernel arguments.
std::vector<LintRule> NodeLintRules();
/// Operators: node policy / device plugin per resource, VFs per PF, device ids, GPUDirect mode,
/// supported releases, platform, Manual approval, privileged VF DaemonSet.
std::vector<LintRule> OperatorLintRules();
/// Operator versions against the release catalog (release_rules.cc).
std::vector<LintRule> ReleaseLintRules();
/// Memlock strategy, privilege, image tags.
std::vector<LintRule> SecurityLintRules();
/// gitops: the deprecated automated_sync.
std::vector<LintRule> GitOpsLintRules();
/// Placeholders that fail only on the cluster: gitops.repo_url, wrapper.image.
std::vector<LintRule> PlaceholderLintRules();
/// The workload's command against the profile: torchrun's --nnodes and workload.replicas.
std::vector<LintRule> WorkloadLintRules();

/// An environment variable the profile sets explicitly (workload.env wins over nccl.extra_env,
/// as container `env` wins over `envFrom`), with the JSON pointer that sets it.
struct ProfileEnv {
  std::string value;
  std::string pointer;
};
std::optional<ProfileEnv> ExplicitEnv(const Profile& profile, const std::string& name);

/// VFs (rail attachments) one pod gets: the sum of attachments_per_pod over the rails, 0 in
/// tcp mode.
int RailAttachmentsPerPod(const Profile& profile);

/// lint.nccl-env-name (nccl_env_name_rule.cc): an NCCL_* name in nccl.extra_env that no NCCL
/// release of the catalog reads (model/operator_versions.h NcclEnvNames), with the closest name.
void CheckNcclEnvNames(const LintContext& context, LintReporter& report);

/// lint.rail-mtu-mismatch (nccl_env_name_rule.cc): rails of one profile with different MTUs.
void CheckRailMtus(const LintContext& context, LintReporter& report);

/// "file:line" of a JSON pointer, for messages that name a second place.
std::string WhereIs(const LintContext& context, const std::string& json_pointer);

}  // namespace hkim
