#include "commands/init_command.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "commands/cli_support.h"
#include "load/load.h"
#include "pipeline/profile_check.h"
#include "model/operator_versions.h"
#include "model/wrapper_image.h"
#include "support/untrusted_text.h"
#include "write/output_file.h"

namespace hkim {
namespace {

// What init needs to know about a shape (facts from the seeds and FACTS.md).
struct ShapeFacts {
  int gpus = 0;
  int nics = 0;  // RDMA functions a pod can be given: VFs on OCI, PF ports on Barcelona
  const char* cpu_vendor = "intel";
  const char* vf_device_id = "101e";
  const char* gpu_product = "";  // node label value, when known
  const char* comment = "";
};

const std::map<std::string, ShapeFacts>& Shapes() {
  static const std::map<std::string, ShapeFacts> shapes = {
      {"BM.GPU.H100.8",
       {8, 16, "intel", "101e", "",
        "OCI bare metal, 8x H100 80GB, 16 RDMA VFs (ConnectX-7, device 101e), Intel Xeon"}},
      {"BM.GPU.A100-v2.8",
       {8, 16, "amd", "101a", "",
        "OCI bare metal, 8x A100 80GB, 16 RDMA VFs (ConnectX, device 101a), AMD EPYC"}},
      {"BM.GPU4.8",
       {8, 16, "amd", "101a", "",
        "OCI bare metal, 8x A100 40GB, 16 RDMA VFs (ConnectX, device 101a), AMD EPYC"}},
      {"barcelona-h100-cx7",
       {4, 4, "amd", "101e", "NVIDIA-H100-80GB-HBM3",
        "4x H100 80GB HBM3, 4 ConnectX-7 400G RoCE ports (one VF each), AMD EPYC"}},
  };
  return shapes;
}

std::string RailName(const std::string& shape, int i) {
  if (shape == "barcelona-h100-cx7") return "eno" + std::to_string(5 + i) + "np0";
  return "rail" + std::to_string(i);
}

void WriteOpenShiftNetwork(std::ostringstream& y, const std::string& shape, const ShapeFacts& f) {
  // Barcelona's port names are known (seeds); an OCI shape's PF names depend on the node image
  // and the cluster's SR-IOV policies, so each rail is marked for the user to fill in.
  const bool known_names = shape == "barcelona-h100-cx7";
  y << "network:\n"
       "  fabric: roce-v2\n"
       "  # One rail per NIC port: an SR-IOV resource (from your SriovNetworkNodePolicy) and the\n"
       "  # NetworkAttachmentDefinition hkimgen renders for it in every namespace. Give every "
       "rail\n"
       "  # its own subnet: rails sharing one range made 8-node runs hang on Barcelona.\n"
    << (known_names ? ""
                    : "  # The names rail0.. are placeholders: write each PF as `oc get "
                      "sriovnetworknodestates -A`\n"
                      "  # lists it (or drop the rails this pool does not use).\n")
    << "  rails:\n";
  for (int i = 0; i < f.nics; ++i) {
    const std::string name = RailName(shape, i);
    y << "    - name: " << name << (known_names ? "" : "             # CHANGE") << "\n"
      << "      interface: " << name
      << (known_names ? "          # host PF the VFs come from\n"
                      : "          # CHANGE: the host PF the VFs come from\n")
      << "      resource_name: openshift.io/" << name << "rdma   # the policy's resourceName\n"
      << "      mtu_bytes: 9000\n"
      << "      ipam:\n"
      << "        type: whereabouts\n"
      << "        range: 10.0." << 103 + i << ".0/24\n";
  }
  y << "\n";
}

void WriteOkeNetwork(std::ostringstream& y, const ShapeFacts& f) {
  y << "network:\n"
       "  fabric: roce-v2\n"
       "  # The NVIDIA Network Operator's SR-IOV device plugin advertises the VFs as one "
       "resource;\n"
       "  # hkimgen renders the NicClusterPolicy and the nv-ipam IPPool.\n"
       "  sriov_device_plugin:\n"
       "    resource_prefix: nvidia.com\n"
       "    resource_name: sriov_rdma_vf\n"
       "    device_ids: [\""
    << f.vf_device_id
    << "\"]\n"
       "  nv_ipam: {}\n"
       "  # One NAD attached once per VF.\n"
       "  rails:\n"
       "    - name: rdma-sriov\n"
       "      resource_name: nvidia.com/sriov_rdma_vf\n"
       "      attachments_per_pod: "
    << f.nics
    << "\n"
       "      mtu_bytes: 4220\n"
       "      cni_version: 0.3.1\n"
       "      ipam:\n"
       "        type: nv-ipam\n"
       "        pool:\n"
       "          name: default\n"
       "          namespace: network-operator\n"
       "          subnet: 192.168.0.0/16     # room for 655 nodes of 100 addresses\n"
       "          per_node_block_size: 100   # at least the VFs per node\n"
       "          gateway: 192.168.0.1\n\n";
}

// The OpenShift minor the starter names (marked CHANGE).
constexpr char kStarterOpenShift[] = "4.20";
constexpr char kSupportedNote[] = "newest supported release (docs/release-lines.md)";

// The GPU Operator release a starter pins: the catalog's newest of a supported line (one the
// starter's OpenShift minor offers), so that a fresh profile does not start past its support.
std::string StarterGpuOperatorVersion(bool openshift) {
  if (auto release = NewestSupportedGpuOperatorRelease(openshift ? kStarterOpenShift : "")) {
    return release->version;
  }
  return GpuOperatorReleases().back().version;
}

}  // namespace

std::vector<std::string> InitShapes() {
  std::vector<std::string> names;
  for (const auto& [name, facts] : Shapes()) names.push_back(name);
  return names;
}

std::optional<std::string> StarterProfile(const InitOptions& o) {
  auto shape = Shapes().find(o.shape);
  if (shape == Shapes().end()) return std::nullopt;
  if (o.platform != "openshift" && o.platform != "oke") return std::nullopt;
  const ShapeFacts& f = shape->second;
  const bool openshift = o.platform == "openshift";
  const std::string gpu_operator_version = StarterGpuOperatorVersion(openshift);
  std::ostringstream y;
  y << "# yaml-language-server: $schema=../schemas/profile.schema.json\n"
       "# (relative to this file: for a profile in profiles/, `hkimgen schema > "
       "schemas/profile.schema.json`\n"
       "# at the top of your bundle repository writes it)\n"
       "#\n"
       "# Starter profile written by `hkimgen init --platform "
    << o.platform << " --shape " << o.shape
    << "`.\n"
       "# Node shape: "
    << f.comment
    << ".\n"
       "# Fill in the values marked CHANGE, then:\n"
       "#   hkimgen validate THIS_FILE        (schema, cross-field and lint rules, offline;\n"
       "#                                      add --cluster EXPORT to compare with the cluster)\n"
       "#   hkimgen render THIS_FILE -d out/"
    << o.name
    << "\n"
       "# Field reference: `hkimgen schema -o markdown` (docs/profile-reference.md of the hkimgen\n"
       "# checkout); one value and where it comes from: `hkimgen explain THIS_FILE PATH`.\n"
       "# Shared settings can move to a base profile: `extends: base/"
    << (openshift ? "openshift" : "oke")
    << ".yaml` (copy profiles/base/ of the\n"
       "# hkimgen checkout next to this file).\n\n";
  y << "cluster:\n"
       "  name: "
    << o.name
    << "\n"
       "  platform: "
    << o.platform << "\n\n";
  y << "# Every namespace gets its own ServiceAccount, NADs, ConfigMaps, Service and StatefulSet.\n"
       "namespaces:\n"
       "  - gpu-training              # CHANGE\n\n";
  y << "node_shape:\n"
       "  name: "
    << o.shape
    << "\n"
       "  gpus_per_node: "
    << f.gpus
    << "\n"
       "  nics_per_node: "
    << f.nics
    << "\n"
       "  cpu_vendor: "
    << f.cpu_vendor << "           # Intel adds intel_iommu=on to iommu=pt\n";
  y << "  node_selector:\n";
  if (*f.gpu_product != '\0') {
    y << "    nvidia.com/gpu.product: " << f.gpu_product << "\n";
  } else {
    y << "    node.kubernetes.io/instance-type: " << o.shape << "\n";
  }
  y << "  tolerations:\n"
       "    - key: nvidia.com/gpu\n"
       "      operator: Exists\n"
       "  topology:\n"
       "    preset: "
    << o.shape << "     # NCCL topology XML for this shape\n\n";
  if (openshift) {
    WriteOpenShiftNetwork(y, o.shape, f);
    y << "  # A fresh cluster: the bundle switches the GPU nodes to exclusive RDMA mode (a\n"
         "  # SriovNetworkPoolConfig: each node drains and reboots once) and the NADs chain the rdma\n"
         "  # CNI. On a cluster whose other NADs lack it, say shared.\n"
         "  rdma_netns: exclusive\n\n";
  } else {
    WriteOkeNetwork(y, f);
  }
  y << "nccl:\n"
       "  gid_policy: auto            # hkim-wrapper finds the RoCE v2 IPv4 GID at every start\n";
  if (openshift) {
    y << "  cross_nic: 0                # isolated per-rail subnets: GPU n keeps to rail n\n"
         "  gpudirect: dmabuf           # no nvidia_peermem needed\n";
  } else {
    y << "  cross_nic: 0\n"
         "  gpudirect: auto\n"
         "  socket_ifname: eth0         # bootstrap over the pod network\n";
  }
  y << "  debug: WARN\n\n";
  y << "security:\n";
  if (openshift) {
    y << "  # Least privilege that lifts memlock: an SCC allowing IPC_LOCK + SYS_RESOURCE. Added\n"
         "  # capabilities only take effect for UID 0.\n"
         "  memlock_strategy: sys-resource-scc\n"
         "  # Defaults: the SCC <cluster.name>-nccl-rdma (security.scc_name), the pods'\n"
         "  # ServiceAccount hkim-workload in each namespace (security.service_account).\n"
         "  run_as_user: 0\n\n"
         "iommu:\n"
         "  # Translated IOMMU mode breaks RDMA; this renders a MachineConfig (nodes reboot).\n"
         "  policy: passthrough\n"
         "  machine_config_role: worker\n\n";
  } else {
    y << "  # CRI-O default_ulimits memlock=-1 on the GPU node pool (cloud-init) plus IPC_LOCK.\n"
         "  memlock_strategy: crio-ulimits\n\n"
         "iommu:\n"
         "  policy: already-configured  # set iommu=pt in the node image\n\n";
  }
  y << "workload:\n"
       "  name: nccl-job\n"
       "  image: nvcr.io/nvidia/pytorch:24.05-py3   # CHANGE: your training image, pinned\n"
       "  replicas: 2                 # pods = nodes (one pod per node)\n"
       "  gpus_per_pod: "
    << f.gpus
    << "\n"
       "  command: [\"sleep\", \"infinity\"]   # CHANGE: your command (the bundle runs it under "
       "hkim-wrapper)\n"
       "  shm_size: 32Gi\n"
       "  mode: rdma\n"
       "  on_no_rdma: fail\n\n"
       "wrapper:\n"
       "  image: "
    << DefaultWrapperImage()
    << "\n\n"
       "health_check:\n"
       "  mode: warn\n"
       "  scope: local\n\n"
    << (openshift ? "# What the bundle installs on a fresh cluster (docs/bundle.md, \"The bundle\"): the\n"
                    "# SR-IOV Network Operator with one node policy per rail, NFD and the GPU\n"
                    "# Operator, through OLM. On a cluster that runs them already, say `install:\n"
                    "# preinstalled` (and sriov_network_operator.node_policies: false to use its\n"
                    "# policies): validate --cluster EXPORT reports what a sync would collide with.\n"
                    "operators:\n"
                    "  openshift_version: \"" + std::string(kStarterOpenShift) +
                          "\"   # CHANGE: oc get clusterversion (picks the NFD operand)\n"
                    "  sriov_network_operator:\n"
                    "    install: managed\n"
                    "    num_vfs_per_pf: 1         # one VF per port: one pod per node\n"
                    "  nfd:\n"
                    "    install: managed\n"
                    "  gpu_operator:\n"
                    "    install: managed\n"
                    "    version: " + gpu_operator_version + "   # " + kSupportedNote + "\n\n"
                  : "# What the bundle installs (docs/bundle.md, \"The bundle\"): the GPU and Network\n"
                    "# Operator charts through Argo CD, and on this pool a DaemonSet that creates the\n"
                    "# VFs, sets the RDMA subsystem's exclusive netns mode and loads nvidia_peermem,\n"
                    "# plus the SR-IOV and RDMA CNI the NADs chain. Where OKE's add-ons already run an\n"
                    "# operator, say `install: preinstalled` (the bundle then lists it as a\n"
                    "# precondition).\n"
                    "operators:\n"
                    "  gpu_operator:\n"
                    "    install: managed\n"
                    "    version: " + gpu_operator_version + "   # " + kSupportedNote + "\n"
                    "    driver:\n"
                    "      enabled: false          # the OCI GPU image ships the driver\n"
                    "      branch: 535             # CHANGE if your image's driver is another branch\n"
                    "    use_host_mofed: true      # and MOFED: nvidia-peermem builds against it\n"
                    "  network_operator:\n"
                    "    install: managed\n"
                    "    version: v25.10.0\n"
                    "  vf_config:\n"
                    "    install: managed\n"
                    "    vfs_per_pf: 1             # one VF per PF, as oci-hpc-oke\n"
                    "    mtu_bytes: 4220\n\n")
    << "gitops:\n"
    << (openshift ? "  argocd_namespace: openshift-gitops   # OpenShift GitOps' Argo CD\n" : "")
    << (o.repo_url.empty()
            ? std::string("  repo_url: https://git.example.com/platform/gpu-bundles.git   "
                          "# CHANGE (or init --repo-url)\n")
            : "  repo_url: " + nlohmann::json(o.repo_url).dump() + "\n")
    << "  path: out/"
    << o.name
    << "\n"
       "  revision: main\n";
  return y.str();
}

namespace {

const std::vector<std::string> kInitFormats = {"yaml", "json"};

// cluster.platform kubernetes is valid in a profile, but init's shapes are OCI's and Barcelona's
// and its starters name their operators' install paths (OLM, OKE's charts and node image):
// a generic one would guess them.
constexpr char kNoKubernetesStarter[] =
    "kubernetes has no starter (the shapes init knows are OCI's and Barcelona's): start from "
    "--platform oke, then set cluster.platform: kubernetes and review the lines that name OCI "
    "(node_shape.node_selector, operators.vf_config, the driver); or draft one from your cluster "
    "with `hkimgen discover`";

// `--name` is checked as the profile checks cluster.name (schema pattern, YAML typing), by
// validating the starter it would write; the first finding is reported against the flag
// (--name or --repo-url) to `out`. Returns whether the starter is clean.
bool CheckStarter(const InitOptions& options, const std::string& text, DiagnosticSink& out) {
  DiagnosticSink sink;
  std::optional<LoadedProfile> loaded = LoadProfileFromText("starter.yaml", text, sink);
  if (loaded) {
    // The name as a string, whatever YAML would make of it, so the schema judges the value.
    loaded->document["cluster"]["name"] = options.name;
    CheckLoadedProfile(*loaded, sink);
    if (!sink.HasErrors()) {
      DiagnosticSink typed;  // and as written: `name: 123` would be an integer
      if (auto as_written = LoadProfileFromText("starter.yaml", text, typed)) {
        CheckLoadedProfile(*as_written, typed);
      }
      for (const Diagnostic& d : typed.diagnostics()) sink.Report(d);
    }
  }
  if (!sink.HasErrors()) return true;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.severity != Severity::kError) continue;
    const bool repo = d.data_path.rfind("/gitops/repo_url", 0) == 0;
    const std::string flag = repo ? "--repo-url" : "--name";
    out.Report(Diagnostic{
        Severity::kError, SourceLocation{flag, 0, 0}, "", d.rule,
        flag + " '" + UntrustedText(repo ? options.repo_url : options.name) + "': " +
            UntrustedText(d.message, kMaxMessageBytes),
        !d.fix.empty() ? d.fix
        : repo         ? "give the repository's https or ssh URL, e.g. --repo-url "
                         "https://github.com/me/bundles.git"
                       : "use lower-case letters, digits and '-', e.g. --name my-cluster"});
    break;
  }
  return false;
}

}  // namespace

