#include "diff/release_moves.h"

#include <yaml-cpp/yaml.h>

#include <optional>
#include <set>

#include "model/image_reference.h"
#include "model/operator_versions.h"

namespace hkim {
namespace {

using nlohmann::json;

// What one bundle pins: the operator's name -> its release (or channel) and where.
struct Pin {
  std::string version;
  std::string file;
  bool driver_enabled = false;  // GPU Operator: driver.enabled in the chart values / ClusterPolicy
};

std::string Scalar(const YAML::Node& node, std::initializer_list<const char*> path) {
  // reset(), not `=`: assigning a yaml-cpp node writes into the node it refers to.
  YAML::Node at;
  at.reset(node);
  for (const char* key : path) {
    if (!at.IsMap()) return "";
    const YAML::Node next = at[key];
    if (!next) return "";
    at.reset(next);
  }
  return at.IsScalar() ? at.Scalar() : "";
}

// The bundle's GPU and Network Operator pins, read from its Applications (OKE) and Subscription
// and ClusterPolicy (OpenShift). A file that does not parse is skipped: the diff shows it.
// Only these kinds pin a release: a bundle of thousands of files has a handful of them, and
// parsing the rest as YAML was most of diff's time.
bool MayHoldPin(const std::string& text) {
  return text.find("kind: Application") != std::string::npos ||
         text.find("kind: Subscription") != std::string::npos ||
         text.find("kind: ClusterPolicy") != std::string::npos;
}

std::map<std::string, Pin> Pins(const std::map<std::string, std::string>& files) {
  std::map<std::string, Pin> pins;
  bool driver = false, cluster_policy = false;
  for (const auto& [name, text] : files) {
    if (!MayHoldPin(text)) continue;
    std::vector<YAML::Node> docs;
    try {
      docs = YAML::LoadAll(text);
    } catch (const YAML::Exception&) {
      continue;
    }
    for (const YAML::Node& doc : docs) {
      const std::string kind = Scalar(doc, {"kind"});
      if (kind == "Application") {
        const std::string chart = Scalar(doc, {"spec", "source", "chart"});
        const std::string revision = Scalar(doc, {"spec", "source", "targetRevision"});
        if (chart == "gpu-operator") {
          pins["GPU Operator"] = {revision, name,
                                  Scalar(doc, {"spec", "source", "helm", "valuesObject", "driver",
                                               "enabled"}) == "true"};
        } else if (chart == "network-operator") {
          std::string version = "v" + revision;  // chart 25.10.0 -> release v25.10.0
          for (const NetworkOperatorRelease& r : NetworkOperatorReleases())
            if (r.chart_version == revision) version = r.version;
          pins["Network Operator"] = {version, name, false};
        }
      } else if (kind == "Subscription" &&
                 Scalar(doc, {"spec", "name"}) == "gpu-operator-certified") {
        const std::string csv = Scalar(doc, {"spec", "startingCSV"});
        // A bundle from before startingCSV was rendered names only the channel.
        pins["GPU Operator"].version = csv.empty() ? Scalar(doc, {"spec", "channel"})
                                                   : csv.substr(csv.find('.') + 1);
        pins["GPU Operator"].file = name;
      } else if (kind == "ClusterPolicy") {
        driver = Scalar(doc, {"spec", "driver", "enabled"}) == "true";
        cluster_policy = true;
      }
    }
  }
  // OpenShift: the ClusterPolicy the bundle renders says whether the operator deploys the driver.
  auto gpu = pins.find("GPU Operator");
  if (gpu != pins.end() && cluster_policy) gpu->second.driver_enabled = driver;
  return pins;
}

// The images the cluster pulls at a release, as plan/operators/chart_images.cc deploys them
// (on by default; the driver's manager only with driver.enabled). The driver itself has its
// own line (DriverRolls).
std::map<std::string, std::string> Pulled(const std::vector<ChartImage>& images,
                                          bool driver_enabled) {
  std::map<std::string, std::string> out;
  for (const ChartImage& c : images) {
    if (!c.enabled || c.repository.empty() || c.component == "driver") continue;
    if (!c.needs.empty() && !(c.needs == "driver" && driver_enabled)) continue;
    out[c.component] = ComposeImage(c.repository, c.image, c.version);
  }
  return out;
}

void Compare(const std::map<std::string, std::string>& before,
             const std::map<std::string, std::string>& after, std::vector<std::string>& out,
             bool values) {
  for (const auto& [key, value] : after) {
    auto it = before.find(key);
    if (it == before.end()) {
      out.push_back("+" + key + (values ? " " + value : ""));
    } else if (it->second != value) {
      out.push_back(values ? key + ": " + it->second + " -> " + value : "~" + key);
    }
  }
  for (const auto& [key, value] : before) {
    if (!after.count(key)) out.push_back("-" + key + (values ? " " + value : ""));
  }
}

// GPU Operator minors released between two (sorted by the catalog), neither end included.
std::vector<std::string> MinorsBetween(const std::string& from, const std::string& to) {
  const auto a = ParseGpuOperatorVersion(from.size() > 1 && from.find('.') == from.rfind('.')
                                             ? from + ".0"  // a channel "v25.10"
                                             : from);
  const auto b = ParseGpuOperatorVersion(to);
  std::vector<std::string> out;
  if (!a || !b) return out;
  std::set<std::string> seen;
  for (const GpuOperatorRelease& r : GpuOperatorReleases()) {
    const auto v = ParseGpuOperatorVersion(r.version);
    if (!v) continue;
    const bool after_a = v->year > a->year || (v->year == a->year && v->minor > a->minor);
    const bool before_b = v->year < b->year || (v->year == b->year && v->minor < b->minor);
    if (after_a && before_b && seen.insert(v->Channel()).second) out.push_back(v->Channel());
  }
  return out;
}

}  // namespace

std::vector<ReleaseMove> ReleaseMoves(const RenderedBundle& wanted,
                                      const std::map<std::string, std::string>& existing) {
  std::map<std::string, std::string> files;
  for (const RenderedFile& f : wanted.files)
    if (MayHoldPin(f.content)) files[f.file_name] = f.content;
  const std::map<std::string, Pin> before = Pins(existing);
  const std::map<std::string, Pin> after = Pins(files);
  std::vector<ReleaseMove> moves;
  for (const auto& [name, pin] : after) {
    auto old = before.find(name);
    if (old == before.end() || old->second.version.empty() ||
        old->second.version == pin.version)
      continue;
    ReleaseMove move;
    move.operator_name = name;
    move.file_name = pin.file;
    move.from = old->second.version;
    move.to = pin.version;
    if (name == "GPU Operator") {
      const auto a = FindGpuOperatorRelease(move.from);
      const auto b = FindGpuOperatorRelease(move.to);
      move.from_known = a.has_value();
      move.to_known = b.has_value();
      if (a && b) {
        Compare(Pulled(a->images, pin.driver_enabled), Pulled(b->images, pin.driver_enabled),
                move.images, true);
        Compare(a->crds, b->crds, move.crds, false);
        move.driver_from = a->driver;
        move.driver_to = b->driver;
      }
      move.driver_deployed = pin.driver_enabled;
      move.skipped = MinorsBetween(move.from, move.to);
    } else {
      const auto a = FindNetworkOperatorRelease(move.from);
      const auto b = FindNetworkOperatorRelease(move.to);
      move.from_known = a.has_value();
      move.to_known = b.has_value();
      if (a && b) {
        auto components = [](const NetworkOperatorRelease& r) {
          std::map<std::string, std::string> out = Pulled(r.images, false);
          for (const auto& [key, c] : std::map<std::string, const ComponentImage*>{
                   {"sriov_device_plugin", &r.sriov_device_plugin},
                   {"nv_ipam", &r.nv_ipam},
                   {"multus", &r.multus},
                   {"cni_plugins", &r.cni_plugins},
                   {"sriov_cni", &r.sriov_cni},
                   {"rdma_cni", &r.rdma_cni},
                   {"doca_driver", &r.doca_driver}})
            out[key] = ComposeImage(c->repository, c->image, c->version);
          return out;
        };
        Compare(components(*a), components(*b), move.images, true);
        Compare(a->crds, b->crds, move.crds, false);
      }
    }
    moves.push_back(std::move(move));
  }
  return moves;
}

void ReportSkippedMinors(const std::vector<ReleaseMove>& moves, DiagnosticSink& sink) {
  for (const ReleaseMove& m : moves) {
    if (m.skipped.empty()) continue;
    std::string skipped;
    for (const std::string& s : m.skipped) skipped += (skipped.empty() ? "" : ", ") + s;
    sink.Report(Diagnostic{
        Severity::kWarning, SourceLocation{m.file_name, 0, 0}, "", "diff.skipped-minor",
        m.operator_name + " " + m.from + " -> " + m.to + " skips " + skipped +
            ": NVIDIA supports upgrades within a major release or to the next one only "
            "(gpu-operator life-cycle-policy.rst)",
        "upgrade one step at a time: pin a release of " + m.skipped.front() +
            " first, sync, then the next"});
  }
}

std::string FormatReleaseMoves(const std::vector<ReleaseMove>& moves) {
  std::string out;
  for (const ReleaseMove& m : moves) {
    out += "\nRelease move: " + m.operator_name + " " + m.from + " -> " + m.to + " (" +
           m.file_name + ")\n";
    if (!m.from_known || !m.to_known) {
      out += "  the release catalog does not know " + (m.from_known ? m.to : m.from) +
             ": images, CRDs and the driver cannot be compared\n";
      continue;
    }
    out += "  images (" + std::to_string(m.images.size()) + "):" +
           (m.images.empty() ? " none change\n" : "\n");
    for (const std::string& line : m.images) out += "    " + line + "\n";
    out += "  CRDs:" + std::string(m.crds.empty() ? " none change\n" : "\n");
    for (const std::string& line : m.crds)
      out += "    " + line + (line[0] == '~' ? " (schema changed: the chart or OLM applies it)"
                                             : "") + "\n";
    if (m.operator_name == "GPU Operator") {
      if (m.DriverRolls()) {
        out += "  driver: " + m.driver_from + " -> " + m.driver_to +
               " [disruptive: the driver DaemonSet rolls on every GPU node, reloading the "
               "kernel module (pods evicted per driver.upgradePolicy)]\n";
      } else if (!m.driver_deployed) {
        out += "  driver: not deployed by the operator (driver.enabled false): no driver roll\n";
      } else {
        out += "  driver: " + m.driver_to + " unchanged: no driver roll\n";
      }
    }
  }
  return out;
}

json ReleaseMovesToJson(const std::vector<ReleaseMove>& moves) {
  json out = json::array();
  for (const ReleaseMove& m : moves) {
    out.push_back({{"operator", m.operator_name},
                   {"file", m.file_name},
                   {"from", m.from},
                   {"to", m.to},
                   {"known", m.from_known && m.to_known},
                   {"images", m.images},
                   {"crds", m.crds},
                   {"driver_rolls", m.DriverRolls()},
                   {"driver_from", m.driver_from},
                   {"driver_to", m.driver_to},
                   {"skipped_minors", m.skipped}});
  }
  return out;
}

}  // namespace hkim
