// The release catalog's reader (model/operator_versions.h). The data is catalog/releases.json,
// embedded at build time; each entry names the tag, commit and files it was read from. The file
// is parsed once; tests/generator/model/release_catalog_test.cc checks that it parses and that
// every release is complete, so a malformed catalog fails the build's tests, not a user's run.

#include "model/operator_versions.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "support/embedded_files.h"

namespace hkim {
namespace {

using nlohmann::json;

struct Catalog {
  std::vector<GpuOperatorRelease> gpu;
  std::vector<NetworkOperatorRelease> network;
  std::vector<KnownBadCombination> known_bad;
  std::vector<NcclRelease> nccl;
  std::map<std::pair<std::string, std::string>, OpenShiftOperatorCsv> openshift;  // (key, minor)
  std::vector<std::string> nccl_names;  // the union, sorted
  std::map<std::string, std::string> gpu_support;  // line -> status
  std::string gpu_support_source;
};

std::string Text(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

ComponentImage Component(const json& o) {
  return {Text(o, "repository"), Text(o, "image"), Text(o, "version")};
}

std::vector<ChartImage> Images(const json& list) {
  std::vector<ChartImage> out;
  for (const json& i : list) {
    out.push_back({Text(i, "component"), Text(i, "repository"), Text(i, "image"),
                   Text(i, "version"), i.value("enabled", false), Text(i, "needs")});
  }
  return out;
}

std::map<std::string, std::string> Crds(const json& o) {
  std::map<std::string, std::string> out;
  for (auto it = o.begin(); it != o.end(); ++it) out[it.key()] = it.value().get<std::string>();
  return out;
}

Catalog Load() {
  Catalog c;
  const std::string_view* text = FindEmbeddedFile("catalog/releases.json");
  if (!text) return c;
  const json doc = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return c;
  for (const json& r : doc.value("gpu_operator", json::array())) {
    GpuOperatorRelease g;
    g.version = Text(r, "version");
    g.chart_version = Text(r, "chart_version");
    g.date = Text(r, "date");
    g.source = Text(r, "source");
    g.kubernetes = Text(r, "kubernetes");
    g.channel = Text(r, "channel");
    g.csv = Text(r, "csv");
    g.replaces = Text(r, "replaces");
    g.openshift = Text(r, "openshift");
    g.driver = Text(r, "driver");
    g.images = Images(r.value("images", json::array()));
    for (const json& name : r.value("bundle_images", json::array()))
      g.bundle_images.push_back(name.get<std::string>());
    g.crds = Crds(r.value("crds", json::object()));
    c.gpu.push_back(std::move(g));
  }
  for (const json& r : doc.value("network_operator", json::array())) {
    NetworkOperatorRelease n;
    n.version = Text(r, "version");
    n.chart_version = Text(r, "chart_version");
    n.date = Text(r, "date");
    n.source = Text(r, "source");
    n.kubernetes = Text(r, "kubernetes");
    n.chart_deploys_nic_cluster_policy = r.value("chart_deploys_nic_cluster_policy", false);
    n.doca_driver = Component(r.value("doca_driver", json::object()));
    const json components = r.value("components", json::object());
    n.sriov_device_plugin = Component(components.value("sriov_device_plugin", json::object()));
    n.nv_ipam = Component(components.value("nv_ipam", json::object()));
    n.multus = Component(components.value("multus", json::object()));
    n.cni_plugins = Component(components.value("cni_plugins", json::object()));
    n.sriov_cni = Component(components.value("sriov_cni", json::object()));
    n.rdma_cni = Component(components.value("rdma_cni", json::object()));
    n.images = Images(r.value("images", json::array()));
    n.crds = Crds(r.value("crds", json::object()));
    c.network.push_back(std::move(n));
  }
  for (const json& b : doc.value("known_bad", json::array())) {
    c.known_bad.push_back({Text(b, "operator"), Text(b, "version"), Text(b, "doca_driver"),
                           Text(b, "openshift"), Text(b, "what"), Text(b, "reference")});
  }
  std::set<std::string> names;
  for (const json& r : doc.value("nccl", json::array())) {
    NcclRelease n{Text(r, "version"), Text(r, "date"), Text(r, "source"), {}};
    for (const json& name : r.value("names", json::array())) {
      n.names.push_back(name.get<std::string>());
      names.insert(n.names.back());
    }
    c.nccl.push_back(std::move(n));
  }
  c.nccl_names.assign(names.begin(), names.end());
  for (const json& r : doc.value("openshift_operators", json::array())) {
    for (const char* key : {"sriov_network_operator", "nfd"}) {
      const json o = r.value(key, json::object());
      if (o.empty()) continue;
      c.openshift[{key, Text(r, "version")}] = {Text(o, "csv"), Text(o, "skip_range"),
                                                Text(o, "source")};
    }
  }
  const json support = doc.value("gpu_operator_support", json::object());
  c.gpu_support_source = Text(support, "source");
  const json lines = support.value("lines", json::object());
  for (auto it = lines.begin(); it != lines.end(); ++it)
    c.gpu_support[it.key()] = it.value().get<std::string>();
  return c;
}

const Catalog& TheCatalog() {
  static const Catalog catalog = Load();
  return catalog;
}

template <typename R>
std::string Known(const std::vector<R>& releases) {
  std::string out;
  for (const R& release : releases) out += (out.empty() ? "" : ", ") + release.version;
  return out;
}

template <typename R>
std::optional<R> Find(const std::vector<R>& releases, const std::string& version) {
  for (const R& release : releases) {
    if (release.version == version) return release;
  }
  return std::nullopt;
}

// "4.20.3" or "v4.20" -> {4, 20}.
std::optional<std::pair<int, int>> MajorMinor(const std::string& text) {
  int major = 0, minor = 0;
  const char* s = text.c_str();
  if (*s == 'v') ++s;
  if (std::sscanf(s, "%d.%d", &major, &minor) != 2) return std::nullopt;
  return std::make_pair(major, minor);
}

}  // namespace

const std::vector<GpuOperatorRelease>& GpuOperatorReleases() { return TheCatalog().gpu; }
const std::vector<NetworkOperatorRelease>& NetworkOperatorReleases() {
  return TheCatalog().network;
}
const std::vector<KnownBadCombination>& KnownBadCombinations() { return TheCatalog().known_bad; }
const std::vector<NcclRelease>& NcclReleases() { return TheCatalog().nccl; }
const std::vector<std::string>& NcclEnvNames() { return TheCatalog().nccl_names; }

std::optional<OpenShiftOperatorCsv> OpenShiftOperatorCsvFor(const std::string& key,
                                                            const std::string& minor) {
  auto it = TheCatalog().openshift.find({key, minor});
  if (it == TheCatalog().openshift.end()) return std::nullopt;
  return it->second;
}

std::optional<GpuOperatorRelease> FindGpuOperatorRelease(const std::string& version) {
  return Find(GpuOperatorReleases(), version);
}
std::optional<NetworkOperatorRelease> FindNetworkOperatorRelease(const std::string& version) {
  return Find(NetworkOperatorReleases(), version);
}

std::string KnownGpuOperatorVersions() { return Known(GpuOperatorReleases()); }
std::string KnownNetworkOperatorVersions() { return Known(NetworkOperatorReleases()); }

std::string GpuOperatorSupport(const std::string& version, std::string* source) {
  if (source) *source = TheCatalog().gpu_support_source;
  const auto v = ParseGpuOperatorVersion(version);
  if (!v) return "";
  auto it = TheCatalog().gpu_support.find(v->Channel());
  return it == TheCatalog().gpu_support.end() ? "" : it->second;
}

std::optional<bool> OpenShiftInRange(const std::string& openshift, const std::string& range) {
  const size_t dash = range.find('-');
  if (dash == std::string::npos) return std::nullopt;
  const auto low = MajorMinor(range.substr(0, dash));
  const auto high = MajorMinor(range.substr(dash + 1));
  const auto version = MajorMinor(openshift);
  if (!low || !high || !version) return std::nullopt;
  return *low <= *version && *version <= *high;
}

std::string GpuOperatorVersion::Channel() const {
  return "v" + std::to_string(year) + "." + std::to_string(minor);
}

std::optional<GpuOperatorVersion> ParseGpuOperatorVersion(const std::string& text) {
  GpuOperatorVersion v;
  char tail = 0;
  if (std::sscanf(text.c_str(), "v%d.%d.%d%c", &v.year, &v.minor, &v.patch, &tail) != 3) {
    return std::nullopt;
  }
  if (v.year < 0 || v.minor < 0 || v.patch < 0) return std::nullopt;
  return v;
}

std::optional<std::string> VfDeviceIdOf(const std::string& pf_device_id) {
  // k8snetworkplumbingwg/sriov-network-operator @249e200,
  // deployment/sriov-network-operator-chart/templates/configmap.yaml (supported-nic-ids).
  std::string id = pf_device_id;
  if (id.rfind("0x", 0) == 0) id = id.substr(2);
  if (id == "1021") return "101e";  // ConnectX-7
  if (id == "101d") return "101e";  // ConnectX-6 Dx
  if (id == "1019") return "101a";  // ConnectX-5 Ex
  return std::nullopt;
}

}  // namespace hkim
