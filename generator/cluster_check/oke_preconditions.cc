// The OKE preconditions of plan/preconditions.cc that an export can answer: the region
// of an A100 pool's nodes (kind oci-region) and a chart the bundle installs not being installed
// already, by Helm or by another Argo CD Application (kind not-installed). What an export cannot
// show (an OKE add-on leaves no marker documented in the sources we have) is said in the message.

#include <algorithm>
#include <cctype>

#include "cluster_check/findings.h"
#include "discover/json_at.h"
#include "model/operator_catalog.h"

namespace hkim::cluster_check {
namespace {

using discover::At;
using discover::ExportObject;
using nlohmann::json;

// The node label Kubernetes' cloud providers set to the region. OKE's value format (the
// region's identifier, us-phoenix-1, or its key, PHX) is not confirmed by our sources, so both
// are read.
constexpr char kRegionLabel[] = "topology.kubernetes.io/region";
constexpr char kLegacyRegionLabel[] = "failure-domain.beta.kubernetes.io/region";

struct OciRegion {
  const char* identifier;
  const char* key;
};
// Seed 004: "For A100s, Phoenix (PHX) and Osaka (KIX) regions are supported."
constexpr OciRegion kA100VfRegions[] = {{"us-phoenix-1", "phx"}, {"ap-osaka-1", "kix"}};

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool A100VfRegion(const std::string& region) {
  const std::string lower = Lower(region);
  for (const OciRegion& r : kA100VfRegions)
    if (lower == r.identifier || lower == r.key) return true;
  return false;
}

void CheckOciRegion(const Precondition& pre, const std::vector<const discover::NodeFacts*>& picked,
                    Findings& findings) {
  for (const discover::NodeFacts* node : picked) {
    auto label = node->labels.find(kRegionLabel);
    if (label == node->labels.end()) label = node->labels.find(kLegacyRegionLabel);
    const std::string where = Named("Node", node->name, node->location);
    if (label == node->labels.end() || label->second.empty()) {
      findings.Add(Severity::kNote, "cluster.oci-region", pre.pointer, where,
                   std::string("has no ") + kRegionLabel +
                       " label: the export cannot tell whether OCI creates SR-IOV VFs on " +
                       pre.what.substr(pre.what.find('/') + 1) +
                       " in its region (only Phoenix and Osaka, seed 004)",
                   "check the region yourself: " + pre.check);
      continue;
    }
    if (A100VfRegion(label->second)) continue;
    findings.Add(Severity::kWarning, "cluster.oci-region", pre.pointer, where,
                 "is in region " + label->second + " (" + kRegionLabel +
                     "; the label's value format on OKE is unconfirmed, read as the region's "
                     "identifier or key): " + pre.why,
                 "ask OCI to enable SR-IOV VFs for the shape in " + label->second +
                     " before the first sync, or run this pool in us-phoenix-1 or ap-osaka-1");
  }
}

// A Helm release Secret (type helm.sh/release.v1, labels owner=helm, name=<release>) whose
// release is current. Its chart is inside the data an export drops, so a release is matched to
// the chart by its name (helm install's default names it after the chart).
bool CurrentHelmRelease(const ExportObject& object, const std::string& chart) {
  if (object.kind != "Secret" || Str(At(*object.json, {"type"})) != "helm.sh/release.v1")
    return false;
  const json& labels = At(*object.json, {"metadata", "labels"});
  const std::string status = Str(At(labels, {"status"}));
  if (status == "superseded" || status == "uninstalled") return false;  // history, not a release
  return Str(At(labels, {"name"})).find(chart) != std::string::npos;
}

// An object a chart rendered (helm.sh/chart: <chart>-<version>) that no Application of this
// bundle syncs: Helm, an OKE add-on or another Argo CD Application installed the chart. Objects
// a controller made (ownerReferences: Pods, ReplicaSets) carry the chart's labels but no Argo CD
// tracking, so they tell nothing about who installed it.
bool ForeignChartObject(const ExportObject& object, const std::string& chart,
                        const std::set<std::string>& apps) {
  const json& metadata = At(*object.json, {"metadata"});
  if (At(metadata, {"ownerReferences"}).is_array() && !At(metadata, {"ownerReferences"}).empty())
    return false;
  if (Str(At(metadata, {"labels", "helm.sh/chart"})).rfind(chart + "-", 0) != 0) return false;
  return !apps.count(TrackedBy(*object.json));
}

// The operator's singleton CR (the GPU Operator's ClusterPolicy) that the chart, not the bundle,
// creates, present and synced by no Application of this bundle: whoever made it runs the operator
// (an add-on's need not carry Helm's labels). A kind the bundle renders itself is collisions.cc's
// (cluster.takeover, cluster.singleton).
bool ForeignSingleton(const ExportObject& object, const std::string& key, const BundlePlan& plan,
                      const std::set<std::string>& apps) {
  const OperatorFacts* facts = FindOperatorFacts(key);
  if (facts == nullptr || apps.count(TrackedBy(*object.json))) return false;
  for (const SingletonCr& cr : facts->singletons) {
    if (cr.kind != object.kind) continue;
    for (const PlannedObject& planned : plan.objects)
      if (planned.kind == cr.kind) return false;
    return true;
  }
  return false;
}

// Who made a chart's object, for the message. Argo CD's tracking annotation names its
// Application; app.kubernetes.io/instance is either Argo CD's label tracking or, as every chart
// sets it, the Helm release's name: the export cannot tell which.
std::string InstalledBy(const json& object) {
  const std::string id =
      Str(At(object, {"metadata", "annotations", "argocd.argoproj.io/tracking-id"}));
  if (!id.empty()) return " by Argo CD Application " + id.substr(0, id.find(':'));
  const std::string instance = Str(At(object, {"metadata", "labels", "app.kubernetes.io/instance"}));
  if (!instance.empty())
    return " as app.kubernetes.io/instance " + instance +
           " (a Helm release or an Argo CD Application of that name)";
  return " outside Argo CD (Helm or an OKE add-on)";
}

void CheckNotInstalled(const Precondition& pre, const BundlePlan& plan,
                       const ClusterExport& cluster, const std::set<std::string>& apps,
                       Findings& findings) {
  const std::string& chart = pre.what;
  // The precondition sits at its operator's install pointer.
  std::string key;
  for (const OperatorFacts& facts : OperatorCatalog())
    if (facts.InstallPointer() == pre.pointer) key = facts.key;
  const std::string keep = "set operators." + key +
                           ".install: preinstalled to keep the running one (the bundle then "
                           "renders no Application for the chart), or uninstall it first";
  bool found = false;
  for (const ExportObject& object : cluster.set.objects) {
    if (CurrentHelmRelease(object, chart)) {
      findings.Add(Severity::kError, "cluster.operator-installed", pre.pointer,
                   Where(cluster, object),
                   "is the Helm release " + Str(At(*object.json, {"metadata", "labels", "name"})) +
                       " (chart " + chart + " by its name): the operator is installed already, "
                       "and the chart the bundle installs would fight it over its CRDs and nodes",
                   keep);
      found = true;
    } else if (ForeignChartObject(object, chart, apps) ||
               ForeignSingleton(object, key, plan, apps)) {
      const std::string from = Str(At(*object.json, {"metadata", "labels", "helm.sh/chart"}));
      findings.Add(Severity::kError, "cluster.operator-installed", pre.pointer,
                   Where(cluster, object),
                   (from.empty() ? "is the operator's " + object.kind + ", made"
                                 : "was rendered from chart " + from) +
                       InstalledBy(*object.json) +
                       ", not by this bundle's Applications: the operator is installed already, "
                       "and a second install fights it",
                   keep);
      found = true;
    }
  }
  // Nothing seen. An OKE add-on shows only through the objects it renders (the operator's
  // ClusterPolicy): the export cannot tell an add-on that has rendered none yet.
  if (!found && !cluster.kinds.count("Secret"))
    findings.NotExported("Secret", "whether " + chart +
                                       " is installed already as a Helm release (its release "
                                       "Secrets' labels: docs/cluster-check.md)");
}

}  // namespace

void CheckOkePreconditions(const BundlePlan& plan, const ClusterExport& cluster,
                           const std::vector<const discover::NodeFacts*>& picked,
                           Findings& findings) {
  const std::set<std::string> apps = BundleApplications(plan);
  for (const Precondition& pre : plan.preconditions) {
    if (pre.kind == "oci-region") CheckOciRegion(pre, picked, findings);
    if (pre.kind == "not-installed") CheckNotInstalled(pre, plan, cluster, apps, findings);
  }
}

}  // namespace hkim::cluster_check
