#include "model/image_mirror.h"

#include <set>

#include "model/checks.h"
#include "model/model.h"
#include "model/operator_catalog.h"
#include "model/operators.h"

namespace hkim {
namespace {

bool Lower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// A path component: lower-case letters and digits, separated by one of . _ __ or dashes.
bool PathComponent(const std::string& text) {
  if (text.empty() || !Lower(text.front()) || !Lower(text.back())) return false;
  for (char c : text) {
    if (!Lower(c) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

bool Tag(const std::string& text) {
  if (text.empty() || text.size() > 128 || text.front() == '.' || text.front() == '-') return false;
  for (char c : text) {
    const bool word = Lower(c) || (c >= 'A' && c <= 'Z') || c == '_';
    if (!word && c != '.' && c != '-') return false;
  }
  return true;
}

bool Digest(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return false;
  for (size_t i = colon + 1; i < text.size(); ++i) {
    const char c = text[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string Joined(const std::string& mirror, const ImageReference& ref) {
  std::string out = mirror + "/" + ref.path;
  if (!ref.tag.empty()) out += ":" + ref.tag;
  if (!ref.digest.empty()) out += "@" + ref.digest;
  return out;
}

}  // namespace

std::optional<ImageReference> ParseImageReference(const std::string& reference) {
  ImageReference ref;
  std::string name = reference;
  const size_t at = name.find('@');
  if (at != std::string::npos) {
    ref.digest = name.substr(at + 1);
    name = name.substr(0, at);
    if (!Digest(ref.digest)) return std::nullopt;
  }
  const size_t slash = name.rfind('/');
  const size_t colon = name.rfind(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
    ref.tag = name.substr(colon + 1);
    name = name.substr(0, colon);
    if (!Tag(ref.tag)) return std::nullopt;
  }
  const size_t first = name.find('/');
  const std::string head = name.substr(0, first);
  if (first != std::string::npos &&
      (head.find_first_of(".:") != std::string::npos || head == "localhost")) {
    ref.registry = head;
    ref.path = name.substr(first + 1);
  } else {
    ref.registry = "docker.io";
    ref.path = first == std::string::npos ? "library/" + name : name;
  }
  size_t start = 0;
  while (true) {
    const size_t end = ref.path.find('/', start);
    if (!PathComponent(ref.path.substr(start, end - start))) return std::nullopt;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return ref;
}

std::optional<std::string> MirroredImage(const std::string& mirror, const std::string& reference) {
  if (mirror.empty() || reference.rfind(mirror + "/", 0) == 0) return reference;
  std::optional<ImageReference> ref = ParseImageReference(reference);
  if (!ref) return std::nullopt;
  return Joined(mirror, *ref);
}

std::optional<std::string> MirroredRepository(const std::string& mirror,
                                              const std::string& repository) {
  if (repository.find_first_of(
          ":@", repository.find('/') == std::string::npos ? 0 : repository.find('/')) !=
      std::string::npos) {
    return std::nullopt;  // a repository holds no tag or digest
  }
  return MirroredImage(mirror, repository);
}

std::vector<std::string> OperatorImageRegistries(const Operators& operators) {
  std::set<std::string> registries;
  for (const OperatorFacts& facts : OperatorCatalog()) {
    const OperatorCommon* op = facts.in(operators);
    if (op && op->managed()) registries.insert(facts.olm_registries.begin(), facts.olm_registries.end());
  }
  return {registries.begin(), registries.end()};
}

int ApplyImageMirror(Profile& profile, const LoadedProfile& loaded, DiagnosticSink& sink) {
  const ImageMirror& m = profile.images;
  if (!m.enabled()) return 0;
  int errors = 0;
  const std::string mirror_pointer = m.pointer + "/mirror";
  auto where = [&loaded, &mirror_pointer](const std::string& pointer) {
    return loaded.locations.Find(pointer).known() ? pointer : mirror_pointer;
  };
  auto image = [&](std::string& value, const std::string& pointer, bool repository) {
    if (value.empty()) return;
    std::optional<std::string> mirrored =
        repository ? MirroredRepository(m.mirror, value) : MirroredImage(m.mirror, value);
    if (mirrored) {
      value = *mirrored;
      return;
    }
    ++errors;
    ReportModelError(loaded, sink, where(pointer), "model.image-mirror",
                     "the image reference '" + value + "' (" + pointer +
                         ") cannot be rewritten to the mirror " + m.mirror,
                     "write it as registry/repository:tag in lower case (e.g. docker.io/library/"
                     "oraclelinux:9), or as a digest @sha256:<hex>");
  };
  image(profile.workload.image, "/workload/image", false);
  image(profile.wrapper.image, "/wrapper/image", false);
  if (profile.network.sriov_device_plugin)
    image(profile.network.sriov_device_plugin->repository,
          "/network/sriov_device_plugin/repository", true);
  if (profile.network.nv_ipam)
    image(profile.network.nv_ipam->repository, "/network/nv_ipam/repository", true);
  if (!profile.operators) return errors;
  Operators& ops = *profile.operators;
  if (ops.vf_config) image(ops.vf_config->image, ops.vf_config->pointer + "/image", false);
  if (ops.nfd) image(ops.nfd->operand_image, ops.nfd->pointer + "/operand_image", false);

  auto chart = [&](OperatorCommon& op) {
    if (!op.managed() || op.chart.empty() || profile.IsOpenShift()) return;
    if (m.chart_mirror.empty()) {
      ++errors;
      ReportModelError(loaded, sink, mirror_pointer, "model.image-mirror",
                       "images.mirror is set, but the chart " + op.chart + " (" + op.pointer +
                           ") would still come from " + op.repo_url,
                       "set images.chart_mirror to the Helm repository that holds the mirrored "
                       "charts (oc-mirror's helm section copies them)");
      return;
    }
    op.repo_url = m.chart_mirror;
  };
  auto source = [&](OperatorCommon& op) {
    if (!op.managed() || !profile.IsOpenShift() || op.package.empty()) return;
    auto it = m.catalog_sources.find(op.source);
    if (it != m.catalog_sources.end()) {
      op.source = it->second;
      return;
    }
    bool mirrored = false;  // already a mirrored source (named directly in the profile)
    for (const auto& [from, to] : m.catalog_sources) mirrored |= to == op.source;
    if (mirrored) return;
    ++errors;
    ReportModelError(loaded, sink, where(op.pointer + "/source"), "model.image-mirror",
                     "images.mirror is set, but " + op.package + " (" + op.pointer +
                         ") is still installed from the catalog source '" + op.source + "'",
                     "map it in images.catalog_sources: {" + op.source +
                         ": <the CatalogSource oc-mirror generated, e.g. cs-redhat-operator-"
                         "index-v4-19>}");
  };
  // Each operator's OLM source (OpenShift) or chart repository (OKE/Kubernetes), in the
  // catalogue's order; an operator without a package or chart (vf_config) has neither.
  for (const OperatorFacts& facts : OperatorCatalog()) {
    if (OperatorCommon* op = facts.in_mutable(ops)) {
      source(*op);
      chart(*op);
    }
  }
  return errors;
}

}  // namespace hkim
