// The release catalog's reader (model/operator_versions.h). The data is catalog/releases.json,
// laid out at build time (model/tools/catalog_sections.cc) and embedded; each entry names the
// tag, commit and files it was read from. Each release and table is parsed once, when first
// used; tests/generator/model/release_catalog_test.cc checks that it parses and that
// every release is complete, so a malformed catalog fails the build's tests, not a user's run.

#include "model/operator_versions.h"

#include <cctype>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <deque>
#include <mutex>
#include <set>

#include "model/operator_catalog.h"
#include "support/embedded_files.h"

namespace hkim {
namespace {

using nlohmann::json;

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

void ReadChartRelease(const json& r, ChartRelease& c) {
  c.version = Text(r, "version");
  c.chart_version = Text(r, "chart_version");
  c.date = Text(r, "date");
  c.source = Text(r, "source");
  c.kubernetes = Text(r, "kubernetes");
  c.images = Images(r.value("images", json::array()));
  c.crds = Crds(r.value("crds", json::object()));
}

void Read(const json& r, GpuOperatorRelease& g) {
  ReadChartRelease(r, g);
  g.channel = Text(r, "channel");
  g.csv = Text(r, "csv");
  g.replaces = Text(r, "replaces");
  g.openshift = Text(r, "openshift");
  g.driver = Text(r, "driver");
  for (const json& name : r.value("bundle_images", json::array()))
    g.bundle_images.push_back(name.get<std::string>());
}

void Read(const json& r, NetworkOperatorRelease& n) {
  ReadChartRelease(r, n);
  n.chart_deploys_nic_cluster_policy = r.value("chart_deploys_nic_cluster_policy", false);
  n.doca_driver = Component(r.value("doca_driver", json::object()));
  const json components = r.value("components", json::object());
  n.sriov_device_plugin = Component(components.value("sriov_device_plugin", json::object()));
  n.nv_ipam = Component(components.value("nv_ipam", json::object()));
  n.multus = Component(components.value("multus", json::object()));
  n.cni_plugins = Component(components.value("cni_plugins", json::object()));
  n.sriov_cni = Component(components.value("sriov_cni", json::object()));
  n.rdma_cni = Component(components.value("rdma_cni", json::object()));
}

std::vector<std::string> Strings(const json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const json& s : list)
    if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

/// known_bad, openshift_operators, gpu_operator_support, kueue and volcano.
struct OtherTables {
  std::vector<KnownBadCombination> known_bad;
  std::vector<KueueRelease> kueue;      // oldest first
  std::vector<VolcanoRelease> volcano;  // oldest first
  std::map<std::pair<std::string, std::string>, OpenShiftOperatorCsv> openshift;  // (key, minor)
  std::map<std::string, std::string> gpu_support;  // line -> status
  std::string gpu_support_source;
};

OtherTables ReadOther(const json& doc) {
  OtherTables c;
  if (!doc.is_object()) return c;
  for (const json& b : doc.value("known_bad", json::array())) {
    c.known_bad.push_back({Text(b, "operator"), Text(b, "version"), Text(b, "doca_driver"),
                           Text(b, "openshift"), Text(b, "what"), Text(b, "reference")});
  }
  for (const json& r : doc.value("openshift_operators", json::array())) {
    // One object per operator, under its key (model/operator_catalog.h), beside the minor.
    if (!r.is_object()) continue;
    for (auto it = r.begin(); it != r.end(); ++it) {
      const json& o = it.value();
      if (!o.is_object() || o.empty()) continue;
      c.openshift[{it.key(), Text(r, "version")}] = {Text(o, "csv"), Text(o, "skip_range"),
                                                     Text(o, "source")};
    }
  }
  for (const json& r : doc.value(KueueFacts().release.section, json::array())) {
    c.kueue.push_back({Text(r, "version"), Text(r, "chart_version"), Text(r, "date"),
                       Text(r, "source"), Strings(r.value("served", json::array())),
                       Text(r, "storage"), Text(r, "image")});
  }
  for (const json& r : doc.value(VolcanoFacts().release.section, json::array())) {
    c.volcano.push_back({Text(r, "version"), Text(r, "chart_version"), Text(r, "date"),
                         Text(r, "source"), {}});
    const std::string registry = Text(r, "registry");
    for (const std::string& image : Strings(r.value("images", json::array())))
      c.volcano.back().images.push_back(registry.empty() ? image : registry + "/" + image);
  }
  const json support = doc.value("gpu_operator_support", json::object());
  c.gpu_support_source = Text(support, "source");
  const json lines = support.value("lines", json::object());
  for (auto it = lines.begin(); it != lines.end(); ++it)
    c.gpu_support[it.key()] = it.value().get<std::string>();
  return c;
}

std::vector<NcclRelease> ReadNccl(const json& doc) {
  std::vector<NcclRelease> out;
  if (!doc.is_array()) return out;
  for (const json& r : doc) {
    NcclRelease n{Text(r, "version"), Text(r, "date"), Text(r, "source"), {}};
    for (const json& name : r.value("names", json::array())) n.names.push_back(name.get<std::string>());
    out.push_back(std::move(n));
  }
  return out;
}

/// One part of the laid-out catalog, parsed the first time it is asked for (from any thread).
template <typename T>
class Part {
 public:
  explicit Part(std::string_view text = {}) : text_(text) {}
  /// Where its text lies (before the first Get).
  void SetText(std::string_view text) { text_ = text; }
  template <typename ReadFn>
  const T& Get(const ReadFn& read) const {
    std::call_once(once_, [&] {
      // The build wrote the text from parsed JSON (model/tools/catalog_sections.cc), so it is
      // JSON; a default value stands in if it ever is not.
      const json doc = json::parse(text_, nullptr, /*allow_exceptions=*/false);
      if (!doc.is_discarded()) value_ = read(doc);
    });
    return value_;
  }

