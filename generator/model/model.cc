// Model stage: schema-valid JSON -> typed Profile with defaults, plus cross-field checks.
// The defaults in the model parts (model_<family>.cc, through model/reader.h) mirror the
// "default" keywords of schemas/profile.schema.json; model_test checks that the two agree. This
// file composes the parts (ModelBuilder::Build).

#include "model/model.h"

#include <cstdint>
#include <limits>

#include "model/checks.h"
#include "model/image_digest.h"
#include "model/image_mirror.h"
#include "model/reader.h"

namespace hkim {

std::optional<int64_t> ParseByteSize(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return std::nullopt;
  const std::string unit = text.substr(digits);
  int64_t multiplier = 1;
  if (unit.empty())
    multiplier = 1;
  else if (unit == "k")
    multiplier = 1000;
  else if (unit == "M")
    multiplier = 1000 * 1000;
  else if (unit == "G")
    multiplier = 1000LL * 1000 * 1000;
  else if (unit == "T")
    multiplier = 1000LL * 1000 * 1000 * 1000;
  else if (unit == "Ki")
    multiplier = 1LL << 10;
  else if (unit == "Mi")
    multiplier = 1LL << 20;
  else if (unit == "Gi")
    multiplier = 1LL << 30;
  else if (unit == "Ti")
    multiplier = 1LL << 40;
  else
    return std::nullopt;
  int64_t number = 0;
  for (size_t i = 0; i < digits; ++i) {
    if (number > (std::numeric_limits<int64_t>::max() - 9) / 10) return std::nullopt;
    number = number * 10 + (text[i] - '0');
  }
  if (number > std::numeric_limits<int64_t>::max() / multiplier) return std::nullopt;
  return number * multiplier;
}

void ModelBuilder::ReadCluster(const json& root, Profile& profile) {
  const json empty = json::object();
  const json* cluster = Child(root, "cluster");
  const json& c = cluster ? *cluster : empty;
  profile.cluster_name = String(c, "name");
  const std::string platform = String(c, "platform", "openshift");
  profile.platform = platform == "oke"          ? Platform::kOke
                     : platform == "kubernetes" ? Platform::kKubernetes
                                                : Platform::kOpenShift;
  profile.namespaces = Strings(root, "namespaces");
}

std::optional<Profile> ModelBuilder::Build(bool keep_after_cross_field_errors) {
  const json& root = loaded_.document;
  const json empty = json::object();
  auto section = [&](const char* key) -> const json& {
    const json* value = Child(root, key);
    return value ? *value : empty;
  };
  Profile profile;
  profile.source_path = loaded_.path;
  ReadCluster(root, profile);
  ReadNodeShape(section("node_shape"), profile);
  ReadNetwork(section("network"), profile);
  ReadNccl(section("nccl"), profile.nccl);
  ReadSecurity(section("security"), profile.security);
  const json& iommu = section("iommu");
  const std::string policy = String(iommu, "policy", "already-configured");
  profile.iommu.policy = policy == "passthrough" ? IommuPolicy::kPassthrough
                         : policy == "skip"      ? IommuPolicy::kSkip
                                                 : IommuPolicy::kAlreadyConfigured;
  profile.iommu.machine_config_role = String(iommu, "machine_config_role", "worker");
  profile.iommu.create_pool = String(iommu, "machine_config_pool", "create") == "create";
  profile.iommu.already_set = Strings(iommu, "already_set");
  // Cluster-scoped names carry the cluster name, so that a sync never takes over an SCC somebody
  // made by hand; naming one in the profile adopts it deliberately.
  if (profile.security.scc_name.empty())
    profile.security.scc_name = profile.cluster_name + "-nccl-rdma";
  ReadWorkload(section("workload"), profile.workload);
  profile.wrapper.image = String(section("wrapper"), "image");
  profile.wrapper.digest = String(section("wrapper"), "digest");
  profile.wrapper.rendezvous_port =
      static_cast<int>(Integer(section("wrapper"), "rendezvous_port", 29650));
  ReadHealthCheck(section("health_check"), profile.health_check);
  errors_ += ReadFabricHealth(section("fabric_health"), loaded_, sink_,
                              profile.workload.mode == WorkloadMode::kRdma, profile.fabric_health);
  errors_ += CheckFabricHealthNames(profile, loaded_, sink_);
  ReadGitOps(section("gitops"), profile.platform, profile.gitops);
  if (const json* operators = Child(root, "operators")) {
    profile.operators = ReadOperators(*operators, profile.IsOpenShift(), profile.cluster_name);
  }
  errors_ += ReadScheduling(Child(root, "scheduling"), loaded_, sink_, profile);
  // Unnamed, the RDMA mode is what the bundle has always set: exclusive where it renders the
  // SR-IOV node policies (OpenShift) or on OKE (the VF DaemonSet); else the kernel's shared.
  if (!profile.network.rdma_netns_set && profile.IsOpenShift()) {
    const auto& sriov = profile.operators ? profile.operators->sriov_network_operator : std::nullopt;
    const bool policies = profile.UsesRails() && sriov && sriov->node_policies;
    profile.network.rdma_netns = policies ? RdmaNetns::kExclusive : RdmaNetns::kShared;
  }
  if (const json* preconditions = Child(root, "preconditions"); preconditions && preconditions->is_array()) {
    for (size_t i = 0; i < preconditions->size(); ++i) {
      const json& item = (*preconditions)[i];
      profile.preconditions.push_back(Precondition{String(item, "kind"), String(item, "what"),
                                                   String(item, "why"), String(item, "check"),
                                                   "/preconditions/" + std::to_string(i)});
    }
  }
  if (profile.gitops.destination_namespace.empty() && !profile.namespaces.empty())
    profile.gitops.destination_namespace = profile.namespaces.front();
  const json& images = section("images");
  profile.images.mirror = String(images, "mirror");
  profile.images.chart_mirror = String(images, "chart_mirror");
  if (const json* sources = Child(images, "catalog_sources"); sources && sources->is_object()) {
    for (const auto& [from, to] : sources->items()) {
      if (to.is_string()) profile.images.catalog_sources[from] = to.get<std::string>();
    }
  }
  if (const json* digests = Child(images, "digests"); digests && digests->is_object()) {
    for (const auto& [image, digest] : digests->items()) {
      if (digest.is_string()) profile.images.digests[image] = digest.get<std::string>();
    }
  }
  // Spelt right first; then pinned, as the profile names the images; the mirror then keeps
  // each digest.
  errors_ += CheckImageReferences(profile, loaded_, sink_);
  errors_ += ApplyImageDigests(profile, loaded_, sink_);
  errors_ += ApplyImageMirror(profile, loaded_, sink_);
  const int read_errors = errors_;
  errors_ += CheckProfile(profile, loaded_, sink_);
  if ((keep_after_cross_field_errors ? read_errors : errors_) > 0) return std::nullopt;
  return profile;
}

std::optional<Profile> BuildProfile(const LoadedProfile& loaded, DiagnosticSink& sink) {
  return ModelBuilder(loaded, sink).Build();
}

std::optional<Profile> BuildProfileForLint(const LoadedProfile& loaded, DiagnosticSink& sink) {
  return ModelBuilder(loaded, sink).Build(/*keep_after_cross_field_errors=*/true);
}

}  // namespace hkim
