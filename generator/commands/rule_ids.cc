#include "commands/rule_ids.h"

#include <algorithm>

#include "discover/export_parse.h"
#include "fleet/cluster_sharing.h"
#include "lint/lint.h"
#include "plan/closure.h"
#include "support/input_limits.h"

namespace hkim {
namespace {

constexpr Severity E = Severity::kError;
constexpr Severity W = Severity::kWarning;

// The rules of the stages before lint (and of the command line), by stage.
const std::vector<RuleInfo>& StageRules() {
  static const std::vector<RuleInfo> rules = {
      {"cli.deprecated", W, "a deprecated flag spelling (still works for one release)"},
      {"cli.unknown-command", E, "no such sub-command (names the closest one)"},
      {"cli.unknown-flag", E, "a flag the command does not have (names the closest one)"},
      {"cli.usage", E, "a flag or argument that cannot be used this way"},
      {"cluster.adopt", W, "--cluster: an unmanaged object like the bundle's; the sync adopts it"},
      {"cluster.capacity", W,
       "--cluster: fewer picked nodes with their GPUs and VFs idle (exported Pods) than pods"},
      {"cluster.rdma-reboot-pending", W,
       "--cluster: a picked OKE node waits for its reboot into exclusive RDMA mode (no VFs yet)"},
      {"cluster.cpu-vendor", E, "--cluster: a picked node's CPU is not node_shape.cpu_vendor"},
      {"cluster.topology-fit", E,
       "--cluster: no domain of scheduling.kueue.level holds every replica (or a note: it fits)"},
      {"cluster.end-of-support", W, "--cluster: the cluster runs a GPU Operator line past support"},
      {"cluster.ip-overlap", E, "--cluster: a rail's addresses overlap an existing pool or NAD"},
      {"cluster.kernel-arg-missing", E, "--cluster: iommu.already_set names an argument no MachineConfig sets"},
      {"cluster.kernel-args-set", E, "--cluster: a MachineConfig repeats kernel arguments the pool boots with"},
      {"cluster.known-bad", E, "--cluster: a combination the release catalog records as broken"},
      {"cluster.kubernetes-version", E, "--cluster: kubelets older than the pinned chart declares"},
      {"cluster.kueue-api", E,
       "--cluster: the cluster's Kueue does not serve the kueue.x-k8s.io version the bundle sends"},
      {"cluster.machineconfig-reboot", W, "--cluster: a MachineConfig that re-renders a pool (drain and reboot)"},
      {"cluster.no-nodes", E, "--cluster: the profile's selector picks no node of the cluster"},
      {"cluster.no-sriov-state", W, "--cluster: a picked node without an SR-IOV node state"},
      {"cluster.node-count", E,
       "--cluster: fewer picked nodes the pods may run on than the workload's pods"},
      {"cluster.node-gpus", E, "--cluster: a picked node with another GPU count than the shape"},
      {"cluster.node-no-gpu", E, "--cluster: the selector picks a node without GPUs"},
      {"cluster.node-policy-overlap", E, "--cluster: node policies on the same PFs and nodes with overlapping VFs"},
      {"cluster.node-role", E, "--cluster: a picked node lacks the MachineConfig pool's role label"},
      {"cluster.node-shared", W, "--cluster: a picked node another team uses or is named for"},
      {"cluster.node-taint", E, "--cluster: a picked node's taint the pods do not tolerate"},
      {"cluster.node-unhealthy", W,
       "--cluster: a picked node the nightly health check marked failed (the pods avoid it)"},
      {"cluster.node-unpicked", W, "--cluster: a GPU node that no profile's selector picks"},
      {"cluster.not-exported", Severity::kNote, "--cluster: a check the export cannot answer"},
      {"cluster.oci-region", W,
       "--cluster: A100 nodes in an OCI region without SR-IOV VFs (or no region label)"},
      {"cluster.openshift-version", E, "--cluster: the cluster runs another OpenShift release"},
      {"cluster.operator-downgrade", E, "--cluster: the profile pins an older operator than runs"},
      {"cluster.operator-installed", E,
       "--cluster: install: managed where the operator runs already (CSV, Helm release, chart)"},
      {"cluster.operator-missing", E, "--cluster: an operator left to the cluster is not there"},
      {"cluster.operator-version", E, "--cluster: the cluster runs another operator release"},
      {"cluster.operatorgroup", E, "--cluster: a second OperatorGroup in an operator's namespace"},
      {"cluster.platform-network-overlap", E,
       "--cluster: a rail's range overlaps the nodes' addresses or the pod or service network"},
      {"cluster.pool-missing", E, "--cluster: the existing MachineConfigPool is not there"},
      {"cluster.precondition", E, "--cluster: a declared node-label or CRD precondition the cluster lacks"},
      {"cluster.rail-link", E, "--cluster: a rail's PF is administratively down"},
      {"cluster.rail-link-type", E, "--cluster: a rail's PF link type is not the fabric's"},
      {"cluster.rail-mtu", E, "--cluster: a rail's PF MTU is below the rail's"},
      {"cluster.rail-pf", E, "--cluster: a picked node lacks (or renamed) a rail's PF"},
      {"cluster.rail-pf-device", E, "--cluster: a rail's PF is another vendor or device"},
      {"cluster.rail-vfs", E, "--cluster: a rail's PF has fewer VFs than a node's pod takes"},
      {"cluster.rdma-mode", E, "--cluster: an RDMA netns mode switch or claim the cluster contradicts"},
      {"cluster.resource", E, "--cluster: a picked node advertises too little of a resource"},
      {"cluster.resource-pending", Severity::kNote,
       "--cluster: a resource the bundle's VFs will make the node advertise"},
      {"cluster.resource-taken", E, "--cluster: a rail resource another node policy advertises"},
      {"cluster.singleton", E, "--cluster: a second operator CR of a kind the operator keeps one of"},
      {"cluster.subscription", E, "--cluster: another Subscription, channel or source of the package"},
      {"cluster.takeover", E, "--cluster: an existing object the bundle would take over"},
      {"cluster.vfs-pending", Severity::kNote, "--cluster: VFs the bundle's policy will create"},
      {"diff.missing-dir", E, "diff: the fleet folder to compare with does not exist"},
      {"diff.new-dir", Severity::kNote, "diff: the bundle folder does not exist: every file is new"},
      {"diff.operator-downgrade", E,
       "diff: a Subscription (OLM never installs it) or a chart Application moves to an older "
       "operator release"},
      {"diff.skipped-minor", W, "diff: an operator release move that skips a minor NVIDIA requires"},
      {"discover.cpu-vendor", W, "discover: the nodes' CPU vendor could not be read or differs"},
      {"discover.draft-invalid", E, "discover: the drafted profile does not validate (written with the findings as comments; exit 1)"},
      {"discover.empty", E, "discover: the export holds no objects"},
      {"discover.gpu-capacity", W, "discover: a node's GPU capacity that is not a count (read as none)"},
      {"discover.gpu-count", W, "discover: the GPU nodes advertise different GPU counts"},
      {"discover.ipam-type", W, "discover: a NAD's IPAM type hkimgen does not draft"},
      {"discover.mtu", W, "discover: an MTU that could not be read or differs between nodes"},
      {"discover.nad-config", W, "discover: a NetworkAttachmentDefinition config that does not parse"},
      {"discover.no-gpu-nodes", E, "discover: no node advertises GPUs"},
      {"discover.no-resource", W, "discover: a rail without an advertised RDMA resource"},
      {"discover.no-sriov-state", W, "discover: a GPU node without an SR-IOV node state"},
      {"discover.not-an-object", W, "discover: an export entry that is not a Kubernetes object"},
      {"discover.other-team", W, "discover: nodes of the group another team seems to use or own (left out, in exclude_nodes)"},
      {"discover.pool-block", W, "discover: an IPPool block size that does not fit the node"},
      {"discover.pool-missing", W, "discover: a NAD names an IPPool the export lacks"},
      {"discover.rail-pf-unknown", W, "discover: a rail whose physical function is not found"},
      {"discover.rails-differ", W, "discover: the GPU nodes have different rails"},
      {"discover.resource-missing", W, "discover: a NAD's resource no node advertises"},
      {"discover.selector", W, "discover: no node label that selects exactly the GPU nodes"},
      {"discover.shared-subnet", W, "discover: rails that share one subnet"},
      {"discover.too-few-vfs", W, "discover: fewer VFs than GPUs on a rail"},
      {"explain.bad-path", E, "explain: a field path that cannot be parsed"},
      {"explain.unknown-path", E, "explain: a field path the schema or the profile does not have"},
      {"explain.invalid-profile", W, "explain: the profile does not validate (values may mislead)"},
      {"fleet.argocd-namespace", W,
       "a fleet member on the central Argo CD's cluster writes another gitops.argocd_namespace "
       "than --fleet-namespace (a note for a remote member)"},
      {"fleet.default-destination", W,
       "several clusters of a fleet name no Argo CD destination (all go to Argo CD's own cluster)"},
      {"fleet.duplicate-cluster", E, "two profiles of one set claim one cluster name (names both)"},
      {"fleet.no-destination", E,
       "clusters of a fleet that name no Argo CD destination collide on Argo CD's own cluster "
       "(one error for their shared objects)"},
      {"fleet.removed-cluster", W, "a bundle of a cluster no longer in the fleet (--check: error)"},
      {"fleet.repo-mismatch", E, "profiles of one fleet name different repositories or revisions"},
      {"images.imageset-mirrored", E,
       "images -o imageset: a profile under images.mirror, whose upstream sources are lost"},
      {"images.parse", E, "images: a rendered document that does not parse (internal)"},
      {"images.unknown-catalog", E,
       "images -o imageset: a Subscription's catalog source has no known index image"},
      {"io.read", E, "a file cannot be read (the OS reason is given)"},
      {"io.write", E, "a file or folder cannot be written (the OS reason is given)"},
      {"io.exists", E, "the file to write exists (add --force to overwrite)"},
      {"io.locked", E, "another render holds the output folder's lock (--no-wait)"},
      {"layering.extends-cycle", E, "extends: bases that extend each other"},
      {"layering.extends-missing", E, "extends: a base file that cannot be read"},
      {"layering.extends-type", E, "extends: not a path or a list of paths"},
      {"layering.remove-missing", E, "$remove: true for a list item no layer below has"},
      {"layering.number-range", E, "--set: a number that no value of the profile can hold"},
      {"layering.set-syntax", E, "--set: not PATH=VALUE, or a path that cannot be used"},
      {"model.image-digest", E,
       "images.digests / --image-digest: a digest for an image the profile does not name"},
      {"model.image-mirror", E,
       "images.mirror: an image, chart or catalog source that cannot be moved to the mirror"},
      {"model.image-reference", E, "an image the profile names is not a valid image reference"},
      {"model.byte-size", E, "a byte size that cannot be parsed (e.g. 1Gi)"},
      {"model.node-condition-off", E,
       "fabric_health.node_condition.marks names the condition, which is off"},
      {"model.node-condition-needs-periodic", E,
       "the node condition is on and the periodic fabric check (its writers' namespace) is off"},
      {"model.node-condition-heartbeat", E,
       "without the link agent, a heartbeat shorter than a day makes the condition read stale"},
      {"model.link-counters-need-condition", E, "the link agent is on and the node condition is off"},
      {"model.link-interval", E,
       "the link agent reads less often than the node condition's heartbeat"},
      {"model.link-counter-twice", E, "a link counter has two thresholds"},
      {"model.scheduling-levels", E,
       "scheduling.kueue names no topology levels on a platform without default ones"},
      {"model.scheduling-level", E, "scheduling.kueue.level is not one of its levels"},
      {"model.kueue-version", E,
       "operators.kueue.version: a Kueue release without topology-aware scheduling (before v0.14)"},
      {"model.kueue-install", E, "operators.kueue: managed on OpenShift (not rendered yet)"},
      {"model.destination-twice", E, "gitops: destination_name and destination_server both given"},
      {"model.duplicate-nad", E, "two rails render the same NetworkAttachmentDefinition"},
      {"model.duplicate-rail", E, "two rails with one name"},
      {"model.duplicate-resource", E, "two rails with one resource name"},
      {"model.extra-env-typed", E, "a workload env value that is not a string"},
      {"model.gate-size", E, "fabric_health.gate: at_bytes above max_bytes"},
      {"model.generated-resource", E, "a workload resource hkimgen sets itself"},
      {"model.gid-index", E, "gid_policy and gid_index disagree"},
      {"model.fabric-infiniband", E,
       "network.fabric: infiniband with rails: not rendered yet (the NADs would be Ethernet SR-IOV)"},
      {"model.gid-infiniband", E, "a GID policy that InfiniBand does not use"},
      {"model.gpus-per-pod", E, "gpus_per_pod larger than the node's GPUs"},
      {"model.health-check-size", E, "health check sizes out of order"},
      {"model.health-check-transport", E, "a health check transport the fabric cannot give"},
      {"model.iommu-platform", E, "an IOMMU policy the platform cannot apply"},
      {"model.rdma-netns-platform", E, "an RDMA netns mode the platform's bundle cannot run"},
      {"model.ipam-block-size", E, "an IPAM block size that does not fit the range"},
      {"model.ipam-overlap", E, "two rails whose address ranges overlap"},
      {"model.ipam-pool", E, "an IPAM pool that is missing or malformed"},
      {"model.ipam-range", E, "an address range with host bits set or a bad address"},
      {"model.memlock-platform", E, "a memlock strategy the platform cannot apply"},
      {"model.health-namespace-taken", E,
       "a workload namespace that is another's periodic health check namespace"},
      {"model.name-too-long", E,
       "workload.name too long for the health CronJob's name"},
      {"model.openshift-network-operator", E, "settings OpenShift's SR-IOV operator needs"},
      {"model.rdma-without-rails", E, "RDMA mode without rails"},
      {"model.reserved-env", E, "a workload env name hkimgen sets itself"},
      {"model.resource-mismatch", E, "a rail resource the device plugin does not advertise"},
      {"model.self-sync-twice", E, "gitops: self_sync and the deprecated automated_sync both given"},
      {"model.sriov-device-plugin", E, "SR-IOV device plugin settings that are missing"},
      {"model.toleration-exists-value", E, "a toleration with operator Exists and a value"},
      {"model.too-many-attachments", E, "more network attachments than NICs"},
      {"model.topology", E, "an NCCL topology that cannot be built"},
      {"model.topology-gpus", E, "a topology whose GPU count differs from the shape"},
      {"model.topology-identity", E, "a topology that names devices twice"},
      {"model.topology-preset", E, "an unknown topology preset"},
      {"model.topology-preset-and-custom", E, "both a topology preset and a custom topology"},
      {"profile.accept-unknown-rule", E, "accept_warnings names a rule that does not exist"},
      {"profile.accept-error", E, "accept_warnings names a rule that reports errors"},
      {"render.file-name", E, "an object name that cannot be a file name"},
      {"render.invalid-yaml", E, "a template rendered YAML that does not parse (a bug)"},
      {"schema.additionalProperties", E, "an unknown key"},
      {"schema.anyOf", E, "a value that matches none of the allowed forms"},
      {"schema.const", E, "a value other than the one allowed"},
      {"schema.enum", E, "a value that is not one of the allowed words"},
      {"schema.exclusiveMaximum", E, "a number at or above its bound"},
      {"schema.exclusiveMinimum", E, "a number at or below its bound"},
      {"schema.format", E, "a value not in the required format"},
      {"schema.internal", E, "schema validation failed inside hkimgen (a bug)"},
      {"schema.invalid", E, "the embedded schema does not parse (a bug)"},
      {"schema.maxItems", E, "a list with too many items"},
      {"schema.maxLength", E, "a string that is too long"},
      {"schema.maximum", E, "a number above its maximum"},
      {"schema.minItems", E, "a list with too few items"},
      {"schema.minLength", E, "a string that is too short"},
      {"schema.minimum", E, "a number below its minimum"},
      {"schema.missing", E, "the binary embeds no schema (a build fault)"},
      {"schema.multipleOf", E, "a number that is not a multiple of its step"},
      {"schema.not", E, "a value of a form that is not allowed"},
      {"schema.oneOf", E, "a value that matches none (or several) of the allowed forms"},
      {"schema.other", E, "any other schema violation"},
      {"schema.pattern", E, "a string not of the required form"},
      {"schema.required", E, "a required key is missing"},
      {"schema.type", E, "a value of the wrong type (the fix says what to write)"},
      {"schema.uniqueItems", E, "a list with repeated items"},
      {"schema.unknown-key", E, "a key the schema does not know (names the closest one)"},
      // The numbers come from the limits themselves (support/input_limits.h, discover's export).
      {"limit.depth", E,
       "mappings and lists nested deeper than " + std::to_string(limits::kMaxDepth) + " levels"},
      {"limit.errors", E,
       "reading (a file, the --set values) or validation stopped after " + std::to_string(limits::kMaxFileErrors) +
           " errors in one file"},
      {"limit.export-values", E,
       "a cluster export holding more values than its size allows (" +
           std::to_string(discover::kExportKeptBytesPerByte) + "x)"},
      {"limit.file-size", E, "a profile, layer or cluster export larger than hkimgen reads"},
      {"limit.value-size", E,
       "one value longer than " + std::to_string(limits::kMaxScalarBytes / 1024) + " KiB"},
      {"limit.values", E,
       "a document of more than " + std::to_string(limits::kMaxValues) + " values or " +
           std::to_string(limits::kMaxExpandedBytes / (1024 * 1024)) +
           " MiB, aliases expanded"},
      {"network.address", E, "an IPv4 address that does not parse (names the bad number)"},
      {"network.prefix", E, "a network's prefix length that is missing or above 32"},
      {"template.missing", E, "a template file the binary does not embed (a bug)"},
      {"template.missing-key", E, "a template names a value the plan lacks (a bug)"},
      {"template.render", E, "a template failed to render (a bug)"},
      {"template.syntax", E, "a template that does not parse (a bug)"},
      {"write.extra", E, "--check: a file in DIR the render does not produce"},
      {"write.missing", E, "--check: a file the render produces is missing from DIR"},
      {"write.refused", E, "-d DIR is not a bundle (--force adopts it) or must never be written"},
      {"write.user-file", W,
       "a file in the bundle that hkimgen did not write (kept; says whether Argo CD applies it)"},
      {"write.overwritten", W, "--force: a user's file under a bundle file's name was overwritten"},
      {"write.interrupted", E, "Ctrl-C or SIGTERM during a write: DIR unchanged (exit 130)"},
      {"write.gitops-path", W,
       "gitops.path differs from -d DIR's path in its git repository (DIR's is used)"},
      {"write.stale", E, "--check: a file in DIR differs from the render"},
      {"yaml.alias", E, "a YAML alias that cannot be used"},
      {"yaml.duplicate-key", E, "a key given twice in one mapping"},
      {"yaml.empty", E, "an empty profile"},
      {"yaml.encoding", E, "bytes that are not UTF-8, or a NUL byte (names the first bad byte)"},
      {"yaml.key-type", E, "a mapping key that is not a string"},
      {"yaml.merge-key", E, "a YAML merge key (<<) that cannot be resolved"},
      {"yaml.multiple-documents", E, "more than one YAML document in a profile"},
      {"yaml.number-range", E, "a number that does not fit (too large, too small or too precise)"},
      {"yaml.root", E, "a profile that is not a mapping"},
      {"yaml.syntax", E, "YAML that does not parse"},
      {"yaml.unsupported-tag", E, "a YAML tag hkimgen does not support"},
  };
  return rules;
}

}  // namespace

const std::vector<RuleInfo>& AllRules() {
  static const std::vector<RuleInfo> all = [] {
    std::vector<RuleInfo> rules = StageRules();
    for (const LintRule& rule : LintRules()) rules.push_back({rule.id, rule.severity, rule.summary});
    // Cross-profile rules (several profiles of one cluster): fleet/cluster_sharing.h.
    for (const RuleInfo& rule : ClusterSharingRules()) rules.push_back(rule);
    // Render-time closure of the plan (closure.h).
    for (const RuleInfo& rule : ClosureRules()) rules.push_back(rule);
    std::sort(rules.begin(), rules.end(),
              [](const RuleInfo& a, const RuleInfo& b) { return a.id < b.id; });
    return rules;
  }();
  return all;
}

std::vector<std::string> AllRuleIds() {
  std::vector<std::string> ids;
  for (const RuleInfo& rule : AllRules()) ids.push_back(rule.id);
  return ids;
}

std::vector<std::string> AcceptableRuleIds() {
  std::vector<std::string> ids;
  for (const RuleInfo& rule : AllRules()) {
    if (rule.severity == Severity::kWarning) ids.push_back(rule.id);
  }
  return ids;
}

bool IsKnownRule(const std::string& id) {
  for (const RuleInfo& rule : AllRules()) {
    if (rule.id == id) return true;
  }
  return false;
}

}  // namespace hkim
