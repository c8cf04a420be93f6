#include "exchange.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "json_fields.h"
#include "text_cut.h"

namespace hkim::health {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr const char* kMagic = "hkim-localize/1";
constexpr size_t kMaxLine = 1 << 20;

Clock::time_point After(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

int MsUntil(Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1000));
}

bool SendAll(int fd, const std::string& data, Clock::time_point deadline) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
    if (Clock::now() >= deadline) return false;
    pollfd p{fd, POLLOUT, 0};
    ::poll(&p, 1, MsUntil(deadline));
  }
  return true;
}

// Appends what is readable now to `buffer`; false when the peer closed or failed.
bool ReadSome(int fd, std::string* buffer) {
  char chunk[4096];
  const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
  if (n > 0) {
    buffer->append(chunk, static_cast<size_t>(n));
    return buffer->size() <= kMaxLine;
  }
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
}

struct Client {
  int fd = -1;
  std::string buffer;
  int ordinal = -1;  // set once its line arrived and was accepted
};

}  // namespace

ExchangeHello ReadExchangeHello(std::string_view line, const std::string& tag, int replicas) {
  ExchangeHello read;
  const json hello = json::parse(line, nullptr, false);
  const int ordinal = IntField(hello, "ordinal", -1);
  if (StringField(hello, "magic") != kMagic) read.refusal = "not a localization peer";
  else if (StringField(hello, "tag") != tag)
    read.refusal = "tag " + StringField(hello, "tag", "(none)") + ", expected " + tag;
  else if (ordinal < 1 || ordinal >= replicas) read.refusal = "ordinal out of range";
  if (!read.refusal.empty()) return read;
  read.ordinal = ordinal;
  read.value = Field(hello, "value");
  return read;
}

ExchangeResult ReadExchangeAnswer(std::string_view line, const std::string& where) {
  ExchangeResult result;
  const json answer = json::parse(line, nullptr, false);
  if (StringField(answer, "magic") != kMagic) {
    result.error = where + " is not a localization peer";
    return result;
  }
  if (answer.contains("error")) {
    result.error = "rank 0 refused: " + StringField(answer, "error", "(no reason given)");
    return result;
  }
  const json& values = Field(answer, "values");
  if (values.is_object()) {
    for (const auto& [key, value] : values.items()) {  // keys are ordinals, "0" "1" ...
      int at = -1;
      const auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), at);
      if (error == std::errc() && end == key.data() + key.size() && at >= 0 &&
          std::to_string(at) == key)
        result.values[at] = value;
    }
  }
  result.ok = true;
  return result;
}

