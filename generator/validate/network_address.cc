#include "validate/network_address.h"

#include <arpa/inet.h>

#include <vector>

namespace hkim {
namespace {

const char* Ordinal(size_t i) {
  static const char* const names[] = {"first", "second", "third", "fourth"};
  return i < 4 ? names[i] : "next";
}

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string::npos ? at : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

bool AllDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

std::string Ipv4AddressProblem(const std::string& text) {
  in_addr parsed{};
  if (inet_pton(AF_INET, text.c_str(), &parsed) == 1) return "";
  const std::vector<std::string> parts = Split(text, '.');
  if (parts.size() != 4) {
    return "'" + text + "' has " + std::to_string(parts.size()) +
           (parts.size() == 1 ? " number" : " numbers") +
           "; an IPv4 address has four, separated by dots (e.g. 10.0.103.1)";
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    if (!AllDigits(part)) {
      return "the " + std::string(Ordinal(i)) + " part of '" + text + "', '" + part +
             "', is not a number";
    }
    if (part.size() > 3 || std::stoi(part) > 255) {
      return "the " + std::string(Ordinal(i)) + " number of '" + text + "', " + part +
             ", is above 255 (each of the four numbers is 0 to 255)";
    }
    if (part.size() > 1 && part[0] == '0') {
      return "the " + std::string(Ordinal(i)) + " number of '" + text + "', " + part +
             ", has a leading zero (some tools read it as octal)";
    }
  }
  return "'" + text + "' is not an IPv4 address";
}

std::string CidrProblem(const std::string& text, std::string* rule) {
  const size_t slash = text.find('/');
  const std::string address = text.substr(0, slash);
  std::string problem = Ipv4AddressProblem(address);
  if (!problem.empty()) {
    *rule = "network.address";
    return problem;
  }
  *rule = "network.prefix";
  if (slash == std::string::npos) {
    return "'" + text + "' has no prefix length; write the network as " + address + "/24 (or "
           "the prefix of your subnet)";
  }
  const std::string prefix = text.substr(slash + 1);
  if (!AllDigits(prefix)) return "the prefix length '/" + prefix + "' is not a number";
  if (prefix.size() > 2 || std::stoi(prefix) > 32) {
    return "the prefix length /" + prefix + " is above 32 (an IPv4 network is /0 to /32)";
  }
  return "";
}

}  // namespace hkim