 private:
  std::string_view text_;
  mutable std::once_flag once_;
  mutable T value_{};
};

/// The release catalog as the build laid it out (model/tools/catalog_sections.cc): an index, then
/// every release and table as compact JSON of its own, each parsed when first used, so a render
/// reads only the releases its profile names.
template <typename R>
struct Releases {
  std::vector<std::string> versions;        // oldest first, as the catalog lists them
  std::deque<Part<R>> parts;                // parts[i] is versions[i]
  std::once_flag all_once;
  std::vector<R> all;

  const R* Find(const std::string& version) const {
    for (size_t i = 0; i < versions.size(); ++i) {
      if (versions[i] == version) {
        return &parts[i].Get([](const json& r) {
          R release;
          Read(r, release);
          return release;
        });
      }
    }
    return nullptr;
  }
  const std::vector<R>& All() {
    std::call_once(all_once, [this] {
      for (const std::string& version : versions) all.push_back(*Find(version));
    });
    return all;
  }
};

struct Catalog {
  Releases<GpuOperatorRelease> gpu;
  Releases<NetworkOperatorRelease> network;
  Part<std::vector<NcclRelease>> nccl;
  Part<std::vector<std::string>> nccl_names;  // the union, sorted (by the build)
  Part<OtherTables> other;