void SetupInitCommand(CLI::App& app) {
  auto options = std::make_shared<InitOptions>();
  auto output = std::make_shared<OutputChoice>();
  CLI::App* command =
      app.add_subcommand("init", "Write a commented starter profile that validates");
  command
      ->add_option("--platform", options->platform,
                   "Target platform: openshift or oke (another Kubernetes: see below)")
      ->required()
      ->check(CLI::Validator(
          [](std::string& platform) -> std::string {
            if (platform == "openshift" || platform == "oke") return "";
            if (platform == "kubernetes") return kNoKubernetesStarter;
            return platform + " not in {openshift,oke}";
          },
          "{openshift,oke}"));
  command->add_option("--shape", options->shape, "GPU node shape")
      ->required()
      ->check(CLI::IsMember(InitShapes()));
  command
      ->add_option("--name", options->name,
                   "Cluster name, checked as cluster.name is (a DNS label, e.g. lab-h100)")
      ->capture_default_str();
  command->add_option("--repo-url", options->repo_url,
                      "gitops.repo_url: the git repository Argo CD reads the bundle from (else a "
                      "placeholder that lint.repo-url-placeholder warns on until you fill it)")
      ->type_name("URL");
  command->add_option("--output-file", options->output, "Write to FILE instead of stdout")
      ->type_name("FILE");
  AddOutputOption(command, *output, kInitFormats);
  command->add_flag("--force", options->force, "Overwrite FILE when it exists");
  command->footer(R"(
Examples:
  hkimgen init --platform openshift --shape barcelona-h100-cx7 --output-file profiles/my-cluster.yaml
  hkimgen init --platform oke --shape BM.GPU.H100.8 --name oke-prod > profiles/oke-prod.yaml
  hkimgen init --platform oke --shape BM.GPU.H100.8 --repo-url https://github.com/me/bundles.git

The starter validates as written (schema, model, the lint rules and closure): `hkimgen validate`
exits 0. `hkimgen lint`, where warnings fail, exits 1 until you have also (1) named your
repository (--repo-url, or edit gitops.repo_url: lint.repo-url-placeholder) and (2) pinned the
images it names by tag to digests (lint.image-digest: `render --image-digest IMAGE=sha256:...`,
images.digests, or IMAGE@sha256:... in the profile). On OKE it also notes that the node agents
run privileged under SELinux enforcing (lint.node-agent-privileged: set node_shape.selinux where
getenforce says Permissive or Disabled); on OpenShift, that the MachineConfig reboots every
worker (lint.worker-pool-reboots: set iommu.machine_config_role to a GPU pool's role where some
workers have no GPU). The GPU Operator is the catalog's newest supported release. FILE's folder
is made when missing. Per-platform defaults are filled in: on OpenShift, Argo CD runs in
openshift-gitops (OpenShift GitOps). --platform kubernetes has no starter: start from oke and
set cluster.platform: kubernetes.
Deprecated: `-o FILE` (now --output-file FILE) works for one release, with a warning.)");
  command->callback([options, output] {
    if (!ResolveOutputChoice(*output, kInitFormats, "init", "--output-file", "file", std::cerr)) {
      FinishCommand(1);
    }
    if (!output->legacy_path.empty()) options->output = output->legacy_path;
    options->format = output->format;
    FinishCommand(RunInitCommand(*options, std::cout, std::cerr));
  });
}

