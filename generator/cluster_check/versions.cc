#include "cluster_check/versions.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>

#include "discover/json_at.h"
#include "model/operator_catalog.h"
#include "model/operator_versions.h"

namespace hkim::cluster_check {
namespace {

using nlohmann::json;
using discover::At;

// What the export says an operator runs, and the object that says it.
struct Running {
  std::string version;  // "v25.10.1"
  const discover::ExportObject* object = nullptr;
};

// OpenShift: the CSV named <package>.vX (the one that succeeded, where the export has phases:
// during an upgrade the old CSV is Replacing). OKE: an object of the chart's release labelled
// helm.sh/chart: <chart>-<chart version> (the charts' _helpers.tpl label every object so).
std::optional<Running> RunningRelease(const ClusterExport& cluster, const OperatorCommon& op,
                                      bool openshift) {
  std::optional<Running> found;
  for (const discover::ExportObject& object : cluster.set.objects) {
    std::string version;
    if (openshift && object.kind == "ClusterServiceVersion" &&
        object.name.rfind(op.package + ".", 0) == 0) {
      const std::string phase = Str(At(*object.json, {"status", "phase"}));
      if (!phase.empty() && phase != "Succeeded") continue;
      version = object.name.substr(op.package.size() + 1);
    } else if (!openshift) {
      const std::string chart = Str(At(*object.json, {"metadata", "labels", "helm.sh/chart"}));
      if (chart.rfind(op.chart + "-", 0) != 0) continue;
      version = chart.substr(op.chart.size() + 1);
      if (version.rfind('v', 0) != 0) version = "v" + version;  // 25.10.0 -> the tag v25.10.0
    }
    if (version.empty()) continue;
    if (!found) found = Running{version, &object};
  }
  return found;
}

const discover::ExportObject* Object(const ClusterExport& cluster, const ObjectId& id) {
  auto it = cluster.by_id.find(id);
  return it == cluster.by_id.end() ? nullptr : it->second;
}

// "4.21.9" matches an entry "4.21.9" or "4.21"; "" matches anything.
bool VersionMatches(const std::string& entry, const std::string& running) {
  if (entry.empty()) return true;
  if (running == entry) return true;
  return running.rfind(entry + ".", 0) == 0 && entry.find('.') == entry.rfind('.');
}

// Whether the bundle's own Subscription of `op`'s package runs on the cluster, synced by the
// bundle's Applications: then its CSV is the bundle's install, not another one.
bool OwnSubscriptionRuns(const BundlePlan& plan, const ClusterExport& cluster,
                         const OperatorCommon& op) {
  const std::set<std::string> apps = BundleApplications(plan);
  for (const PlannedObject& planned : plan.objects)
    if (planned.kind == "Subscription" && planned.subscription &&
        planned.subscription->package == op.package && OwnObjectSynced(cluster, apps, planned))
      return true;
  return false;
}

void CompareRelease(const Profile& p, const BundlePlan& plan, const ClusterExport& cluster,
                    const OperatorCommon& op, const std::string& pinned, const char* name,
                    Findings& findings) {
  if (op.install == OperatorInstall::kShared) return;  // another profile's (fleet checks it)
  auto running = RunningRelease(cluster, op, p.IsOpenShift());
  if (!running) return;  // cluster.operator-missing (preconditions.cc) covers an absent one
  // Spelled as the release line spells it (Volcano's versions have no leading v).
  if (pinned.rfind('v', 0) != 0 && running->version.rfind('v', 0) == 0)
    running->version.erase(0, 1);
  const std::string pointer = op.pointer + "/version";
  // An OLM operator the bundle installs while a CSV runs already is collisions.cc's
  // (cluster.operator-installed, cluster.operator-downgrade): not reported twice.
  const bool olm_collision =
      p.IsOpenShift() && op.managed() && !OwnSubscriptionRuns(plan, cluster, op);
  const std::string field = "operators." + op.pointer.substr(op.pointer.rfind('/') + 1) + ".version";
  if (!p.IsOpenShift() && op.managed() && IsOlderVersion(pinned, running->version)) {
    // Argo CD renders the pinned chart and applies it, CRDs included, over what the newer
    // release made: an older operator on newer CRs and node state. Refused like an OLM downgrade
    // (collisions.cc), which OLM itself refuses.
    findings.Add(Severity::kError, "cluster.operator-downgrade", pointer,
                 Where(cluster, *running->object),
                 std::string("the cluster runs ") + name + " " + running->version +
                     ", newer than the profile's " + pinned +
                     ": the sync would apply the older chart (its CRDs included) over the newer "
                     "release, and an older operator would manage CRs and nodes the newer one set up",
                 "set " + field + ": " + running->version +
                     " (or newer); to go back on purpose, uninstall the newer release first");
    return;
  }
  if (running->version != pinned && !olm_collision) {
    const bool managed = op.managed();
    // Left to the cluster, the pin matters only where the bundle renders something for the
    // operator (its CR, the NicClusterPolicy's component images): an error there, a warning
    // where nothing rendered depends on it.
    const std::string& key = op.key;
    bool depends = false;
    for (const PlannedObject& o : plan.objects) depends |= o.operator_key == key;
    const bool olm_moved = p.IsOpenShift() && managed;  // the bundle's own Subscription
    std::string why;
    if (olm_moved)
      why = ": OLM moved it along the channel since the sync (the pinned version is the "
            "Subscription's startingCSV only); the profile no longer says what runs";
    else if (managed)
      why = ": a sync moves it (hkimgen diff between the two versions says what moves)";
    else if (depends)
      why = ": the bundle's objects for it are written for the pinned release";
    else
      why = "; nothing this bundle renders depends on the version, but the profile no longer "
            "says what runs";
    findings.Add(managed || !depends ? Severity::kWarning : Severity::kError,
                 "cluster.operator-version", pointer, Where(cluster, *running->object),
                 std::string("the cluster runs ") + name + " " + running->version +
                     ", the profile pins " + pinned + why,
                 "set " + field + ": " + running->version +
                     (managed && !olm_moved ? " to keep what runs, or keep " + pinned + " to upgrade"
                                            : ""));
  }
  if (std::string(name) != "GPU Operator") return;
  std::string source;
  const std::string support = GpuOperatorSupport(running->version, &source);
  if (support == "end-of-support") {
    // A warning where this bundle installs it; a note where the cluster's admins do.
    findings.Add(op.managed() ? Severity::kWarning : Severity::kNote, "cluster.end-of-support",
                 pointer,
                 Where(cluster, *running->object),
                 "the cluster runs GPU Operator " + running->version +
                     ", whose line NVIDIA no longer supports (" + source + ")",
                 "move to a supported line (docs/release-lines.md), one major at a time");
  }
}

void CheckOpenShiftRange(const Profile& p, const ClusterExport& cluster, Findings& findings) {
  if (!p.IsOpenShift() || !p.operators || !p.operators->gpu_operator) return;
  const discover::ExportObject* cv = Object(cluster, kClusterVersion);
  if (!cv) return;  // cluster.not-exported (preconditions.cc) says so
  const std::string openshift = Str(At(*cv->json, {"status", "desired", "version"}));
  const GpuOperator& gpu = *p.operators->gpu_operator;
  const auto release = FindGpuOperatorRelease(gpu.version);
  if (openshift.empty() || !release) return;
  const auto in_range = OpenShiftInRange(openshift, release->openshift);
  if (!in_range || *in_range) return;
  findings.Add(Severity::kError, "cluster.operator-version", gpu.pointer + "/version",
               Where(cluster, *cv),
               "GPU Operator " + gpu.version + " declares OpenShift " + release->openshift +
                   " (its CSV's com.redhat.openshift.versions); the cluster runs " + openshift,
               "pick a release whose range holds " + openshift + " (docs/release-lines.md)");
}

// Red Hat's SR-IOV and NFD operators ship one CSV per OpenShift minor: one left at another minor
// after a cluster upgrade (a Manual approval waits, or the channel was pinned) runs against a
// cluster it was not built for.
void CheckOpenShiftOperators(const Profile& p, const ClusterExport& cluster, Findings& findings) {
  if (!p.IsOpenShift() || !p.operators) return;
  const discover::ExportObject* cv = Object(cluster, kClusterVersion);
  if (!cv) return;
  const std::string openshift = Str(At(*cv->json, {"status", "desired", "version"}));
  const std::string minor = openshift.substr(0, openshift.find('.', openshift.find('.') + 1));
  // Every operator the release catalog has per-minor CSVs for (OpenShiftOperatorCsvFor).
  for (const OperatorFacts& facts : OperatorCatalog()) {
    const OperatorCommon* op = facts.in(*p.operators);
    if (!op || op->install == OperatorInstall::kShared) continue;
    const auto want = OpenShiftOperatorCsvFor(facts.key, minor);
    if (!want) continue;
    const auto running = RunningRelease(cluster, *op, true);
    if (!running) continue;
    // The running CSV's minor: sriov-network-operator.v4.19.0-202507081405 -> 4.19 (Red Hat's
    // NFD CSVs drop the v: nfd.4.20.0-202511101230).
    std::string version = running->version;
    if (version.rfind('v', 0) == 0) version = version.substr(1);
    const std::string running_minor = version.substr(0, version.find('.', version.find('.') + 1));
    if (running_minor == minor) continue;
    findings.Add(Severity::kWarning, "cluster.operator-version", facts.InstallPointer(),
                 Where(cluster, *running->object),
                 std::string("the cluster runs OpenShift ") + openshift + " but " + facts.title +
                     " is at " + running->object->name + ", built for another minor (the "
                     "release catalog's CSV for " + minor + " is " + want->csv + ".*)",
                 "let OLM upgrade it in channel " + op->channel +
                     " (approve its InstallPlan where the approval is Manual)");
  }
}

void CheckKnownBad(const Profile& p, const ClusterExport& cluster, Findings& findings) {
  const discover::ExportObject* cv = Object(cluster, kClusterVersion);
  const std::string openshift = cv ? Str(At(*cv->json, {"status", "desired", "version"})) : "";
  // The DOCA driver the cluster's NicClusterPolicy deploys (Barcelona's runs one even though
  // its profile does not render the policy).
  std::string doca;
  const discover::ExportObject* policy = nullptr;
  for (const discover::ExportObject& object : cluster.set.objects) {
    if (object.kind != "NicClusterPolicy") continue;
    doca = Str(At(*object.json, {"spec", "ofedDriver", "version"}));
    policy = &object;
  }
  const std::string pointer =
      p.IsOpenShift() && p.operators ? p.operators->pointer + "/openshift_version"
      : p.operators && p.operators->network_operator ? p.operators->network_operator->pointer +
                                                           "/version"
                                                     : std::string("/operators");
  for (const KnownBadCombination& bad : KnownBadCombinations()) {
    if (!bad.doca_driver.empty() && bad.doca_driver != doca) continue;
    if (!bad.openshift.empty() && (openshift.empty() || !VersionMatches(bad.openshift, openshift)))
      continue;
    if (bad.doca_driver.empty() && bad.openshift.empty()) continue;
    const discover::ExportObject* at = policy ? policy : cv;
    if (!at) continue;
    findings.Add(Severity::kError, "cluster.known-bad", pointer, Where(cluster, *at),
                 "the cluster runs a combination reported broken: " +
                     (bad.doca_driver.empty() ? "" : "DOCA driver " + bad.doca_driver) +
                     (bad.openshift.empty() ? "" : " on OpenShift " + openshift) + ": " + bad.what,
                 "see " + bad.reference + "; change the DOCA driver (NicClusterPolicy "
                 "spec.ofedDriver.version) or the OpenShift release");
  }
}

// "v1.32.5+abc" -> {1, 32}.
std::optional<std::pair<int, int>> MajorMinor(const std::string& text) {
  int major = 0, minor = 0;
  const char* s = text.c_str();
  while (*s == 'v' || *s == '>' || *s == '=' || *s == ' ') ++s;
  if (std::sscanf(s, "%d.%d", &major, &minor) != 2) return std::nullopt;
  return std::make_pair(major, minor);
}

void CheckKubernetes(const Profile& p, const ClusterExport& cluster, Findings& findings) {
  if (!p.operators) return;
  struct Chart {
    const OperatorCommon* op;
    std::string floor;  // ">= 1.21.0-0"
  };
  std::vector<Chart> charts;
  if (p.operators->gpu_operator)
    if (auto r = FindGpuOperatorRelease(p.operators->gpu_operator->version))
      charts.push_back({&*p.operators->gpu_operator, r->kubernetes});
  if (!p.IsOpenShift() && p.operators->network_operator)
    if (auto r = FindNetworkOperatorRelease(p.operators->network_operator->version))
      charts.push_back({&*p.operators->network_operator, r->kubernetes});
  for (const Chart& chart : charts) {
    const auto floor = MajorMinor(chart.floor);
    if (!floor || chart.floor.rfind(">=", 0) != 0) continue;
    for (const discover::ExportObject& node : cluster.set.objects) {
      if (node.kind != "Node") continue;
      const std::string kubelet = Str(At(*node.json, {"status", "nodeInfo", "kubeletVersion"}));
      const auto version = MajorMinor(kubelet);
      if (!version || *version >= *floor) continue;
      findings.Add(Severity::kError, "cluster.kubernetes-version", chart.op->pointer + "/version",
                   Where(cluster, node),
                   "kubelet " + kubelet + " is older than the pinned chart declares (kubeVersion " +
                       chart.floor + ")",
                   "upgrade the cluster, or pin an older release");
    }
  }
}

// The kueue.x-k8s.io versions the cluster's Kueue serves, from its ClusterQueue CRD (every Kueue
// CRD moves together); the CRD's object; nullopt when the export holds none.
struct ServedKueue {
  std::vector<std::string> served;
  const discover::ExportObject* crd = nullptr;
};
std::optional<ServedKueue> KueueServed(const ClusterExport& cluster) {
  for (const discover::ExportObject& object : cluster.set.objects) {
    if (object.kind != "CustomResourceDefinition" || object.name != "clusterqueues.kueue.x-k8s.io")
      continue;
    ServedKueue out{{}, &object};
    const json& versions = At(*object.json, {"spec", "versions"});
    if (versions.is_array())
      for (const json& v : versions)
        if (At(v, {"served"}).is_boolean() && At(v, {"served"}).get<bool>())
          out.served.push_back(Str(At(v, {"name"})));
    return out;
  }
  return std::nullopt;
}

// scheduling.kueue's objects (ClusterQueue, ResourceFlavor, Topology, LocalQueues) go out in the
// API version of the profile's Kueue release; a running Kueue that does not serve it refuses
// them all (Kueue v0.14 serves v1beta1 only, v0.15 on v1beta1 and v1beta2).
void CheckKueueApi(const Profile& p, const ClusterExport& cluster, Findings& findings) {
  if (!p.scheduling.kueue) return;
  const std::string& sent = p.scheduling.kueue->api_version;  // kueue.x-k8s.io/v1beta2
  const std::string version = sent.substr(sent.find('/') + 1);
  if (!cluster.kinds.count("CustomResourceDefinition")) {
    findings.NotExported("CustomResourceDefinition",
                         "which kueue.x-k8s.io API versions the running Kueue serves");
    return;
  }
  const auto running = KueueServed(cluster);
  if (!running || running->served.empty()) return;  // no Kueue: the CRD precondition's
  if (std::find(running->served.begin(), running->served.end(), version) != running->served.end())
    return;
  // The newest release of the catalog that sends what the cluster serves.
  std::string release;
  for (const KueueRelease& r : KueueReleases())
    if (!r.served.empty() && std::find(running->served.begin(), running->served.end(),
                                       r.served.back()) != running->served.end())
      release = r.version;
  const bool pinned = p.operators && p.operators->kueue;
  const std::string pointer =
      pinned ? p.operators->kueue->pointer + "/version" : p.scheduling.kueue->pointer;
  std::string served;
  for (const std::string& s : running->served) served += (served.empty() ? "" : ", ") + s;
  findings.Add(Severity::kError, "cluster.kueue-api", pointer, Where(cluster, *running->crd),
               "serves kueue.x-k8s.io " + served + ", but the bundle sends its Kueue objects "
               "(ClusterQueue, ResourceFlavor, Topology, LocalQueues) as " + sent +
                   (pinned ? " (Kueue " + p.operators->kueue->version + ")" : "") +
                   ": the API server refuses them and the workload is never admitted",
               release.empty()
                   ? "upgrade Kueue on the cluster to a release that serves " + version
                   : "pin the Kueue release the cluster runs: operators.kueue.version: " + release +
                         " sends " + running->served.back() +
                         " (or upgrade Kueue on the cluster)");
}

}  // namespace

void CheckVersions(const Profile& p, const BundlePlan& plan, const ClusterExport& cluster,
                   Findings& findings) {
  CheckKnownBad(p, cluster, findings);
  CheckKueueApi(p, cluster, findings);
  if (!p.operators) return;
  const Operators& ops = *p.operators;
  // OpenShift: the GPU Operator's CSV (OLM's other operators follow their channel; the Red Hat
  // build of Kueue numbers its CSVs apart from upstream's releases). OKE/Kubernetes: every chart
  // release with a release line, by its objects' helm.sh/chart label.
  if (p.IsOpenShift()) {
    if (ops.gpu_operator)
      CompareRelease(p, plan, cluster, *ops.gpu_operator, ops.gpu_operator->version,
                     GpuOperatorFacts().release.name.c_str(), findings);
  } else {
    for (const OperatorFacts& row : OperatorCatalog()) {
      const OperatorCommon* op = row.in ? row.in(ops) : nullptr;
      if (!op || row.release.section.empty() || op->chart.empty() || op->version.empty())
        continue;
      CompareRelease(p, plan, cluster, *op, op->version, row.release.name.c_str(), findings);
    }
  }
  CheckOpenShiftRange(p, cluster, findings);
  CheckOpenShiftOperators(p, cluster, findings);
  CheckKubernetes(p, cluster, findings);
}

}  // namespace hkim::cluster_check
