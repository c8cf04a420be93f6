#pragma once
// The upstream-schema validator (../shared/tools/validate-upstream/run) run over rendered files,
// as the API server would judge them. A test skips where the tool or npm is missing, or where
// npm could not install the validator (no registry): `skip` then says why.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

namespace hkim::test_files {

struct UpstreamVerdict {
  std::string skip;  ///< non-empty: the validator could not run, and why
  int status = 0;    ///< its exit status: 0 = every file valid
  std::string text;  ///< what it printed
};

inline UpstreamVerdict ValidateUpstream(const std::vector<std::string>& files) {
  UpstreamVerdict v;
  const std::filesystem::path tool =
      std::filesystem::path(HKIM_SHARED_DIR) / "tools/validate-upstream/run";
  if (!std::filesystem::exists(tool)) return {tool.string() + " is absent", 0, ""};
  if (std::system("command -v npm > /dev/null 2>&1") != 0) return {"needs node and npm", 0, ""};
  char pattern[] = "/tmp/hkim-upstream.XXXXXX";
  const std::string out = std::string(::mkdtemp(pattern)) + "/out";
  std::string command = "'" + tool.string() + "' --quiet";
  for (const std::string& file : files) command += " '" + file + "'";
  command += " > '" + out + "' 2>&1";
  v.status = WEXITSTATUS(std::system(command.c_str()));
  std::ifstream in(out);
  v.text.assign(std::istreambuf_iterator<char>(in), {});
  if (v.status == 2 && v.text.find("npm ci failed") != std::string::npos) v.skip = v.text;
  return v;
}

/// The API objects under `dir`, sorted: every *.yaml file but kustomization.yaml (kustomize's
/// input, with no upstream schema); the bundle marker .hkimgen-bundle has no .yaml extension.
inline std::vector<std::string> ManifestsUnder(const std::filesystem::path& dir) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml" &&
        entry.path().filename() != "kustomization.yaml")
      files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace hkim::test_files
