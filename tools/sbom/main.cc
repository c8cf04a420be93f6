// hkim-sbom: the wrapper image's SBOM and provenance from facts on the command line
// (scripts/build-image.sh collects them). Usage:
//   hkim-sbom spdx -o FILE --name N --version V --commit C --repository URL --created RFC3339
//       --content-digest HEX [--package NAME VERSION COPYRIGHT_FILE]... [--program NAME DEPS]...
//       [--file PATH SHA256 OWNER]...          (DEPS: comma-separated package names, or -)
//   hkim-sbom provenance -o FILE --layout DIR --name N --repository URL --commit C --command CMD
//       --builder-id URI --build-type URI --epoch SECONDS [--package NAME VERSION]...
// Writes FILE only when the document is complete (via FILE.tmp and rename).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sbom.h"

namespace {

using hkim::sbom::DebianPackage;

struct Args {
  std::map<std::string, std::string> single;
  std::vector<std::vector<std::string>> packages, programs, files;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Args Parse(int argc, char** argv, int package_arity) {
  Args args;
  auto take = [&](int& i, int n, const std::string& flag) {
    if (i + n >= argc)
      throw std::invalid_argument(flag + " needs " + std::to_string(n) + " values");
    std::vector<std::string> values(argv + i + 1, argv + i + 1 + n);
    i += n;
    return values;
  };
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--package")
      args.packages.push_back(take(i, package_arity, flag));
    else if (flag == "--program")
      args.programs.push_back(take(i, 2, flag));
    else if (flag == "--file")
      args.files.push_back(take(i, 3, flag));
    else if (flag.rfind("-", 0) == 0)
      args.single[flag] = take(i, 1, flag)[0];
    else
      throw std::invalid_argument("unexpected argument " + flag);
  }
  return args;
}

std::string Need(const Args& args, const std::string& flag) {
  auto it = args.single.find(flag);
  if (it == args.single.end() || it->second.empty())
    throw std::invalid_argument(flag + " is required");
  return it->second;
}

void Write(const std::string& path, const nlohmann::ordered_json& document) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << document.dump(2) << '\n';
    if (!out.flush()) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

std::vector<std::string> Split(const std::string& list) {
  std::vector<std::string> items;
  if (list == "-") return items;
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

int Run(int argc, char** argv) {
  if (argc < 2) throw std::invalid_argument("usage: hkim-sbom spdx|provenance -o FILE ...");
  const std::string command = argv[1];
  if (command == "spdx") {
    const Args args = Parse(argc, argv, 3);
    hkim::sbom::Facts facts{Need(args, "--name"),
                            Need(args, "--version"),
                            Need(args, "--commit"),
                            Need(args, "--repository"),
                            Need(args, "--created"),
                            Need(args, "--content-digest"),
                            {},
                            {},
                            {}};
    for (const auto& p : args.packages) {
      hkim::sbom::CopyrightReading reading = hkim::sbom::CopyrightLicenses(ReadFile(p[2]));
      facts.packages.push_back({p[0], p[1], reading.licenses, reading.comment});
    }
    for (const auto& p : args.programs) facts.programs.push_back({p[0], Split(p[1])});
    for (const auto& f : args.files) facts.files.push_back({f[0], f[1], f[2]});
    Write(Need(args, "-o"), hkim::sbom::Spdx(facts));
    return 0;
  }
  if (command == "provenance") {
    const Args args = Parse(argc, argv, 2);
    const auto index = nlohmann::json::parse(ReadFile(Need(args, "--layout") + "/index.json"));
    hkim::sbom::BuildFacts facts{Need(args, "--repository"),
                                 Need(args, "--commit"),
                                 Need(args, "--command"),
                                 Need(args, "--builder-id"),
                                 Need(args, "--build-type"),
                                 Need(args, "--epoch"),
                                 hkim::sbom::LayoutSubjects(index, Need(args, "--name")),
                                 {}};
    for (const auto& p : args.packages) facts.packages.push_back({p[0], p[1], {}});
    Write(Need(args, "-o"), hkim::sbom::Provenance(facts));
    return 0;
  }
  throw std::invalid_argument("unknown command " + command + " (spdx, provenance)");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "hkim-sbom: error: " << e.what() << '\n';
    return 1;
  }
}
