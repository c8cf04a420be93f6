#include "rendezvous.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>
#include <string_view>
#include <thread>

namespace hkim::nccl_check {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kPerConnectionTimeoutS = 5;

// Closes a file descriptor when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

double SecondsUntil(Clock::time_point deadline) {
  return std::chrono::duration<double>(deadline - Clock::now()).count();
}

Clock::time_point After(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

int PollMs(Clock::time_point deadline) {
  const double left = SecondsUntil(deadline);
  return left <= 0 ? 0 : static_cast<int>(left * 1000) + 1;
}

enum class IoResult { kOk, kTimeout, kClosed, kError };

// Reads one message before `deadline`, parsing after every chunk so that a foreign peer is
// told apart at its first bytes and no more is read than the parser asks for (the socket is
// non-blocking). `*received` keeps what arrived; `*io` says why the read stopped early.
template <class Message>
WireParse ReadMessage(int fd, Clock::time_point deadline,
                      WireParse (*parse)(std::string_view, Message*, std::size_t*),
                      Message* message, std::string* received, IoResult* io) {
  received->clear();
  *io = IoResult::kOk;
  std::size_t needed = 0;
  for (;;) {
    const WireParse state = parse(*received, message, &needed);
    if (state != WireParse::kNeedMore) return state;
    char buffer[512];
    const std::size_t want = std::min(sizeof buffer, needed - received->size());
    const ssize_t n = ::recv(fd, buffer, want, 0);
    if (n > 0) {
      received->append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) {
      *io = IoResult::kClosed;
      return state;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      *io = IoResult::kError;
      return state;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, PollMs(deadline));
    if (ready == 0 || (ready < 0 && errno != EINTR)) {
      *io = ready == 0 ? IoResult::kTimeout : IoResult::kError;
      return state;
    }
  }
}

// The magic-sized start of what a foreign peer sent, for the message naming it.
std::string Opening(const std::string& received) {
  return PrintableBytes(std::string_view(received).substr(0, kRendezvousMagic.size()));
}

IoResult WriteAll(int fd, const std::string& data, Clock::time_point deadline) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return IoResult::kError;
    pollfd p{fd, POLLOUT, 0};
    const int ready = ::poll(&p, 1, PollMs(deadline));
    if (ready == 0) return IoResult::kTimeout;
    if (ready < 0 && errno != EINTR) return IoResult::kError;
  }
  return IoResult::kOk;
}

void SetNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL, 0) | O_NONBLOCK); }

std::string PeerName(const sockaddr_storage& address) {
  char host[NI_MAXHOST] = "?";
  char service[NI_MAXSERV] = "?";
  ::getnameinfo(reinterpret_cast<const sockaddr*>(&address), sizeof address, host, sizeof host,
                service, sizeof service, NI_NUMERICHOST | NI_NUMERICSERV);
  return std::string(host) + ":" + service;
}

RendezvousStatus Error(std::string error, std::string fix) {
  RendezvousStatus status;
  status.ok = false;
  status.error = std::move(error);
  status.fix = std::move(fix);
  return status;
}

std::string Seconds(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", seconds);
  return buffer;
}

}  // namespace

RendezvousServer::~RendezvousServer() {
  if (fd_ >= 0) ::close(fd_);
}

RendezvousStatus RendezvousServer::Listen(const std::string& bind_address, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  const int rc = ::getaddrinfo(bind_address.empty() ? nullptr : bind_address.c_str(),
                               service.c_str(), &hints, &found);
  if (rc != 0) {
    return Error(
        "cannot resolve the rendezvous bind address '" + bind_address + "': " + ::gai_strerror(rc),
        "bind to a numeric address such as 0.0.0.0");
  }
  std::string last_error = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
      SetNonBlocking(fd);
      sockaddr_storage bound{};
      socklen_t length = sizeof bound;
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
      port_ = bound.ss_family == AF_INET6
                  ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                  : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
      fd_ = fd;
      ::freeaddrinfo(found);
      return {};
    }
    last_error = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return Error(
      "cannot listen on port " + std::to_string(port) + " for the rendezvous: " + last_error,
      "choose a free HKIM_RENDEZVOUS_PORT (the same in every pod of the job)");
}

