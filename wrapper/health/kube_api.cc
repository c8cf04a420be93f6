#include "kube_api.h"

// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/read_file.h"

namespace hkim::health {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

std::string Trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.pop_back();
  return text;
}

// One request on one connection; `response` and `error` are filled by the coroutine.
asio::awaitable<void> Exchange(const ApiEndpoint& endpoint, ssl::context& tls,
                               http::request<http::string_body> request,
                               std::chrono::steady_clock::duration timeout, ApiResponse& response) {
  auto executor = co_await asio::this_coro::executor;
  tcp::resolver resolver(executor);
  beast::ssl_stream<beast::tcp_stream> stream(executor, tls);
  // SNI for DNS names; the certificate is checked against the host either way (IP SANs too).
  boost::system::error_code parse_error;
  asio::ip::make_address(endpoint.host, parse_error);
  if (parse_error) SSL_set_tlsext_host_name(stream.native_handle(), endpoint.host.c_str());
  stream.set_verify_mode(ssl::verify_peer);
  stream.set_verify_callback(ssl::host_name_verification(endpoint.host));

  response.error = "resolving " + endpoint.host;
  const auto addresses =
      co_await resolver.async_resolve(endpoint.host, std::to_string(endpoint.port),
                                      asio::use_awaitable);
  beast::get_lowest_layer(stream).expires_after(timeout);
  response.error = "connecting to " + endpoint.host + ":" + std::to_string(endpoint.port);
  co_await beast::get_lowest_layer(stream).async_connect(addresses, asio::use_awaitable);
  response.error = "TLS handshake with " + endpoint.host + " (is the CA right?)";
  co_await stream.async_handshake(ssl::stream_base::client, asio::use_awaitable);
  response.error = "sending the request";
  co_await http::async_write(stream, request, asio::use_awaitable);
  response.error = "reading the answer";
  beast::flat_buffer buffer;
  http::response<http::string_body> answer;
  co_await http::async_read(stream, buffer, answer, asio::use_awaitable);
  response.status = static_cast<int>(answer.result_int());
  response.body = std::move(answer.body());
  response.error.clear();
  // The server may drop the connection without close_notify; the answer is complete already.
  boost::system::error_code ignored;
  beast::get_lowest_layer(stream).socket().shutdown(tcp::socket::shutdown_both, ignored);
}

}  // namespace

bool InClusterEndpoint(const EnvLookup& env, const std::string& sa_dir, ApiEndpoint* endpoint,
                       std::string* error) {
  const auto host = env("KUBERNETES_SERVICE_HOST");
  const auto port = env("KUBERNETES_SERVICE_PORT");
  if (!host || host->empty()) {
    *error = "KUBERNETES_SERVICE_HOST is not set (not running in a pod?)";
    return false;
  }
  endpoint->host = *host;
  endpoint->port = 443;
  if (port && !port->empty()) {
    try {
      endpoint->port = std::stoi(*port);
    } catch (...) {
      *error = "KUBERNETES_SERVICE_PORT='" + *port + "' is not a port number";
      return false;
    }
  }
  const std::optional<std::string> token = wrapper::ReadWholeFile(sa_dir + "/token");
  if (!token) {
    *error = "cannot read " + sa_dir + "/token (automountServiceAccountToken off?)";
    return false;
  }
  endpoint->token = Trim(*token);
  endpoint->ca_file = sa_dir + "/ca.crt";
  if (!wrapper::ReadWholeFile(endpoint->ca_file)) {
    *error = "cannot read " + endpoint->ca_file;
    return false;
  }
  return true;
}

KubeClient::KubeClient(ApiEndpoint endpoint, double timeout_s)
    : endpoint_(std::move(endpoint)), timeout_s_(timeout_s) {}

ApiResponse KubeClient::Get(const std::string& path) const { return Request("GET", path, "", ""); }

ApiResponse KubeClient::Patch(const std::string& path, const std::string& body,
                              const std::string& content_type) const {
  return Request("PATCH", path, body, content_type);
}

ApiResponse KubeClient::Post(const std::string& path, const std::string& body) const {
  return Request("POST", path, body, "application/json");
}

ApiResponse KubeClient::Delete(const std::string& path) const {
  return Request("DELETE", path, "", "");
}

ApiResponse KubeClient::Request(const std::string& method, const std::string& path,
                                const std::string& body, const std::string& content_type) const {
  ApiResponse response;
  ssl::context tls(ssl::context::tls_client);
  boost::system::error_code ec;
  tls.load_verify_file(endpoint_.ca_file, ec);
  if (ec) {
    response.error = "cannot load the CA " + endpoint_.ca_file + ": " + ec.message();
    return response;
  }
  http::request<http::string_body> request;
  request.method_string(method);
  request.target(path);
  request.version(11);
  const bool ipv6 = endpoint_.host.find(':') != std::string::npos;
  request.set(http::field::host, (ipv6 ? "[" + endpoint_.host + "]" : endpoint_.host) + ":" +
                                     std::to_string(endpoint_.port));
  request.set(http::field::user_agent, "hkim-health");
  request.set(http::field::accept, "application/json");
  request.set(http::field::connection, "close");
  if (!endpoint_.token.empty())
    request.set(http::field::authorization, "Bearer " + endpoint_.token);
  if (!content_type.empty()) request.set(http::field::content_type, content_type);
  request.body() = body;
  request.prepare_payload();

  const auto timeout = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(timeout_s_));
  asio::io_context io;
  std::string failure;
  asio::co_spawn(io, Exchange(endpoint_, tls, std::move(request), timeout, response),
                 [&](std::exception_ptr thrown) {
                   if (!thrown) return;
                   try {
                     std::rethrow_exception(thrown);
                   } catch (const std::exception& e) {
                     failure = e.what();
                   }
                 });
  // The resolver is not covered by the stream's deadline; this bounds the whole exchange.
  io.run_for(timeout + std::chrono::seconds(1));
  if (!io.stopped()) {
    io.stop();
    failure = "timed out after " + std::to_string(static_cast<int>(timeout_s_)) + " s";
  }
  if (!failure.empty() || !response.error.empty()) {
    response.status = 0;
    response.error += (response.error.empty() ? "" : ": ") + failure;
  }
  return response;
}

bool GetListItems(const KubeClient& client, const std::string& path, const std::string& kind,
                  const std::string& forbidden_fix, nlohmann::json* items, std::string* error) {
  const ApiResponse response = client.Get(path);
  if (!response.ok()) {
    *error = DescribeFailure("GET " + path, response, forbidden_fix);
    return false;
  }
  nlohmann::json list = nlohmann::json::parse(response.body, nullptr, false);
  if (!list.is_object() || !list.contains("items") || !list["items"].is_array()) {
    *error = "GET " + path + ": the answer is not a " + kind;
    return false;
  }
  *items = std::move(list["items"]);
  return true;
}

std::string DescribeFailure(const std::string& what, const ApiResponse& response,
                            const std::string& forbidden_fix) {
  if (response.status == 0) return what + ": " + response.error;
  std::string message = response.body;
  const nlohmann::json status = nlohmann::json::parse(response.body, nullptr, false);
  if (status.is_object() && status.contains("message") && status["message"].is_string())
    message = status["message"].get<std::string>();
  std::string fix;
  if (response.status == 401) fix = " (token refused: is the service account token mounted?)";
  if (response.status == 403) fix = " (" + forbidden_fix + ")";
  return what + ": HTTP " + std::to_string(response.status) + ": " + message + fix;
}

std::string QueryEscape(const std::string& value) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace hkim::health
