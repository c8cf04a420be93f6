#include "check_config.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <type_traits>
#include <utility>

#include "size_range.h"

namespace hkim::nccl_check {
namespace {

std::optional<double> ParseDouble(const std::string& text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<int> ParseInt(const std::string& text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

void Bad(std::vector<ConfigError>& errors, const std::string& name, const std::string& value,
         const std::string& what, const std::string& fix) {
  errors.push_back({name, name + "='" + value + "' " + what, fix});
}

}  // namespace

std::string_view ScopeName(Scope scope) { return scope == Scope::kJob ? "job" : "local"; }

std::string_view PolicyName(Policy policy) {
  switch (policy) {
    case Policy::kOff:
      return "off";
    case Policy::kWarn:
      return "warn";
    case Policy::kFail:
      break;
  }
  return "fail";
}

std::string_view RequiredTransportName(RequiredTransport transport) {
  switch (transport) {
    case RequiredTransport::kNetIb:
      return "NET/IB";
    case RequiredTransport::kNetIbGdr:
      return "NET/IB/GDRDMA";
    case RequiredTransport::kNetSocket:
      return "NET/Socket";
    case RequiredTransport::kP2P:
      return "P2P";
    case RequiredTransport::kAny:
      break;
  }
  return "any";
}

std::optional<int> PodOrdinal(const std::string& pod_name) {
  const std::size_t dash = pod_name.rfind('-');
  if (dash == std::string::npos || dash + 1 >= pod_name.size()) return std::nullopt;
  const std::string suffix = pod_name.substr(dash + 1);
  if (!std::all_of(suffix.begin(), suffix.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return ParseInt(suffix);
}

std::string PodSet(const std::string& pod_name) {
  if (!PodOrdinal(pod_name)) return pod_name;
  return pod_name.substr(0, pod_name.rfind('-'));
}

int IterationsFor(std::uint64_t bytes) {
  constexpr std::uint64_t kTrafficBytes = std::uint64_t{4} << 30;
  const std::uint64_t by_size = bytes == 0 ? 100 : kTrafficBytes / bytes;
  return static_cast<int>(std::clamp<std::uint64_t>(by_size, 10, 100));
}

int PlanIterations(std::uint64_t bytes, std::uint64_t previous_bytes,
                   double previous_seconds_per_call, double budget_s) {
  const int by_size = IterationsFor(bytes);
  if (previous_bytes == 0 || previous_seconds_per_call <= 0 || budget_s <= 0) return by_size;
  const double predicted =
      previous_seconds_per_call * static_cast<double>(bytes) / static_cast<double>(previous_bytes);
  const double fitting = std::floor(budget_s / predicted);
  if (fitting >= by_size) return by_size;
  return std::max(1, static_cast<int>(fitting));
}

namespace {

// Reads one variable: parse, store when valid, else one error naming the value and the fix.
struct VariableReader {
  const EnvLookup& env;
  std::vector<ConfigError>& errors;

  template <typename Parse>
  void operator()(const char* name, Parse parse, const char* what, const char* fix) const {
    if (const auto text = env(name)) {
      if (!parse(*text)) Bad(errors, name, *text, what, fix);
    }
  }
};

// A parser that stores the value named `text` among `choices` in `field`; false for any other.
template <typename Field>
auto ChoiceParser(Field& field, std::initializer_list<std::pair<std::string_view, Field>> choices) {
  return [&field, options = std::vector(choices)](const std::string& text) {
    for (const auto& [name, value] : options) {
      if (text == name) {
        field = value;
        return true;
      }
    }
    return false;
  };
}

// A parser that stores a positive byte count (K, M, G allowed) in `field`.
auto ByteCountParser(std::uint64_t& field) {
  return [&field](const std::string& text) {
    const auto value = ParseByteCount(text);
    if (!value || *value == 0) return false;
    field = *value;
    return true;
  };
}

// What the check demands: its mode, scope, bandwidth floor, sizes and transport.
void ReadCheckSettings(const EnvLookup& env, CheckConfig& config,
                       std::vector<ConfigError>& errors) {
  const VariableReader read{env, errors};
  const char* const kBytesFix =
      "give bytes as an integer, optionally with K, M or G (binary), e.g. 1073741824 or 1G";

  read("HKIM_NCCL_CHECK",
       ChoiceParser(config.policy,
                    {{"off", Policy::kOff}, {"warn", Policy::kWarn}, {"fail", Policy::kFail}}),
       "is not one of off, warn, fail", "set healthCheck mode in the profile to off, warn or fail");
  read("HKIM_NCCL_CHECK_SCOPE",
       ChoiceParser(config.scope, {{"local", Scope::kLocal}, {"job", Scope::kJob}}),
       "is not one of local, job",
       "use local (this pod's GPUs) or job (every pod of the StatefulSet)");
  read(
      "HKIM_NCCL_CHECK_MIN_BUSBW_GBPS",
      [&](const std::string& text) {
        const auto value = ParseDouble(text);
        if (!value || *value < 0) return false;
        config.min_busbw_gbps = *value;
        return true;
      },
      "is not a non-negative number", "give the minimum bus bandwidth in GB/s (1e9 B/s), e.g. 150");
  read("HKIM_NCCL_CHECK_AT_BYTES", ByteCountParser(config.at_bytes), "is not a positive byte count",
       kBytesFix);
  read("HKIM_NCCL_CHECK_MAX_BYTES", ByteCountParser(config.max_bytes),
       "is not a positive byte count", kBytesFix);
  read("HKIM_NCCL_CHECK_TRANSPORT",
       ChoiceParser(config.transport, {{"any", RequiredTransport::kAny},
                                       {"NET/IB", RequiredTransport::kNetIb},
                                       {"NET/IB/GDRDMA", RequiredTransport::kNetIbGdr},
                                       {"NET/Socket", RequiredTransport::kNetSocket},
                                       {"P2P", RequiredTransport::kP2P}}),
       "is not one of any, NET/IB, NET/IB/GDRDMA, NET/Socket, P2P",
       "name the transport NCCL must use, spelled as NCCL logs it");
}

// Where this pod sits in the job (scope job): the StatefulSet's size, this pod's name, and how
// to reach ordinal 0 for the rendezvous.
void ReadJobSettings(const EnvLookup& env, CheckConfig& config, std::vector<ConfigError>& errors) {
  const VariableReader read{env, errors};
  read(
      "HKIM_REPLICAS",
      [&](const std::string& text) {
        const auto value = ParseInt(text);
        if (!value || *value < 1) return false;
        config.replicas = *value;
        return true;
      },
      "is not a positive integer", "set it to the StatefulSet's replicas");
  if (auto v = env("HKIM_POD_NAME")) config.pod_name = *v;
  if (auto v = env("MASTER_ADDR")) config.master_addr = *v;
  read(
      "HKIM_RENDEZVOUS_PORT",
      [&](const std::string& text) {
        const auto value = ParseInt(text);
        if (!value || *value < 1 || *value > 65535) return false;
        config.rendezvous_port = *value;
        return true;
      },
      "is not a TCP port (1-65535)", "leave it unset for the default 29650 or give a free port");
}

}  // namespace

void ReadEnvironment(const EnvLookup& env, CheckConfig& config, std::vector<ConfigError>& errors) {
  // Errors come out in this order: the check's settings, then the job's.
  ReadCheckSettings(env, config, errors);
  ReadJobSettings(env, config, errors);
}

void FinishConfig(CheckConfig& config, std::vector<ConfigError>& errors) {
  if (config.min_bytes == 0 || config.min_bytes > config.max_bytes) {
    errors.push_back({"--min-bytes",
                      "the smallest size (" + std::to_string(config.min_bytes) +
                          " B) is zero or above the largest (" + std::to_string(config.max_bytes) +
                          " B)",
                      "make HKIM_NCCL_CHECK_MAX_BYTES at least --min-bytes"});
  }
  if (config.at_bytes == 0) config.at_bytes = config.max_bytes;
  if (config.at_bytes > config.max_bytes) {
    errors.push_back({"HKIM_NCCL_CHECK_AT_BYTES",
                      "HKIM_NCCL_CHECK_AT_BYTES=" + std::to_string(config.at_bytes) +
                          " is above HKIM_NCCL_CHECK_MAX_BYTES=" +
                          std::to_string(config.max_bytes) + ", so it would never be measured",
                      "lower the threshold size or raise the largest size tried"});
  }
  if (config.scope != Scope::kJob) return;
  if (config.pod_name.empty()) {
    errors.push_back({"HKIM_POD_NAME", "HKIM_POD_NAME is not set; job scope needs the pod's name",
                      "set it from the downward API (fieldRef metadata.name)"});
  } else if (const auto ordinal = PodOrdinal(config.pod_name)) {
    config.ordinal = *ordinal;
    if (config.ordinal >= config.replicas) {
      errors.push_back({"HKIM_POD_NAME",
                        "pod ordinal " + std::to_string(config.ordinal) + " (from '" +
                            config.pod_name +
                            "') is not below HKIM_REPLICAS=" + std::to_string(config.replicas),
                        "set HKIM_REPLICAS to the StatefulSet's replicas"});
    }
  } else {
    errors.push_back({"HKIM_POD_NAME",
                      "HKIM_POD_NAME='" + config.pod_name + "' has no numeric ordinal suffix",
                      "job scope runs in StatefulSet pods, named <statefulset>-<ordinal>"});
  }
  if (config.replicas > 1 && config.master_addr.empty()) {
    errors.push_back(
        {"MASTER_ADDR", "MASTER_ADDR is not set; job scope needs rank 0's address",
         "set it to <statefulset>-0.<headless-service>.<namespace>.svc.cluster.local"});
  }
}

std::string FormatConfigError(const ConfigError& error) {
  return "hkim-nccl-check: error: " + error.message + "\nfix: " + error.fix + "\n";
}

}  // namespace hkim::nccl_check