  const OtherTables& Other() const { return other.Get(ReadOther); }
};

std::string_view Span(std::string_view data, const json& span) {
  if (!span.is_array() || span.size() != 2) return {};
  const size_t offset = span[0].get<size_t>(), length = span[1].get<size_t>();
  return offset + length <= data.size() ? data.substr(offset, length) : std::string_view();
}

template <typename R>
void ReadIndex(std::string_view data, const json& entries, Releases<R>& releases) {
  if (!entries.is_array()) return;
  for (const json& entry : entries) {
    if (!entry.is_array() || entry.size() != 3 || !entry[0].is_string()) continue;
    releases.versions.push_back(entry[0].get<std::string>());
    releases.parts.emplace_back(Span(data, json::array({entry[1], entry[2]})));
  }
}

Catalog& TheCatalog() {
  static Catalog catalog;
  static std::once_flag once;
  std::call_once(once, [] {
    const std::string_view* text = FindEmbeddedFile("catalog/releases.sections");
    if (!text) return;
    const size_t newline = text->find('\n');
    if (newline == std::string_view::npos) return;
    const json index = json::parse(text->substr(0, newline), nullptr, /*allow_exceptions=*/false);
    if (!index.is_object()) return;
    const std::string_view data = text->substr(newline + 1);
    ReadIndex(data, index.value(GpuOperatorFacts().release.section, json::array()), catalog.gpu);
    ReadIndex(data, index.value(NetworkOperatorFacts().release.section, json::array()),
              catalog.network);
    catalog.nccl.SetText(Span(data, index.value("nccl", json())));
    catalog.nccl_names.SetText(Span(data, index.value("nccl_names", json())));
    catalog.other.SetText(Span(data, index.value("other", json())));
  });
  return catalog;
}

std::string Known(const std::vector<std::string>& versions) {
  std::string out;
  for (const std::string& version : versions) out += (out.empty() ? "" : ", ") + version;
  return out;
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

const std::vector<GpuOperatorRelease>& GpuOperatorReleases() { return TheCatalog().gpu.All(); }
const std::vector<NetworkOperatorRelease>& NetworkOperatorReleases() {
  return TheCatalog().network.All();
}
const std::vector<KnownBadCombination>& KnownBadCombinations() {
  return TheCatalog().Other().known_bad;
}
const std::vector<NcclRelease>& NcclReleases() { return TheCatalog().nccl.Get(ReadNccl); }
const std::vector<std::string>& NcclEnvNames() {
  return TheCatalog().nccl_names.Get([](const json& doc) {
    std::vector<std::string> names;
    for (const json& name : doc) names.push_back(name.get<std::string>());
    return names;
  });
}

std::optional<OpenShiftOperatorCsv> OpenShiftOperatorCsvFor(const std::string& key,
                                                            const std::string& minor) {
  const auto& openshift = TheCatalog().Other().openshift;
  auto it = openshift.find({key, minor});
  if (it == openshift.end()) return std::nullopt;
  return it->second;
}

std::optional<GpuOperatorRelease> FindGpuOperatorRelease(const std::string& version) {
  const GpuOperatorRelease* release = TheCatalog().gpu.Find(version);
  return release ? std::optional<GpuOperatorRelease>(*release) : std::nullopt;
}
std::optional<NetworkOperatorRelease> FindNetworkOperatorRelease(const std::string& version) {
  const NetworkOperatorRelease* release = TheCatalog().network.Find(version);
  return release ? std::optional<NetworkOperatorRelease>(*release) : std::nullopt;
}

const std::vector<KueueRelease>& KueueReleases() { return TheCatalog().Other().kueue; }
const std::vector<VolcanoRelease>& VolcanoReleases() { return TheCatalog().Other().volcano; }

namespace {

// A release of `releases` by its tag (v0.19.2) or its chart version (0.19.2).
template <typename R>
std::optional<R> FindByTagOrChart(const std::vector<R>& releases, const std::string& version) {
  for (const R& r : releases)
    if (r.version == version || r.chart_version == version) return r;
  return std::nullopt;
}

template <typename R>
std::string KnownTags(const std::vector<R>& releases) {
  std::vector<std::string> tags;
  for (const R& r : releases) tags.push_back(r.version);
  return Known(tags);
}

}  // namespace

std::optional<KueueRelease> FindKueueRelease(const std::string& version) {
  return FindByTagOrChart(KueueReleases(), version);
}
std::optional<VolcanoRelease> FindVolcanoRelease(const std::string& version) {
  return FindByTagOrChart(VolcanoReleases(), version);
}
std::string KnownKueueVersions() { return KnownTags(KueueReleases()); }
std::string KnownVolcanoVersions() { return KnownTags(VolcanoReleases()); }

std::string KnownGpuOperatorVersions() { return Known(TheCatalog().gpu.versions); }
std::string KnownNetworkOperatorVersions() { return Known(TheCatalog().network.versions); }

std::string GpuOperatorSupport(const std::string& version, std::string* source) {
  const OtherTables& other = TheCatalog().Other();
  if (source) *source = other.gpu_support_source;
  const auto v = ParseGpuOperatorVersion(version);
  if (!v) return "";
  auto it = other.gpu_support.find(v->Channel());
  return it == other.gpu_support.end() ? "" : it->second;
}

std::optional<GpuOperatorRelease> NewestSupportedGpuOperatorRelease(const std::string& openshift) {
  for (const char* wanted : {"supported", "deprecated"}) {
    const std::vector<GpuOperatorRelease>& releases = GpuOperatorReleases();  // oldest first
    for (auto it = releases.rbegin(); it != releases.rend(); ++it) {
      if (GpuOperatorSupport(it->version) != wanted) continue;
      if (!openshift.empty() && OpenShiftInRange(openshift, it->openshift) != true) continue;
      return *it;
    }
  }
  return std::nullopt;
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

std::optional<std::vector<int>> ParseOperatorVersion(std::string_view text) {
  // A CSV name: "<package>.v<version>".
  if (const size_t at = text.find(".v"); at != std::string_view::npos) text = text.substr(at + 1);
  if (auto gpu = ParseGpuOperatorVersion(std::string(text)))
    return std::vector<int>{gpu->year, gpu->minor, gpu->patch};
  if (!text.empty() && text.front() == 'v') text.remove_prefix(1);
  std::vector<int> numbers;
  int value = -1;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (value > 100000) return std::nullopt;
      value = (value < 0 ? 0 : value * 10) + (c - '0');
    } else if (c == '.' && value >= 0) {
      numbers.push_back(value);
      value = -1;
    } else {
      return std::nullopt;
    }
  }
  if (value < 0) return std::nullopt;
  numbers.push_back(value);
  return numbers;
}

bool IsOlderVersion(std::string_view version, std::string_view than) {
  const std::optional<std::vector<int>> older = ParseOperatorVersion(version);
  const std::optional<std::vector<int>> newer = ParseOperatorVersion(than);
  return older && newer && *older < *newer;
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