RendezvousStatus RendezvousServer::Serve(const RendezvousIdentity& self, const UniqueIdBytes& id,
                                         double timeout_s) {
  if (fd_ < 0) return Error("the rendezvous server is not listening", "call Listen first");
  RendezvousStatus status;
  std::set<int> waiting;
  for (int ordinal = 1; ordinal < self.replicas; ++ordinal) waiting.insert(ordinal);
  const Clock::time_point deadline = After(timeout_s);

  while (!waiting.empty()) {
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, PollMs(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      std::string missing;
      for (int ordinal : waiting)
        missing += (missing.empty() ? "" : ", ") + std::to_string(ordinal);
      RendezvousStatus timeout = Error(
          "timed out after " + Seconds(timeout_s) + " s on port " + std::to_string(port_) +
              ": ordinal(s) " + missing + " of " + std::to_string(self.replicas) + " ('" +
              self.job + "') never fetched the NCCL unique id",
          "check that those pods started, resolve and reach MASTER_ADDR, and run the check with "
          "HKIM_NCCL_CHECK_SCOPE=job and the same HKIM_RENDEZVOUS_PORT");
      timeout.warnings = status.warnings;
      return timeout;
    }
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    Fd peer(::accept4(fd_, reinterpret_cast<sockaddr*>(&address), &length,
                      SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (peer.get() < 0) continue;
    const std::string who = PeerName(address);
    const Clock::time_point io_deadline = std::min(deadline, After(kPerConnectionTimeoutS));

    RendezvousHello hello;
    std::string received;
    IoResult read = IoResult::kOk;
    const WireParse parsed =
        ReadMessage(peer.get(), io_deadline, ParseHello, &hello, &received, &read);
    if (parsed == WireParse::kForeign) {
      status.warnings.push_back("ignored a connection from " + who +
                                " that is not an hkim-nccl-check peer (it sent '" +
                                Opening(received) + "')");
      continue;
    }
    if (parsed != WireParse::kDone) {
      status.warnings.push_back(
          "ignored a connection from " + who +
          (parsed == WireParse::kMalformed ? std::string(" with a malformed hello")
                                           : " that sent no complete hello (" +
                                                 std::to_string(received.size()) + " bytes)"));
      continue;
    }
    const int ordinal = hello.identity.ordinal;
    const std::string refusal = RefusalOf(self, hello, waiting);
    const std::string answer = refusal.empty() ? EncodeAccept(id) : EncodeRefusal(refusal);
    const IoResult sent = WriteAll(peer.get(), answer, io_deadline);
    if (!refusal.empty()) {
      RendezvousStatus mismatch = Error(
          "refused the peer at " + who + " (ordinal " + std::to_string(ordinal) + "): " + refusal,
          "every pod of the job must run the same profile: same HKIM_REPLICAS, GPU count "
          "and StatefulSet");
      mismatch.warnings = status.warnings;
      return mismatch;
    }
    if (sent == IoResult::kOk) {
      waiting.erase(ordinal);
    } else {
      status.warnings.push_back("could not send the id to ordinal " + std::to_string(ordinal) +
                                " at " + who + "; waiting for it to retry");
    }
  }
  return status;
}

namespace {

// Connects the non-blocking socket `fd` to `address`, waiting until `deadline`. False, with
// `last_error` saying why, when it cannot: the caller then tries the next address.
bool ConnectBy(int fd, const addrinfo& address, Clock::time_point deadline,
               std::string& last_error) {
  if (::connect(fd, address.ai_addr, address.ai_addrlen) != 0) {
    if (errno != EINPROGRESS) {
      last_error = std::string("connect: ") + std::strerror(errno);
      return false;
    }
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, PollMs(deadline)) <= 0) {
      last_error = "connect: no answer within the timeout";
      return false;
    }
    int so_error = 0;
    socklen_t length = sizeof so_error;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &length);
    if (so_error != 0) {
      last_error = std::string("connect: ") + std::strerror(so_error);
      return false;
    }
  }
  return true;
}

}  // namespace

RendezvousStatus FetchUniqueId(const RendezvousIdentity& self, const std::string& host, int port,
                               double timeout_s, UniqueIdBytes& id) {
  const Clock::time_point deadline = After(timeout_s);
  const std::string where = host + ":" + std::to_string(port);
  std::string last_error = "no attempt";
  const std::string timeout_fix =
      "check that the pod with ordinal 0 runs the check (HKIM_NCCL_CHECK_SCOPE=job), that "
      "MASTER_ADDR resolves to it and that HKIM_RENDEZVOUS_PORT is the same in every pod";

  while (SecondsUntil(deadline) > 0) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
    if (rc != 0) {
      last_error = std::string("cannot resolve '") + host + "': " + ::gai_strerror(rc);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    for (addrinfo* a = found; a != nullptr && SecondsUntil(deadline) > 0; a = a->ai_next) {
      Fd fd(::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
      if (fd.get() < 0) continue;
      const Clock::time_point io_deadline = std::min(deadline, After(kPerConnectionTimeoutS));
      if (!ConnectBy(fd.get(), *a, io_deadline, last_error)) continue;
      if (WriteAll(fd.get(), EncodeHello(self), io_deadline) != IoResult::kOk) {
        last_error = "could not send the hello";
        continue;
      }
      RendezvousAnswer answer;
      std::string received;
      IoResult read = IoResult::kOk;
      const WireParse parsed =
          ReadMessage(fd.get(), io_deadline, ParseAnswer, &answer, &received, &read);
      if (parsed == WireParse::kForeign || parsed == WireParse::kMalformed) {
        ::freeaddrinfo(found);
        return Error(where + " answered, but not as hkim-nccl-check rank 0 (it sent '" +
                         Opening(received) + "'" +
                         (parsed == WireParse::kMalformed ? ", then a malformed answer" : "") +
                         ")",
                     "HKIM_RENDEZVOUS_PORT must be a port no other program uses, the same in "
                     "every pod; MASTER_ADDR must name the pod with ordinal 0");
      }
      if (parsed != WireParse::kDone) {
        last_error = received.size() >= kAnswerHeaderBytes ? "rank 0 sent a truncated answer"
                     : read == IoResult::kTimeout ? "connected, but rank 0 did not answer in time"
                                                  : "connected, but rank 0 closed without answering";
        continue;
      }
      ::freeaddrinfo(found);
      if (answer.accepted) {
        id = answer.id;
        return {};
      }
      return Error("rank 0 at " + where + " refused this pod (ordinal " +
                       std::to_string(self.ordinal) + "): " + PrintableBytes(answer.refusal),
                   "every pod of the job must run the same profile: same HKIM_REPLICAS, GPU "
                   "count and StatefulSet");
    }
    ::freeaddrinfo(found);
    std::this_thread::sleep_for(std::chrono::milliseconds(
        static_cast<int>(std::max(0.0, std::min(0.2, SecondsUntil(deadline))) * 1000)));
  }
  return Error("timed out after " + Seconds(timeout_s) + " s waiting for rank 0 at " + where +
                   " (last error: " + last_error + ")",
               timeout_fix);
}

}  // namespace hkim::nccl_check
