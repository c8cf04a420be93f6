// Placeholders that fail late: a Git repository or a wrapper image that the
// profile names but nothing can serve. Schema and render accept both; the failure shows only on
// the cluster (Argo CD's "repository not found", the kubelet's ImagePullBackOff), so lint names
// it before anything is synced.
//
// The rule for "placeholder", so that it stays predictable:
//  - a host reserved for examples (RFC 2606 / RFC 6761): a label `example` (example.com,
//    git.example.com as `hkimgen init` writes, registry.example.internal as the README's mirror
//    example), or the top-level domains example, invalid, test, localhost, or (for the
//    repository, not a registry) the host localhost;
//  - text left for a person to fill in: `<...>`, CHANGE-ME / CHANGEME / CHANGE_ME, YOUR-... /
//    YOUR_..., PLACEHOLDER (any case);
//  - for gitops.repo_url, an owner path segment `example` (github.com/example/...).
// Not flagged: the shipped profiles' github.com/hkim/hkimgen-bundles.git and
// quay.io/hkim/hkim-wrapper:<version>, the project's own publishing places (docs/wrapper-image.md,
// "Publishing and mirroring the wrapper image"); shipped profiles render without warnings
// (bundle_test).

#include <algorithm>
#include <cctype>

#include "model/wrapper_image.h"
#include "lint/rules/rules.h"

namespace hkim {
namespace {

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at; (at = text.find(separator, start)) != std::string::npos; start = at + 1)
    parts.push_back(text.substr(start, at - start));
  parts.push_back(text.substr(start));
  return parts;
}

// Why `host` is reserved for examples, or "" when it is not. localhost only counts where it
// cannot be meant (Argo CD's repo server); a node-local registry at localhost:5000 is real.
std::string ExampleHost(const std::string& host, bool localhost_counts) {
  const std::string h = Lower(host);
  if (h.empty()) return "";
  if (h == "localhost") return localhost_counts ? "Argo CD's repo server is not your host" : "";
  const std::vector<std::string> labels = Split(h, '.');
  for (const char* tld : {"example", "invalid", "test", "localhost"})
    if (labels.size() > 1 && labels.back() == tld && (localhost_counts || labels.back() != "localhost"))
      return std::string("top-level domain ." + labels.back() + " is reserved for examples");
  for (const std::string& label : labels)
    if (label == "example") return "host " + h + " is reserved for examples";
  return "";
}

// Why `text` reads as left for a person to fill in, or "".
std::string FillIn(const std::string& text) {
  if (text.find('<') != std::string::npos || text.find('>') != std::string::npos)
    return "it contains <...>";
  const std::string t = Lower(text);
  for (const char* word : {"change-me", "changeme", "change_me", "your-", "your_", "placeholder"})
    if (t.find(word) != std::string::npos) return std::string("it contains '") + word + "'";
  return "";
}

struct UrlParts {
  std::string host;
  std::string path;  ///< after the host, without the leading '/' or ':'
};

// https://host[:port]/path, ssh://[user@]host[:port]/path, git@host:path.
UrlParts SplitRepoUrl(const std::string& url) {
  UrlParts parts;
  std::string rest = url;
  const size_t scheme = rest.find("://");
  if (scheme != std::string::npos) {
    rest = rest.substr(scheme + 3);
    const size_t slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    parts.path = slash == std::string::npos ? "" : rest.substr(slash + 1);
    if (const size_t at = authority.rfind('@'); at != std::string::npos)
      authority = authority.substr(at + 1);
    parts.host = authority.substr(0, authority.find(':'));
  } else {
    if (const size_t at = rest.find('@'); at != std::string::npos) rest = rest.substr(at + 1);
    const size_t colon = rest.find(':');
    parts.host = rest.substr(0, colon);
    parts.path = colon == std::string::npos ? "" : rest.substr(colon + 1);
  }
  return parts;
}

std::string RepoUrlPlaceholder(const std::string& url) {
  if (std::string why = FillIn(url); !why.empty()) return why;
  const UrlParts parts = SplitRepoUrl(url);
  if (std::string why = ExampleHost(parts.host, true); !why.empty()) return why;
  if (Lower(Split(parts.path, '/').front()) == "example")
    return "owner 'example' on " + parts.host + " is a placeholder";
  return "";
}

void CheckRepoUrlPlaceholder(const LintContext& c, LintReporter& r) {
  const GitOps& g = c.profile.gitops;
  const std::string why = RepoUrlPlaceholder(g.repo_url);
  if (why.empty()) return;
  r.Report(g.pointer + "/repo_url",
           "gitops.repo_url '" + g.repo_url + "' is a placeholder (" + why +
               "): nothing publishes the bundle there, so Argo CD cannot fetch it; the "
               "Application reports ComparisonError \"repository not found\" (or an "
               "authentication error), its sync and health status stay Unknown, and nothing "
               "is applied",
           "push the rendered bundle (gitops.path '" + g.path +
               "') to a Git repository Argo CD can read and set gitops.repo_url to it (for a "
               "private repository also register its credentials: argocd repo add URL)");
}

// The registry host of an image reference: its first path component when that looks like a
// host (has '.' or ':' or is localhost); Docker Hub otherwise.
std::string RegistryHost(const std::string& image) {
  const size_t slash = image.find('/');
  if (slash == std::string::npos) return "";
  const std::string first = image.substr(0, slash);
  if (first.find('.') == std::string::npos && first.find(':') == std::string::npos &&
      first != "localhost") {
    return "";
  }
  return first.substr(0, first.find(':'));
}

void CheckWrapperImageUnpublished(const LintContext& c, LintReporter& r) {
  const Wrapper& w = c.profile.wrapper;
  std::string why = FillIn(w.image);
  if (why.empty()) why = ExampleHost(RegistryHost(w.image), false);
  if (why.empty()) return;
  r.Report(w.pointer + "/image",
           "wrapper.image '" + w.image + "' is a placeholder (" + why +
               "): the kubelet cannot pull it, the init container install-hkim-wrapper fails "
               "with ErrImagePull then ImagePullBackOff, and every pod of the bundle "
               "(StatefulSet, health CronJob) stays Pending in "
               "Init:ImagePullBackOff",
           "build the image (bash scripts/build-image.sh prints its digest), push it to a "
           "registry the nodes can pull from (skopeo copy --preserve-digests oci:build/image:" +
               std::string(WrapperImageVersion()) + " docker://REGISTRY/hkim-wrapper:" +
               WrapperImageVersion() +
               "), then set wrapper.image to that reference and wrapper.digest: sha256:<64 hex> "
               "(or render --wrapper-digest); docs/wrapper-image.md, \"Publishing and mirroring the "
               "wrapper image\"");
}

}  // namespace

std::vector<LintRule> PlaceholderLintRules() {
  return {
      {"lint.repo-url-placeholder", Severity::kWarning,
       "gitops.repo_url is a repository that can exist (not an example host, <...>, CHANGE-ME "
       "or an `example` owner)",
       CheckRepoUrlPlaceholder},
      {"lint.wrapper-image-unpublished", Severity::kWarning,
       "wrapper.image is an image that can exist (not an example registry, <...> or CHANGE-ME)",
       CheckWrapperImageUnpublished},
  };
}

}  // namespace hkim
