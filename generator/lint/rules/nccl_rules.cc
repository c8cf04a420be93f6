// NCCL variables: cross-NIC on isolated rails, GPUDirect/DMA-BUF, NCCL_IB_HCA and
// NCCL_SOCKET_IFNAME lists.

#include <algorithm>
#include <cctype>
#include <set>

#include "lint/rules/rules.h"

namespace hkim {
namespace {

// The subnet a rail's addresses come from, "" when unknown.
std::string RailSubnet(const Rail& rail) {
  if (rail.ipam.type == IpamType::kNvIpam) return rail.ipam.pool ? rail.ipam.pool->subnet : "";
  return rail.ipam.range;
}

// Rails are isolated when each has its own subnet and nothing routes one rail's subnet through
// another (no gateway, no route covering a sibling's subnet): then a NIC can only reach the
// same rail on other nodes.
bool RailsAreIsolated(const Profile& p) {
  if (p.network.rails.size() < 2) return false;
  std::vector<Ipv4Network> subnets;
  for (const Rail& rail : p.network.rails) {
    auto net = ParseCidr(RailSubnet(rail));
    if (!net) return false;
    const std::string gateway = rail.ipam.type == IpamType::kNvIpam && rail.ipam.pool
                                    ? rail.ipam.pool->gateway
                                    : rail.ipam.gateway;
    if (!gateway.empty()) return false;
    for (const Ipv4Network& other : subnets) {
      if (other.Overlaps(*net)) return false;
    }
    subnets.push_back(*net);
  }
  for (size_t i = 0; i < p.network.rails.size(); ++i) {
    for (const std::string& route : p.network.rails[i].ipam.routes) {
      auto dst = ParseCidr(route);
      if (!dst) continue;
      for (size_t j = 0; j < subnets.size(); ++j) {
        if (j != i && dst->prefix <= subnets[j].prefix && dst->Overlaps(subnets[j])) return false;
      }
    }
  }
  return true;
}

void CheckCrossNicIsolated(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (!p.UsesRails() || !RailsAreIsolated(p)) return;
  std::string value = std::to_string(p.nccl.cross_nic);
  std::string pointer = p.nccl.pointer + "/cross_nic";
  if (auto env = ExplicitEnv(p, "NCCL_CROSS_NIC")) {
    value = env->value;
    pointer = env->pointer;
  }
  if (value == "0") return;
  std::string subnets;
  for (const Rail& rail : p.network.rails) {
    subnets += (subnets.empty() ? "" : ", ") + rail.name + " " + RailSubnet(rail);
  }
  r.Report(pointer,
           "NCCL_CROSS_NIC is " + value + ", but the " + std::to_string(p.network.rails.size()) +
               " rails are isolated subnets (" + subnets +
               ") with no route between them: a ring that crosses NICs connects to an address "
               "it cannot reach and the job hangs",
           "set nccl.cross_nic: 0 (each GPU keeps to its own rail on every node), or route the "
           "rails to each other");
}

void CheckGpudirectDmabuf(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (p.workload.mode != WorkloadMode::kRdma) return;
  const std::string mode = ToString(p.nccl.gpudirect);
  if (auto env = ExplicitEnv(p, "NCCL_DMABUF_ENABLE")) {
    const bool off = env->value == "0";
    const bool on = env->value == "1";
    if (off && p.nccl.gpudirect != GpuDirect::kNvidiaPeermem) {
      r.Report(env->pointer,
               "NCCL_DMABUF_ENABLE=0 turns DMA-BUF off while nccl.gpudirect is " + mode +
                   ": on nodes without the nvidia_peermem module GPU data then goes through host "
                   "memory (35 instead of 194 GB/s on Barcelona)",
               "remove NCCL_DMABUF_ENABLE and choose nccl.gpudirect: dmabuf, or nvidia-peermem "
               "only when every node loads nvidia_peermem");
      return;
    }
    if (on && p.nccl.gpudirect == GpuDirect::kNvidiaPeermem) {
      r.Report(env->pointer,
               "NCCL_DMABUF_ENABLE=1 contradicts nccl.gpudirect: nvidia-peermem (which renders "
               "NCCL_DMABUF_ENABLE=0)",
               "remove NCCL_DMABUF_ENABLE and set nccl.gpudirect to the path the nodes support");
      return;
    }
  }
  std::string level = p.nccl.gdr_level;
  std::string level_pointer = p.nccl.pointer + "/gdr_level";
  if (auto env = ExplicitEnv(p, "NCCL_NET_GDR_LEVEL")) {
    level = env->value;
    level_pointer = env->pointer;
  }
  if ((level == "LOC" || level == "0") && p.nccl.gpudirect != GpuDirect::kAuto) {
    r.Report(level_pointer,
             "NCCL_NET_GDR_LEVEL=" + level + " disables GPUDirect RDMA, but nccl.gpudirect is " +
                 mode + ": the " + mode + " path is never used",
             "use gdr_level SYS (or PXB), or set nccl.gpudirect: auto if GPUDirect is meant to be "
             "off");
  }
}

// The names NCCL could meet for a variable, for judging a list's reach.
struct Candidates {
  std::vector<std::string> names;
  bool exhaustive = false;  // names are all there is (pod interfaces), not a sample
};

Candidates HcaCandidates(const Profile& p) {
  std::set<std::string> names;
  int highest = 17;  // mlx5 numbering on the seeds' nodes runs past mlx5_17 (OKE: mlx5_33)
  auto add = [&](const std::string& name) {
    names.insert(name);
    if (name.rfind("mlx5_", 0) == 0 && name.size() > 5 &&
        std::all_of(name.begin() + 5, name.end(), ::isdigit)) {
      highest = std::max(highest, std::stoi(name.substr(5)));
    }
  };
  for (const Rail& rail : p.network.rails) {
    if (!rail.rdma_device_hint.empty()) add(rail.rdma_device_hint);
  }
  for (const NumaNode& numa : p.node_shape.topology.numa_nodes) {
    for (const PcieSwitch& sw : numa.pcie_switches) {
      for (const TopologyNic& nic : sw.nics) {
        for (const std::string& dev : nic.rdma_devices) add(dev);
      }
    }
  }
  for (int i = 0; i <= highest; ++i) names.insert("mlx5_" + std::to_string(i));
  return {{names.begin(), names.end()}, false};
}

Candidates IfnameCandidates(const Profile& p) {
  Candidates c;
  c.exhaustive = true;
  c.names.push_back("eth0");
  const int vfs = RailAttachmentsPerPod(p);
  for (int i = 1; i <= vfs; ++i) c.names.push_back("net" + std::to_string(i));
  return c;
}

struct ListSetting {
  std::string variable;
  std::string value;
  std::string pointer;
  Candidates candidates;
};

std::vector<ListSetting> ListSettings(const Profile& p) {
  std::vector<ListSetting> out;
  if (auto env = ExplicitEnv(p, "NCCL_IB_HCA"); env && p.workload.mode == WorkloadMode::kRdma) {
    out.push_back({"NCCL_IB_HCA", env->value, env->pointer, HcaCandidates(p)});
  }
  if (auto env = ExplicitEnv(p, "NCCL_SOCKET_IFNAME")) {
    out.push_back({"NCCL_SOCKET_IFNAME", env->value, env->pointer, IfnameCandidates(p)});
  } else if (!p.nccl.socket_ifname.empty()) {
    out.push_back({"NCCL_SOCKET_IFNAME", p.nccl.socket_ifname, p.nccl.pointer + "/socket_ifname",
                   IfnameCandidates(p)});
  }
  return out;
}

// Whether the list leaves NCCL nothing to use (the "^mlx5_" mistake, or a pinned name the pod
// does not have).
std::string SelectsNothing(const ListSetting& s, const NcclNameList& list) {
  if (list.names.empty()) return "";
  std::vector<std::string> kept;
  for (const std::string& name : s.candidates.names) {
    if (list.Matches(name) != list.exclude) kept.push_back(name);
  }
  if (list.exclude) {
    const bool hca = s.variable == "NCCL_IB_HCA";
    // Device names are prefixes for NCCL: "^mlx5" drops every mlx5 device there may be.
    bool drops_family =
        hca && std::any_of(list.names.begin(), list.names.end(), [&](const std::string& n) {
          return !list.exact && std::string("mlx5_").rfind(n, 0) == 0;
        });
    if (kept.empty() || drops_family) {
      return s.variable + "=" + s.value + " excludes every " + (hca ? "HCA" : "interface") +
             ": a leading '^' means exclude, and each name is a prefix (not a regular "
             "expression), so NCCL is left with nothing to use";
    }
    return "";
  }
  if (kept.empty() && s.candidates.exhaustive) {
    std::string names;
    for (const std::string& n : s.candidates.names) names += (names.empty() ? "" : ", ") + n;
    return s.variable + "=" + s.value + " matches none of the pod's interfaces (" + names +
           "): NCCL stops with \"No IP interface found\"";
  }
  return "";
}

void CheckListExcludesAll(const LintContext& c, LintReporter& r) {
  for (const ListSetting& s : ListSettings(c.profile)) {
    std::string problem = SelectsNothing(s, ParseNcclNameList(s.value));
    if (problem.empty()) continue;
    r.Report(s.pointer, problem,
             s.variable == "NCCL_IB_HCA"
                 ? "remove NCCL_IB_HCA (hkim-wrapper sets it to the pod's devices), or list the "
                   "devices to use with '=', e.g. =mlx5_6,mlx5_7"
                 : "remove it (hkim-wrapper picks an interface that is up), or name one the pod "
                   "has, e.g. eth0 or =net1,net2");
  }
}

void CheckListPrefix(const LintContext& c, LintReporter& r) {
  for (const ListSetting& s : ListSettings(c.profile)) {
    const NcclNameList list = ParseNcclNameList(s.value);
    if (list.exact || !SelectsNothing(s, list).empty()) continue;
    for (const std::string& token : list.names) {
      if (token.empty() || !std::isdigit(static_cast<unsigned char>(token.back()))) continue;
      std::vector<std::string> extra;
      for (const std::string& name : s.candidates.names) {
        if (name != token && name.rfind(token, 0) == 0 &&
            std::all_of(name.begin() + static_cast<long>(token.size()), name.end(), ::isdigit)) {
          extra.push_back(name);
        }
      }
      if (extra.empty()) continue;
      std::string names;
      for (const std::string& n : extra) names += (names.empty() ? "" : ", ") + n;
      std::string exact = s.value;
      exact.insert(list.exclude ? 1 : 0, "=");
      r.Report(s.pointer,
               s.variable + "=" + s.value + ": '" + token + "' is a prefix, so it also " +
                   (list.exclude ? "excludes " : "selects ") + names,
               "write the exact form " + s.variable + "=" + exact);
      break;  // one finding per variable
    }
  }
}

void CheckHcaRails(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (!p.UsesRails()) return;
  std::vector<std::string> pinned;
  std::string pointer;
  if (!p.nccl.ib_hca.empty()) {
    for (const std::string& entry : p.nccl.ib_hca)
      pinned.push_back(entry.substr(0, entry.find(':')));
    pointer = p.nccl.pointer + "/ib_hca";
  } else if (auto env = ExplicitEnv(p, "NCCL_IB_HCA")) {
    NcclNameList list = ParseNcclNameList(env->value);
    if (!list.exact || list.exclude) return;  // prefix and exclude forms: the list rules
    pinned = list.names;
    pointer = env->pointer;
  } else {
    return;
  }
  const int vfs = RailAttachmentsPerPod(p);
  std::vector<std::string> hints;
  for (const Rail& rail : p.network.rails) {
    if (!rail.rdma_device_hint.empty()) hints.push_back(rail.rdma_device_hint);
  }
  std::string listed;
  for (const std::string& n : pinned) listed += (listed.empty() ? "" : ",") + n;
  if (static_cast<int>(pinned.size()) != vfs) {
    r.Report(pointer,
             "NCCL_IB_HCA is pinned to " + std::to_string(pinned.size()) + " device(s) (" + listed +
                 "), but each pod gets " + std::to_string(vfs) +
                 " rail devices: NCCL uses only the listed ones that exist (a stale 4-name list "
                 "cut Barcelona from 94.8 to 52 GB/s)",
             "remove nccl.ib_hca so hkim-wrapper lists the devices each pod really gets, or list "
             "exactly " +
                 std::to_string(vfs));
    return;
  }
  if (hints.size() == p.network.rails.size() && !hints.empty()) {
    std::vector<std::string> missing;
    for (const std::string& hint : hints) {
      if (std::find(pinned.begin(), pinned.end(), hint) == pinned.end()) missing.push_back(hint);
    }
    if (!missing.empty()) {
      std::string names;
      for (const std::string& n : missing) names += (names.empty() ? "" : ", ") + n;
      r.Report(pointer,
               "NCCL_IB_HCA is pinned to " + listed + ", but the rails' rdma_device_hint name " +
                   names + ": the pinned list is stale and NCCL skips those rails",
               "remove nccl.ib_hca (hkim-wrapper detects the devices per pod), or make it match "
               "the rails' devices");
    }
  }
}

}  // namespace

std::vector<LintRule> NcclLintRules() {
  return {
      {"lint.cross-nic-isolated", Severity::kError,
       "isolated per-rail subnets need NCCL_CROSS_NIC=0", CheckCrossNicIsolated},
      {"lint.gpudirect-dmabuf", Severity::kError,
       "nccl.gpudirect agrees with NCCL_DMABUF_ENABLE and NCCL_NET_GDR_LEVEL",
       CheckGpudirectDmabuf},
      {"lint.nccl-list-excludes-all", Severity::kError,
       "NCCL_IB_HCA / NCCL_SOCKET_IFNAME leave NCCL something to use (\"^mlx5_\" excludes every "
       "HCA)",
       CheckListExcludesAll},
      {"lint.nccl-list-prefix", Severity::kWarning,
       "NCCL_IB_HCA / NCCL_SOCKET_IFNAME names do not prefix-match more devices than meant "
       "(mlx5_1 also matches mlx5_10..)",
       CheckListPrefix},
      {"lint.nccl-env-name", Severity::kWarning,
       "every NCCL_* name in nccl.extra_env is one NCCL reads (releases 2.18-2.30; names "
       "the closest)",
       CheckNcclEnvNames},
      {"lint.rail-mtu-mismatch", Severity::kWarning,
       "the rails of a profile share one MTU (NCCL spreads a transfer over every rail)",
       CheckRailMtus},
      {"lint.hca-rails", Severity::kError,
       "a pinned NCCL_IB_HCA lists one device per rail attachment, matching the rails' devices",
       CheckHcaRails},
  };
}

}  // namespace hkim