ExchangeResult ServeExchange(const std::string& tag, int replicas, int expect, int port,
                             const json& mine, double timeout_s, const ExchangeFilter& accept) {
  ExchangeResult result;
  result.values[0] = mine;
  // Dual-stack where the kernel has IPv6, else IPv4 only (pods are reached by either).
  const int one = 1, zero = 0;
  int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  bool bound = false;
  if (fd >= 0) {
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    sockaddr_in6 address{};
    address.sin6_family = AF_INET6;
    address.sin6_port = htons(static_cast<uint16_t>(port));
    bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    if (!bound) {
      ::close(fd);
      fd = -1;
    }
  }
  if (fd < 0) {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd >= 0) ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  }
  if (fd >= 0 && !bound) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  if (!bound || ::listen(fd, 256) != 0) {
    result.error = "cannot listen on port " + std::to_string(port) + ": " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return result;
  }
  const Clock::time_point deadline = After(timeout_s);
  std::vector<Client> clients;
  auto accepted = [&] {
    int count = 0;
    for (const Client& c : clients) count += c.fd >= 0 && c.ordinal >= 0;
    return count;
  };
  auto drop = [&](Client& c) {
    if (c.ordinal >= 0) result.values.erase(c.ordinal);  // it left before the table: absent
    ::close(c.fd);
    c.fd = -1;
    c.ordinal = -1;
  };
  while (accepted() < expect && Clock::now() < deadline) {
    std::erase_if(clients, [](const Client& c) { return c.fd < 0; });
    std::vector<pollfd> fds = {{fd, POLLIN, 0}};
    for (const Client& c : clients) fds.push_back({c.fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), MsUntil(deadline)) <= 0) continue;
    if (fds[0].revents & POLLIN) {
      const int peer = ::accept4(fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (peer >= 0) clients.push_back({peer, "", -1});
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      Client& c = clients[i - 1];
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)) || c.fd < 0) continue;
      if (c.ordinal >= 0) {
        // An accepted pod only waits for the table: anything readable is its leaving.
        std::string ignored;
        if (!ReadSome(c.fd, &ignored)) drop(c);
        continue;
      }
      const bool alive = ReadSome(c.fd, &c.buffer);
      const size_t newline = c.buffer.find('\n');
      if (newline == std::string::npos) {
        if (!alive) drop(c);
        continue;
      }
      ExchangeHello hello =
          ReadExchangeHello(std::string_view(c.buffer).substr(0, newline), tag, replicas);
      if (hello.refusal.empty() && accept) hello.refusal = accept(hello.value);
      if (!hello.refusal.empty()) {
        SendAll(c.fd, DumpJson(json{{"magic", kMagic}, {"error", hello.refusal}}) + "\n", After(1));
        ::close(c.fd);
        c.fd = -1;
        continue;
      }
      // The same ordinal again is the same pod reconnecting: its older connection is dropped.
      for (Client& other : clients)
        if (&other != &c && other.fd >= 0 && other.ordinal == hello.ordinal) {
          ::close(other.fd);
          other.fd = -1;
          other.ordinal = -1;
        }
      c.ordinal = hello.ordinal;
      result.values[hello.ordinal] = std::move(hello.value);
    }
  }
  json table = json::object();
  for (const auto& [ordinal, value] : result.values) table[std::to_string(ordinal)] = value;
  const std::string answer = DumpJson(json{{"magic", kMagic}, {"tag", tag}, {"values", table}}) + "\n";
  for (Client& c : clients) {
    if (c.fd < 0) continue;
    if (c.ordinal >= 0) SendAll(c.fd, answer, After(5));
    ::close(c.fd);
  }
  ::close(fd);
  result.ok = true;
  return result;
}

ExchangeResult JoinExchange(const std::string& tag, int ordinal, const std::string& host, int port,
                            const json& mine, double timeout_s, bool retry_refused) {
  ExchangeResult result;
  const Clock::time_point deadline = After(timeout_s);
  const std::string hello =
      DumpJson(json{{"magic", kMagic}, {"tag", tag}, {"ordinal", ordinal}, {"value", mine}}) + "\n";
  std::string last_error = "no attempt";
  while (Clock::now() < deadline) {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
    if (rc != 0) {
      last_error = "cannot resolve " + host + ": " + ::gai_strerror(rc);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    int fd = -1;
    for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
      fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd >= 0 && ::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
        last_error = std::string("connect: ") + std::strerror(errno);
        ::close(fd);
        fd = -1;
      }
    }
    ::freeaddrinfo(found);
    if (fd < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL, 0) | O_NONBLOCK);
    std::string buffer;
    bool alive = SendAll(fd, hello, deadline);
    // Rank 0 answers when everyone has reported, at the latest at its own deadline, which is at
    // most `timeout_s` from now (it was listening already): wait that long, plus a margin.
    const Clock::time_point answer_by = After(timeout_s + 10);
    while (alive && buffer.find('\n') == std::string::npos && Clock::now() < answer_by) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, MsUntil(answer_by)) > 0) alive = ReadSome(fd, &buffer);
    }
    ::close(fd);
    const size_t newline = buffer.find('\n');
    if (newline == std::string::npos) {
      last_error = "rank 0 closed without the table";
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    ExchangeResult answer = ReadExchangeAnswer(std::string_view(buffer).substr(0, newline),
                                               host + ":" + std::to_string(port));
    if (!answer.ok && retry_refused && answer.error.rfind("rank 0 refused: ", 0) == 0) {
      last_error = answer.error;
      std::this_thread::sleep_for(std::chrono::seconds(1));
      continue;
    }
    return answer;
  }
  result.error = "no table from rank 0 at " + host + ":" + std::to_string(port) + " within " +
                 std::to_string(static_cast<int>(timeout_s)) + " s (" + last_error + ")";
  return result;
}

}  // namespace hkim::health