int RunInitCommand(const InitOptions& options, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  int status = 0;
  std::optional<std::string> text = StarterProfile(options);
  if (!text) {
    sink.Report(Diagnostic{Severity::kError, {}, "", "cli.usage",
                           "unknown platform " + QuoteUntrusted(options.platform) + " or shape " +
                               QuoteUntrusted(options.shape),
                           "`hkimgen init --help` lists the platforms and shapes"});
    status = 1;
  } else if (!CheckStarter(options, *text, sink)) {
    status = 1;
  } else if (!options.output.empty()) {
    std::string reason;
    // `--output-file profiles/x.yaml` in a fresh repository: its folder is made first.
    const std::filesystem::path parent = std::filesystem::path(options.output).parent_path();
    std::error_code made;
    if (!parent.empty()) std::filesystem::create_directories(parent, made);
    const OutputFileStatus written =
        made ? OutputFileStatus::kFailed
             : WriteOutputFile(options.output, *text, options.force, &reason);
    if (made) reason = "cannot create the folder " + parent.string() + ": " + made.message();
    const SourceLocation file{options.output, 0, 0};
    if (written == OutputFileStatus::kExists) {
      sink.Report(Diagnostic{Severity::kError, file, "", "io.exists", "the file exists",
                             "choose another --output-file, or add --force to overwrite it"});
      status = 1;
    } else if (written == OutputFileStatus::kFailed) {
      sink.Report(Diagnostic{Severity::kError, file, "", "io.write",
                             "cannot write the profile: " + reason,
                             "check that the folder exists and is writable"});
      status = 2;
    }
  }
  const std::string next =
      (options.repo_url.empty() ? "fill gitops.repo_url (your bundle repository), then " : "") +
      std::string("hkimgen validate ") + (options.output.empty() ? "PROFILE" : options.output);
  if (options.format == "json") {
    nlohmann::json result = nullptr;
    if (status == 0) {
      result = {{"output_file", options.output.empty() ? nlohmann::json(nullptr)
                                                       : nlohmann::json(options.output)},
                {"profile", *text},
                {"next", next}};
    }
    out << DumpJson(JsonReport("init", status, sink, result)) << '\n';
    return status;
  }
  PrintDiagnostics(sink, {}, err);
  if (status != 0) return status;
  if (options.output.empty()) {
    out << *text;
    return 0;
  }
  err << "wrote " << UntrustedText(options.output)
      << "; next: " << UntrustedText(next, kMaxMessageBytes) << "\n";
  return 0;
}

}  // namespace hkim
