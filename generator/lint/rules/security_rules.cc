// Memlock strategy, privilege, image tags.

#include "model/image_digest.h"
#include "model/wrapper_image.h"
#include "lint/rules/rules.h"

namespace hkim {
namespace {

void CheckPrivileged(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (p.workload.mode != WorkloadMode::kRdma ||
      p.security.memlock_strategy != MemlockStrategy::kPrivileged) {
    return;
  }
  if (p.IsOpenShift()) {
    r.Report(p.security.pointer + "/memlock_strategy",
             "memlock_strategy privileged runs the job under the privileged SCC: every "
             "capability, every host device, any UID",
             "use memlock_strategy: sys-resource-scc: hkimgen renders SCC '" + p.security.scc_name +
                 "' that allows only IPC_LOCK and SYS_RESOURCE, enough to lift memlock");
  } else {
    r.Report(p.security.pointer + "/memlock_strategy",
             "memlock_strategy privileged runs the job in privileged containers: every "
             "capability, every host device",
             "use memlock_strategy: crio-ulimits (CRI-O default_ulimits memlock=-1 on the GPU "
             "node pool) with IPC_LOCK only");
  }
}

void CheckMemlockUid(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (p.workload.mode != WorkloadMode::kRdma || !p.security.run_as_user ||
      *p.security.run_as_user == 0 ||
      p.security.memlock_strategy == MemlockStrategy::kCrioUlimits) {
    return;
  }
  const std::string uid = std::to_string(*p.security.run_as_user);
  r.Report(p.security.pointer + "/run_as_user",
           "memlock_strategy " + std::string(ToString(p.security.memlock_strategy)) +
               " relies on added capabilities (IPC_LOCK, SYS_RESOURCE), but they are not "
               "effective for UID " +
               uid + ": memlock stays at the runtime's 8 MiB and memory registration fails",
           "remove security.run_as_user (or set 0), or use memlock_strategy: crio-ulimits, "
           "which lifts memlock for every UID");
}

void CheckMemlockUidUnset(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (p.workload.mode != WorkloadMode::kRdma || p.security.run_as_user ||
      p.security.memlock_strategy != MemlockStrategy::kSysResourceScc) {
    return;
  }
  r.Report(p.security.pointer + "/memlock_strategy",
           "sys-resource-scc lifts memlock through added capabilities (IPC_LOCK, SYS_RESOURCE), "
           "which only take effect for UID 0, but security.run_as_user is unset: with an image "
           "that runs as another user memlock stays at 8 MiB (IPC_LOCK granted, memlock still "
           "8 MiB on Barcelona)",
           "set security.run_as_user: 0, or use memlock_strategy: crio-ulimits");
}

void CheckImageLatest(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  auto check = [&](const std::string& image, const std::string& pointer, const char* what,
                   const std::string& fix = "pin a version tag or a digest (image@sha256:...)") {
    if (image.empty()) return;
    const std::string tag = ImageTag(image);
    if (tag == "@" || (!tag.empty() && tag != "latest")) return;
    r.Report(pointer,
             std::string(what) + " '" + image + "' " +
                 (tag.empty() ? "has no tag, so it means :latest" : "uses the tag latest") +
                 ": every node may run a different build, and a re-pull silently changes the "
                 "NCCL and driver libraries under the job",
             fix);
  };
  check(p.workload.image, p.workload.pointer + "/image", "workload image");
  // A digest (wrapper.digest or render --wrapper-digest) pins whatever the tag says.
  if (p.wrapper.digest.empty()) {
    check(p.wrapper.image, p.wrapper.pointer + "/image", "wrapper image",
          std::string("use the tag ") + WrapperImageVersion() +
              " and pin it by digest: wrapper.digest: sha256:<64 hex> (or hkimgen render "
              "--wrapper-digest sha256:<64 hex>), the digest bash scripts/build-image.sh prints; "
              "the init containers then run <repository>:" + WrapperImageVersion() +
              "@sha256:<64 hex>");
  }
  if (p.network.sriov_device_plugin && p.network.sriov_device_plugin->version == "latest") {
    check(p.network.sriov_device_plugin->image + ":latest",
          p.network.sriov_device_plugin->pointer + "/version", "SR-IOV device plugin image");
  }
  if (p.network.nv_ipam && p.network.nv_ipam->version == "latest") {
    check(p.network.nv_ipam->image + ":latest", p.network.nv_ipam->pointer + "/version",
          "nv-ipam image");
  }
}

// A tag is a name the registry can move to another build; a digest is the build. Images without
// a tag or on :latest are lint.image-latest's, so one image gets one finding. Images the profile
// leaves at a default are named too (with the section that could set them): the bundle pulls
// them all the same, and --image-digest pins defaults as well. One cause, one finding: every
// image by tag is listed in one warning, at the first of them, with one way to pin them all.
void CheckImageDigest(const LintContext& c, LintReporter& r) {
  std::vector<ProfileImage> tagged;
  for (ProfileImage& image : ProfileImages(c.profile)) {
    const std::string tag = ImageTag(image.reference);
    if (image.pinned || tag.empty() || tag == "latest" || tag == "@") continue;
    tagged.push_back(std::move(image));
  }
  if (tagged.empty()) return;
  auto named = [&](const ProfileImage& image) {
    const bool written = c.loaded.locations.values.count(image.pointer) > 0;
    return image.what + " '" + image.reference + "' (" + (written ? "" : "the default, ") +
           WhereIs(c, image.pointer) + ")";
  };
  const std::string accept =
      "; or accept: accept_warnings: [{rule: lint.image-digest, reason: ...}]";
  const std::string why =
      ": the registry can move a tag, so nodes that pull at different times may run different "
      "builds";
  if (tagged.size() == 1) {
    const ProfileImage& image = tagged.front();
    r.Report(image.pointer,
             named(image) + " is pulled by the tag " + ImageTag(image.reference) +
                 ", not by a digest" + why,
             "pin it: " + image.pin + ", or render with --image-digest " + image.reference +
                 "=sha256:<64 hex> (skopeo inspect --format '{{.Digest}}' docker://" +
                 image.reference + " prints it)" + accept);
    return;
  }
  std::string list;
  for (const ProfileImage& image : tagged) list += (list.empty() ? "" : "; ") + named(image);
  r.Report(tagged.front().pointer,
           std::to_string(tagged.size()) + " images are pulled by a tag, not by a digest" + why +
               ": " + list,
           "render with --image-digest IMAGE=sha256:<64 hex> for each (skopeo inspect --format "
           "'{{.Digest}}' docker://IMAGE prints it), or pin each in the profile: IMAGE@sha256:<64 "
           "hex> at its field (the wrapper: wrapper.digest; a NicClusterPolicy image: its "
           "version)" + accept);
}

// CRI-O in short-name enforcing mode (the default where registries.conf lists more than one
// search registry, and what RHCOS and OKE's Oracle Linux images ship) refuses an image reference
// without a registry host ("oraclelinux:9"), and elsewhere the search order decides which
// registry's image runs. A reference is qualified when its first path component is a host:
// it has a '.' or ':' or is localhost.
bool QualifiedImage(const std::string& image) {
  const size_t slash = image.find('/');
  if (slash == std::string::npos) return false;
  const std::string host = image.substr(0, slash);
  return host.find('.') != std::string::npos || host.find(':') != std::string::npos ||
         host == "localhost";
}

void CheckImageShortName(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  auto check = [&](const std::string& image, const std::string& pointer, const char* what,
                   bool repository_only = false) {
    if (image.empty() || QualifiedImage(image)) return;
    // Docker Hub's own expansion: "name" is docker.io/library/name, "org/name" docker.io/org/name.
    const std::string qualified =
        std::string("docker.io/") + (image.find('/') == std::string::npos ? "library/" : "") + image;
    r.Report(pointer,
             std::string(what) + " '" + image + "' is a short name without a registry: CRI-O in "
                 "short-name enforcing mode refuses to pull it, and elsewhere the node's search "
                 "registries decide which image runs",
             "write the fully qualified " + std::string(repository_only ? "repository" : "name") +
                 ", e.g. '" + qualified + "' (or the registry the image really comes from)");
  };
  check(p.workload.image, p.workload.pointer + "/image", "workload image");
  check(p.wrapper.image, p.wrapper.pointer + "/image", "wrapper image");
  if (p.network.sriov_device_plugin) {
    check(p.network.sriov_device_plugin->repository,
          p.network.sriov_device_plugin->pointer + "/repository", "SR-IOV device plugin repository",
          true);
  }
  if (p.network.nv_ipam) {
    check(p.network.nv_ipam->repository, p.network.nv_ipam->pointer + "/repository",
          "nv-ipam repository", true);
  }
  if (!p.operators) return;
  if (p.operators->vf_config && p.operators->vf_config->managed())
    check(p.operators->vf_config->image, p.operators->vf_config->pointer + "/image",
          "VF DaemonSet image");
  if (p.operators->nfd && p.operators->nfd->managed())
    check(p.operators->nfd->operand_image, p.operators->nfd->pointer + "/operand_image",
          "NFD operand image");
}

// The bundle's pod contract (docs/CONTRACTS.md) is this version's: an hkim-wrapper image of
// another version may not honour it.
void CheckWrapperImageVersion(const LintContext& c, LintReporter& r) {
  const Wrapper& w = c.profile.wrapper;
  const std::string base = w.image.substr(0, w.image.find('@'));  // repository[:tag]
  const std::string tag = ImageTag(base);
  const std::string repository = base.substr(0, base.size() - (tag.empty() ? 0 : tag.size() + 1));
  const std::string name = "/hkim-wrapper";
  const bool ours = repository == name.substr(1) ||
                    (repository.size() >= name.size() &&
                     repository.compare(repository.size() - name.size(), name.size(), name) == 0);
  if (!ours || tag.empty() || tag == "latest" || tag == WrapperImageVersion()) return;
  r.Report(w.pointer + "/image",
           "wrapper image tag " + tag + " is not " + WrapperImageVersion() +
               ", the version this hkimgen renders the pod contract for (init container "
               "command, HKIM_* variables, hkim-nccl-check exit codes)",
           repository + ":" + WrapperImageVersion() +
               " is the image this source tree builds (bash scripts/build-image.sh); publish it "
               "and use it, or render with the hkimgen of version " +
               tag);
}

// An SCC that is not the bundle's own (<cluster>-...) is probably one made by
// hand, whose users (other teams' service accounts) and capabilities a sync would replace.
void CheckSccAdopted(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (!p.IsOpenShift() || p.workload.mode != WorkloadMode::kRdma ||
      p.security.memlock_strategy == MemlockStrategy::kPrivileged) {
    return;
  }
  const std::string own = p.cluster_name + "-";
  if (p.security.scc_name.compare(0, own.size(), own) == 0) return;
  r.Report(p.security.pointer + "/scc_name",
           "scc_name '" + p.security.scc_name + "' is not the bundle's own name (" + own +
               "...): if an SCC of that name exists, a sync takes it over and replaces its users, "
               "groups and capabilities, breaking the pods of every service account listed in it",
           "remove security.scc_name (the default is " + p.cluster_name +
               "-nccl-rdma), or adopt the SCC deliberately as docs/bundle.md, \"Adopting an "
               "existing object deliberately\" says");
}

}  // namespace

std::vector<LintRule> SecurityLintRules() {
  return {
      {"lint.privileged", Severity::kWarning,
       "privileged containers are avoided; names the least-privilege SCC (or CRI-O ulimits)",
       CheckPrivileged},
      {"lint.memlock-uid", Severity::kError,
       "the memlock strategy can lift memlock for the container's UID", CheckMemlockUid},
      {"lint.memlock-uid-unset", Severity::kWarning,
       "sys-resource-scc states the UID (capabilities only take effect for UID 0)",
       CheckMemlockUidUnset},
      {"lint.image-digest", Severity::kWarning,
       "images the profile names are pinned by digest, not only by a tag", CheckImageDigest},
      {"lint.image-latest", Severity::kWarning, "images are pinned (no latest or missing tag)",
       CheckImageLatest},
      {"lint.image-short-name", Severity::kError,
       "every image the profile sets is fully qualified (registry host first)",
       CheckImageShortName},
      {"lint.wrapper-image-version", Severity::kWarning,
       "an hkim-wrapper image is this hkimgen's version (the pod contract it renders)",
       CheckWrapperImageVersion},
      {"lint.scc-adopted", Severity::kWarning,
       "the SCC is the bundle's own (named after the cluster), not a hand-made one taken over",
       CheckSccAdopted},
  };
}

}  // namespace hkim
