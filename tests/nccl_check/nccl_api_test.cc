// The NCCL search order (nccl_api.h) and the loader's refusals, without a GPU or NCCL.
#include "nccl_api.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace hkim::nccl_check {
namespace {

struct FakeSystem {
  std::map<std::string, std::string> env;
  std::set<std::string> files;  // paths that exist; patterns match by fnmatch-free prefix rules

  EnvLookup Env() const {
    return [this](const std::string& name) -> std::optional<std::string> {
      const auto it = env.find(name);
      if (it == env.end()) return std::nullopt;
      return it->second;
    };
  }
  // Understands the one wildcard the search uses: "python3*" as a path component.
  PathGlob Glob() const {
    return [this](const std::string& pattern) {
      std::vector<std::string> out;
      const std::size_t star = pattern.find('*');
      for (const std::string& file : files) {
        if (star == std::string::npos) {
          if (file == pattern) out.push_back(file);
          continue;
        }
        const std::string head = pattern.substr(0, star);
        const std::string tail = pattern.substr(star + 1);
        if (file.size() < head.size() + tail.size()) continue;
        if (file.compare(0, head.size(), head) != 0) continue;
        if (file.compare(file.size() - tail.size(), tail.size(), tail) != 0) continue;
        const std::string middle = file.substr(head.size(), file.size() - head.size() - tail.size());
        if (middle.find('/') == std::string::npos) out.push_back(file);
      }
      return out;
    };
  }
};

TEST(NcclCandidates, ExplicitVariableIsTheOnlyCandidate) {
  FakeSystem fake;
  fake.env["HKIM_NCCL_LIBRARY"] = "/opt/nccl/libnccl.so.2";
  fake.env["LD_LIBRARY_PATH"] = "/usr/lib/x";
  fake.files = {"/usr/lib/x/libnccl.so.2"};
  EXPECT_EQ(NcclCandidates(fake.Env(), fake.Glob()),
            std::vector<std::string>{"/opt/nccl/libnccl.so.2"});
}

TEST(NcclCandidates, LibraryPathThenPytorchWheelsThenTheLoadersSearch) {
  FakeSystem fake;
  fake.env["LD_LIBRARY_PATH"] = "/missing:/usr/local/nccl/lib::/opt/b";
  fake.env["VIRTUAL_ENV"] = "/venv";
  fake.files = {
      "/usr/local/nccl/lib/libnccl.so.2",
      "/opt/b/libnccl.so.2",
      "/venv/lib/python3.12",
      "/venv/lib/python3.12/site-packages",
      "/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2",
      "/usr/local/lib/python3.10",
      "/usr/local/lib/python3.10/dist-packages",
      "/usr/local/lib/python3.10/dist-packages/torch/lib/libnccl.so.2",
  };
  // The glob stub matches "python3*" against these directory entries.
  fake.files.insert("/venv/lib/python3.12/site-packages");
  EXPECT_EQ(NcclCandidates(fake.Env(), fake.Glob()),
            (std::vector<std::string>{
                "/usr/local/nccl/lib/libnccl.so.2",
                "/opt/b/libnccl.so.2",
                "/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2",
                "/usr/local/lib/python3.10/dist-packages/torch/lib/libnccl.so.2",
                "libnccl.so.2",
            }));
}

TEST(NcclCandidates, AVenvOnPathWithoutVirtualEnvIsSearched) {
  FakeSystem fake;
  fake.env["PATH"] = "/usr/bin:/opt/torch/.venv/bin:/sbin";
  fake.files = {
      "/opt/torch/.venv/bin/python3",
      "/opt/torch/.venv/lib/python3.12/site-packages",
      "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2",
  };
  EXPECT_EQ(NcclCandidates(fake.Env(), fake.Glob()),
            (std::vector<std::string>{
                "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2",
                "libnccl.so.2",
            }));
}

TEST(NcclCandidates, AFolderNamedTwiceIsTriedOnce) {
  FakeSystem fake;
  fake.env["LD_LIBRARY_PATH"] = "/a:/a";
  fake.env["PYTHONPATH"] = "/usr/lib/python3/dist-packages";
  fake.files = {"/a/libnccl.so.2", "/usr/lib/python3/dist-packages/nvidia/nccl/lib/libnccl.so.2"};
  EXPECT_EQ(NcclCandidates(fake.Env(), fake.Glob()),
            (std::vector<std::string>{
                "/a/libnccl.so.2",
                "/usr/lib/python3/dist-packages/nvidia/nccl/lib/libnccl.so.2",
                "libnccl.so.2",
            }));
}

TEST(NcclVersion, FormatsTheVersionCode) {
  EXPECT_EQ(FormatNcclVersion(22809), "2.28.9");
  EXPECT_EQ(FormatNcclVersion(kMinNcclVersionCode), "2.12.0");
}

}  // namespace
}  // namespace hkim::nccl_check
