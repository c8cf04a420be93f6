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
#include <vector>

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

namespace {

// One accepted connection of rank 0, served without blocking the others: it reads the hello,
// sends the answer, then reads the ack. Each step has the connection's own deadline.
struct Connection {
  int fd = -1;
  std::string who;
  Clock::time_point deadline;
  enum class Step { kHello, kAnswer, kAck } step = Step::kHello;
  std::string received;
  std::string answer;
  std::size_t sent = 0;
  int ordinal = -1;
};

void Drop(Connection& c) {
  if (c.fd >= 0) ::close(c.fd);
  c.fd = -1;
}

// Reads what is there now into `c.received`, at most up to `needed` bytes in all. False when the
// peer closed or failed.
bool ReadAvailable(Connection& c, std::size_t needed) {
  while (c.received.size() < needed) {
    char buffer[512];
    const ssize_t n =
        ::recv(c.fd, buffer, std::min(sizeof buffer, needed - c.received.size()), 0);
    if (n > 0) {
      c.received.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
  return true;
}

}  // namespace

RendezvousStatus RendezvousServer::Serve(const RendezvousIdentity& self, const UniqueIdBytes& id,
                                         double timeout_s) {
  if (fd_ < 0) return Error("the rendezvous server is not listening", "call Listen first");
  RendezvousStatus status;
  std::set<int> waiting;  // ordinals that have not acknowledged the id yet
  for (int ordinal = 1; ordinal < self.replicas; ++ordinal) waiting.insert(ordinal);
  const Clock::time_point deadline = After(timeout_s);
  std::vector<Connection> connections;
  const auto close_all = [&connections] {
    for (Connection& c : connections) Drop(c);
  };

  while (!waiting.empty()) {
    std::erase_if(connections, [](const Connection& c) { return c.fd < 0; });
    const Clock::time_point now = Clock::now();
    if (now >= deadline) {
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
      close_all();
      return timeout;
    }
    Clock::time_point wake = deadline;
    std::vector<pollfd> fds = {{fd_, POLLIN, 0}};
    for (const Connection& c : connections) {
      wake = std::min(wake, c.deadline);
      const bool writing = c.step == Connection::Step::kAnswer;
      fds.push_back({c.fd, static_cast<short>(writing ? POLLOUT : POLLIN), 0});
    }
    const int ready = ::poll(fds.data(), fds.size(), PollMs(wake));
    if (ready < 0 && errno != EINTR) {
      close_all();
      return Error(std::string("rendezvous: poll: ") + std::strerror(errno), "run the check again");
    }
    for (std::size_t i = 0; i < connections.size(); ++i) {
      Connection& c = connections[i];
      const short events = ready > 0 ? fds[i + 1].revents : 0;
      if (events == 0) {
        if (Clock::now() < c.deadline) continue;
        if (c.step == Connection::Step::kHello) {
          status.warnings.push_back("ignored a connection from " + c.who +
                                    " that sent no complete hello (" +
                                    std::to_string(c.received.size()) + " bytes)");
        } else {
          status.warnings.push_back("ordinal " + std::to_string(c.ordinal) + " at " + c.who +
                                    " did not confirm the id in time; waiting for it to retry");
        }
        Drop(c);
        continue;
      }
      if (c.step == Connection::Step::kHello) {
        RendezvousHello hello;
        std::size_t needed = 0;
        WireParse parsed = ParseHello(c.received, &hello, &needed);
        bool alive = true;
        if (parsed == WireParse::kNeedMore) {
          alive = ReadAvailable(c, needed);
          parsed = ParseHello(c.received, &hello, &needed);
        }
        if (parsed == WireParse::kForeign) {
          status.warnings.push_back("ignored a connection from " + c.who +
                                    " that is not an hkim-nccl-check peer (it sent '" +
                                    Opening(c.received) + "')");
          Drop(c);
          continue;
        }
        if (parsed == WireParse::kMalformed || (parsed == WireParse::kNeedMore && !alive)) {
          status.warnings.push_back(
              "ignored a connection from " + c.who +
              (parsed == WireParse::kMalformed
                   ? std::string(" with a malformed hello")
                   : " that sent no complete hello (" + std::to_string(c.received.size()) +
                         " bytes)"));
          Drop(c);
          continue;
        }
        if (parsed == WireParse::kNeedMore) continue;
        const std::string refusal = RefusalOf(self, hello);
        if (!refusal.empty()) {
          WriteAll(c.fd, EncodeRefusal(refusal), After(1));
          RendezvousStatus mismatch =
              Error("refused the peer at " + c.who + " (ordinal " +
                        std::to_string(hello.identity.ordinal) + "): " + refusal,
                    "every pod of the job must run the same profile: same HKIM_REPLICAS, GPU "
                    "count and StatefulSet");
          mismatch.warnings = status.warnings;
          close_all();
          return mismatch;
        }
        // A hello from an ordinal that was served before is the same pod again (its answer was
        // lost): it gets the same id.
        c.ordinal = hello.identity.ordinal;
        c.answer = EncodeAccept(id);
        c.step = Connection::Step::kAnswer;
        c.received.clear();
        continue;  // the answer goes out when the socket is writable
      }
      if (c.step == Connection::Step::kAnswer) {
        const ssize_t n = ::send(c.fd, c.answer.data() + c.sent, c.answer.size() - c.sent,
                                 MSG_NOSIGNAL);
        if (n > 0) c.sent += static_cast<std::size_t>(n);
        else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) Drop(c);
        if (c.fd >= 0 && c.sent == c.answer.size()) c.step = Connection::Step::kAck;
        continue;
      }
      // kAck: the peer holds the id once this arrives; only then is it served.
      const bool alive = ReadAvailable(c, kAckBytes);
      int acked = -1;
      std::size_t needed = 0;
      const WireParse parsed = ParseAck(c.received, &acked, &needed);
      if (parsed == WireParse::kDone && acked == c.ordinal) {
        waiting.erase(c.ordinal);
        Drop(c);
      } else if (parsed != WireParse::kNeedMore || !alive) {
        status.warnings.push_back("ordinal " + std::to_string(c.ordinal) + " at " + c.who +
                                  " closed without confirming the id; waiting for it to retry");
        Drop(c);
      }
    }
    if (ready > 0 && (fds[0].revents & POLLIN)) {
      sockaddr_storage address{};
      socklen_t length = sizeof address;
      const int peer = ::accept4(fd_, reinterpret_cast<sockaddr*>(&address), &length,
                                 SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (peer >= 0) {
        Connection c;
        c.fd = peer;
        c.who = PeerName(address);
        c.deadline = std::min(deadline, After(kPerConnectionTimeoutS));
        connections.push_back(std::move(c));
      }
    }
  }
  close_all();
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
      if (answer.accepted) {
        // Rank 0 counts this pod as served at the ack; without it, it waits for a retry.
        if (WriteAll(fd.get(), EncodeAck(self.ordinal), io_deadline) != IoResult::kOk) {
          last_error = "could not confirm the id to rank 0";
          continue;
        }
        ::freeaddrinfo(found);
        id = answer.id;
        return {};
      }
      ::freeaddrinfo(found);
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
