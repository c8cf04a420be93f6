#pragma once
// The Kubernetes API as hkim-health needs it: HTTPS to the API server with the pod's own
// service-account token, the cluster CA verified (name or IP of the server checked), one
// request per connection, every step under a deadline. Boost.Beast (header-only, Debian's
// libboost-dev) speaks HTTP/1.1 and OpenSSL (linked statically) does TLS, so the program needs
// nothing beyond glibc at load time. No kubectl.

#include <functional>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>

namespace hkim::health {

/// Where the API server is and how to prove who we are.
struct ApiEndpoint {
  std::string host;     ///< KUBERNETES_SERVICE_HOST (IP or DNS name; IPv6 without brackets)
  int port = 443;       ///< KUBERNETES_SERVICE_PORT
  std::string token;    ///< bearer token (service account)
  std::string ca_file;  ///< PEM bundle the server's certificate must chain to
};

/// Looks up an environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

/// The standard in-cluster location of the service-account token and CA.
inline constexpr const char* kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

/// Reads the in-cluster configuration: KUBERNETES_SERVICE_HOST/PORT from `env`, `token` and
/// `ca.crt` from `sa_dir`. Returns false with `*error` naming what is missing and why.
bool InClusterEndpoint(const EnvLookup& env, const std::string& sa_dir, ApiEndpoint* endpoint,
                       std::string* error);

/// One answer of the API server. `status` 0 means no HTTP answer at all (`error` says why:
/// connect, TLS verification, timeout).
struct ApiResponse {
  int status = 0;
  std::string body;
  std::string error;

  bool ok() const { return status >= 200 && status < 300; }
};

/// A client of one API server. Each call opens a TLS connection, sends one request and reads
/// the answer, within `timeout_s` in all.
class KubeClient {
 public:
  KubeClient(ApiEndpoint endpoint, double timeout_s);

  /// GET `path` (e.g. "/api/v1/nodes/worker-1").
  ApiResponse Get(const std::string& path) const;

  /// PATCH `path` with `body` of `content_type` (e.g. "application/merge-patch+json").
  ApiResponse Patch(const std::string& path, const std::string& body,
                    const std::string& content_type) const;

  /// POST `path` with the JSON `body` (create an object).
  ApiResponse Post(const std::string& path, const std::string& body) const;

  /// DELETE `path` (the object is removed with the server's default grace period).
  ApiResponse Delete(const std::string& path) const;

 private:
  ApiResponse Request(const std::string& method, const std::string& path, const std::string& body,
                      const std::string& content_type) const;

  ApiEndpoint endpoint_;
  double timeout_s_;
};

/// "<what>: HTTP <status>: <the server's message>" (or the transport error), with a hint for
/// 401 and, for 403, `forbidden_fix` (the rights the caller needs).
std::string DescribeFailure(const std::string& what, const ApiResponse& response,
                            const std::string& forbidden_fix);

/// GETs `path`, a list of `kind` (NodeList, PodList): its items in `*items`, or false with why in
/// `*error` (`forbidden_fix` names the rights a 403 lacks).
bool GetListItems(const KubeClient& client, const std::string& path, const std::string& kind,
                  const std::string& forbidden_fix, nlohmann::json* items, std::string* error);

/// Percent-encodes a query value (label selectors contain '=' and ',').
std::string QueryEscape(const std::string& value);

}  // namespace hkim::health
