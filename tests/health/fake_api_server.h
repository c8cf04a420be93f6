#pragma once
// A stand-in for the Kubernetes API server in tests: HTTPS on 127.0.0.1 only (a fresh
// self-signed certificate for IP 127.0.0.1, written as ca.crt with a token into a service
// account folder), answering from a table of recorded responses and recording every request.

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace hkim::health::testing {

struct RecordedRequest {
  std::string method;
  std::string target;
  std::string authorization;
  std::string content_type;
  std::string body;
};

struct CannedResponse {
  int status = 200;
  std::string body;
};

class FakeApiServer {
 public:
  /// Handler: the response for a request (called on the server thread, under the lock).
  using Handler = std::function<CannedResponse(const RecordedRequest&)>;

  /// Creates the certificate, the service-account folder `sa_dir` (token = `token`), binds
  /// 127.0.0.1 on a free port and starts serving on a thread.
  FakeApiServer(const std::string& sa_dir, const std::string& token, Handler handler);
  ~FakeApiServer();

  int port() const { return port_; }
  std::vector<RecordedRequest> requests() const;

 private:
  void Serve();

  Handler handler_;
  int port_ = 0;
  int listen_fd_ = -1;
  std::string cert_pem_, key_pem_;
  mutable std::mutex mutex_;
  std::vector<RecordedRequest> requests_;
  std::thread thread_;
  bool stopping_ = false;
};

}  // namespace hkim::health::testing
