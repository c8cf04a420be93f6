#include "nccl_api.h"

#include <dlfcn.h>
#include <glob.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace hkim::nccl_check {
namespace {

constexpr const char* kSoname = "libnccl.so.2";

std::vector<std::string> SplitPath(const std::string& list) {
  std::vector<std::string> parts;
  std::stringstream stream(list);
  std::string part;
  while (std::getline(stream, part, ':')) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::vector<std::string> RealGlob(const std::string& pattern) {
  glob_t matches{};
  std::vector<std::string> paths;
  if (::glob(pattern.c_str(), 0, nullptr, &matches) == 0) {
    for (size_t i = 0; i < matches.gl_pathc; ++i) paths.emplace_back(matches.gl_pathv[i]);
  }
  ::globfree(&matches);
  return paths;  // glob(3) sorts unless GLOB_NOSORT
}

template <typename Function>
void Bind(void* handle, const char* name, Function*& slot, std::string* missing) {
  slot = reinterpret_cast<Function*>(::dlsym(handle, name));
  if (slot == nullptr && missing->empty()) *missing = name;
}

// Loads one candidate into `api`; returns "" or why it cannot be used.
std::string TryLoad(const std::string& candidate, NcclApi& api) {
  void* handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return why ? why : "cannot be loaded";
  }
  std::string missing;
  Bind(handle, "ncclGetVersion", api.GetVersion, &missing);
  Bind(handle, "ncclGetErrorString", api.GetErrorString, &missing);
  Bind(handle, "ncclGetUniqueId", api.GetUniqueId, &missing);
  Bind(handle, "ncclCommInitRank", api.CommInitRank, &missing);
  Bind(handle, "ncclCommInitAll", api.CommInitAll, &missing);
  Bind(handle, "ncclCommDestroy", api.CommDestroy, &missing);
  Bind(handle, "ncclCommAbort", api.CommAbort, &missing);
  Bind(handle, "ncclCommGetAsyncError", api.CommGetAsyncError, &missing);
  Bind(handle, "ncclAllReduce", api.AllReduce, &missing);
  Bind(handle, "ncclGroupStart", api.GroupStart, &missing);
  Bind(handle, "ncclGroupEnd", api.GroupEnd, &missing);
  api.GetLastError = reinterpret_cast<const char* (*)(ncclComm_t)>(
      ::dlsym(handle, "ncclGetLastError"));
  if (!missing.empty()) {
    ::dlclose(handle);
    return "not an NCCL library (no " + missing + ")";
  }
  int code = 0;
  if (api.GetVersion(&code) != ncclSuccess || code < kMinNcclVersionCode) {
    ::dlclose(handle);
    return "NCCL " + FormatNcclVersion(code) + " is older than the " +
           FormatNcclVersion(kMinNcclVersionCode) + " the check needs";
  }
  api.version_code = code;
  api.version = FormatNcclVersion(code);
  api.path = candidate;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(api.GetVersion), &info) != 0 && info.dli_fname != nullptr) {
    api.path = info.dli_fname;
  }
  return "";
}

NcclLoad Search() {
  const EnvLookup env = [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
  NcclLoad load;
  static NcclApi api;
  for (const std::string& candidate : NcclCandidates(env, RealGlob)) {
    const std::string why = TryLoad(candidate, api);
    if (why.empty()) {
      load.api = &api;
      return load;
    }
    load.tried.push_back(candidate + ": " + why);
  }
  if (env("HKIM_NCCL_LIBRARY")) {
    load.error = "HKIM_NCCL_LIBRARY='" + *env("HKIM_NCCL_LIBRARY") + "' is not a usable NCCL";
    load.fix = "point HKIM_NCCL_LIBRARY at the training image's libnccl.so.2 (NCCL >= " +
               FormatNcclVersion(kMinNcclVersionCode) + "), or unset it to search";
  } else {
    load.error = "no usable libnccl.so.2 (NCCL >= " + FormatNcclVersion(kMinNcclVersionCode) +
                 ") in this image";
    load.fix = "run the check in the training image that has NCCL (NGC PyTorch, a PyTorch "
               "wheel's nvidia-nccl), set HKIM_NCCL_LIBRARY to its libnccl.so.2, or set "
               "HKIM_NCCL_CHECK=off";
  }
  return load;
}

}  // namespace

std::vector<std::string> NcclCandidates(const EnvLookup& env, const PathGlob& glob) {
  if (const auto explicit_path = env("HKIM_NCCL_LIBRARY"); explicit_path && !explicit_path->empty()) {
    return {*explicit_path};
  }
  std::vector<std::string> candidates;
  if (const auto library_path = env("LD_LIBRARY_PATH")) {
    for (const std::string& dir : SplitPath(*library_path)) {
      for (const std::string& path : glob(dir + "/" + kSoname)) candidates.push_back(path);
    }
  }
  std::vector<std::string> package_dirs;
  const auto add_prefix = [&](const std::string& prefix) {
    for (const char* kind : {"site-packages", "dist-packages"}) {
      for (const std::string& dir : glob(prefix + "/lib/python3*/" + kind)) {
        package_dirs.push_back(dir);
      }
    }
  };
  if (const auto venv = env("VIRTUAL_ENV")) add_prefix(*venv);
  if (const auto conda = env("CONDA_PREFIX")) add_prefix(*conda);
  // The python3 the job would start: images often put a venv's bin/ on PATH without
  // VIRTUAL_ENV (e.g. /opt/torch/.venv/bin), and its packages are beside it.
  if (const auto path = env("PATH")) {
    for (const std::string& dir : SplitPath(*path)) {
      const std::string bin = "/bin";
      if (dir.size() <= bin.size() || dir.compare(dir.size() - bin.size(), bin.size(), bin) != 0) {
        continue;
      }
      if (!glob(dir + "/python3").empty()) add_prefix(dir.substr(0, dir.size() - bin.size()));
    }
  }
  if (const auto python_path = env("PYTHONPATH")) {
    for (const std::string& dir : SplitPath(*python_path)) package_dirs.push_back(dir);
  }
  for (const char* prefix : {"/opt/conda", "/usr/local", "/usr"}) add_prefix(prefix);
  // Debian's and Ubuntu's python3 keep system packages in /usr/lib/python3/dist-packages.
  package_dirs.push_back("/usr/lib/python3/dist-packages");
  for (const std::string& dir : package_dirs) {
    for (const char* relative : {"/nvidia/nccl/lib/", "/torch/lib/"}) {
      for (const std::string& path : glob(dir + relative + kSoname)) candidates.push_back(path);
    }
  }
  // Last, the loader's own search by name: /etc/ld.so.cache and the system folders, where NGC
  // images (whose PyTorch is built against that NCCL) install it.
  candidates.push_back(kSoname);
  std::vector<std::string> unique;
  for (const std::string& candidate : candidates) {
    if (std::find(unique.begin(), unique.end(), candidate) == unique.end()) {
      unique.push_back(candidate);
    }
  }
  return unique;
}

std::string FormatNcclVersion(int code) {
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." +
         std::to_string(code % 100);
}

NcclLoad LoadNcclApi() {
  static const NcclLoad load = Search();
  return load;
}

}  // namespace hkim::nccl_check
