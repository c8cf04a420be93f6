#include "fake_api_server.h"

#include <utility>  // before Boost 1.74's asio (std::exchange)

#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <fstream>
#include <stdexcept>

namespace hkim::health::testing {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

std::string Pem(auto write) {
  BIO* bio = BIO_new(BIO_s_mem());
  write(bio);
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(size));
  BIO_free(bio);
  return out;
}

// A self-signed P-256 certificate for IP 127.0.0.1, valid for a day.
void MakeCertificate(std::string* cert_pem, std::string* key_pem) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("fake-kube-apiserver"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* san = X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_alt_name, "IP:127.0.0.1");
  X509_add_ext(cert, san, -1);
  X509_EXTENSION_free(san);
  X509_sign(cert, key, EVP_sha256());
  *cert_pem = Pem([&](BIO* bio) { PEM_write_bio_X509(bio, cert); });
  *key_pem = Pem([&](BIO* bio) { PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr); });
  X509_free(cert);
  EVP_PKEY_free(key);
}

}  // namespace

FakeApiServer::FakeApiServer(const std::string& sa_dir, const std::string& token, Handler handler)
    : handler_(std::move(handler)) {
  MakeCertificate(&cert_pem_, &key_pem_);
  std::ofstream(sa_dir + "/ca.crt") << cert_pem_;
  std::ofstream(sa_dir + "/token") << token << "\n";
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // 127.0.0.1 only
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listen_fd_, 16) != 0)
    throw std::runtime_error("fake API server: cannot listen on 127.0.0.1");
  socklen_t length = sizeof address;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { Serve(); });
}

FakeApiServer::~FakeApiServer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ::shutdown(listen_fd_, SHUT_RDWR);
  thread_.join();
  ::close(listen_fd_);
}

std::vector<RecordedRequest> FakeApiServer::requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

void FakeApiServer::Serve() {
  asio::io_context io;
  asio::ssl::context tls(asio::ssl::context::tls_server);
  tls.use_certificate_chain(asio::buffer(cert_pem_));
  tls.use_private_key(asio::buffer(key_pem_), asio::ssl::context::pem);
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
      continue;
    }
    try {
      asio::ip::tcp::socket socket(io, asio::ip::tcp::v4(), fd);
      beast::ssl_stream<asio::ip::tcp::socket&> stream(socket, tls);
      stream.handshake(asio::ssl::stream_base::server);
      beast::flat_buffer buffer;
      http::request<http::string_body> request;
      http::read(stream, buffer, request);
      RecordedRequest recorded{std::string(request.method_string()), std::string(request.target()),
                               std::string(request[http::field::authorization]),
                               std::string(request[http::field::content_type]), request.body()};
      CannedResponse canned;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        requests_.push_back(recorded);
        canned = handler_(recorded);
      }
      http::response<http::string_body> response{static_cast<http::status>(canned.status), 11};
      response.set(http::field::content_type, "application/json");
      response.body() = canned.body;
      response.prepare_payload();
      http::write(stream, response);
      boost::system::error_code ignored;
      stream.shutdown(ignored);
    } catch (const std::exception&) {
      // A client that refused our certificate (the TLS tests) ends here; keep serving.
    }
  }
}

}  // namespace hkim::health::testing
