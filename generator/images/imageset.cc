#include "images/imageset.h"

#include <yaml-cpp/yaml.h>

#include <map>
#include <set>
#include <vector>

namespace hkim {

std::string HelmRepositoryName(const std::string& url) {
  std::string rest = url;
  const size_t scheme = rest.find("://");
  if (scheme != std::string::npos) rest = rest.substr(scheme + 3);
  std::string name;
  for (char c : rest) {
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    const bool keep = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9');
    if (keep) {
      name += lower;
    } else if (!name.empty() && name.back() != '-') {
      name += '-';
    }
  }
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name;
}

namespace {

/// catalog -> package -> channels
using CatalogPackages = std::map<std::string, std::map<std::string, std::set<std::string>>>;
/// repository url -> chart -> versions
using RepositoryCharts = std::map<std::string, std::map<std::string, std::set<std::string>>>;

/// The bundle's OLM packages by catalog; a package whose catalog is unknown is reported
/// ("images.unknown-catalog") and left out.
CatalogPackages PackagesByCatalog(const BundleImages& images, DiagnosticSink& sink) {
  CatalogPackages catalogs;
  for (const OlmPackage& package : images.packages) {
    if (package.catalog.empty()) {
      sink.Report(Diagnostic{
          Severity::kError, SourceLocation{package.origin.file, 0, 0}, "", "images.unknown-catalog",
          "the Subscription " + package.origin.object + " (bundle " + package.origin.bundle +
              ") installs " + package.package + " from the catalog source '" + package.source +
              "', whose index image oc-mirror would need is not known",
          "render the ImageSetConfiguration from the profile without images.mirror (its "
          "Subscriptions name redhat-operators, certified-operators, community-operators or "
          "redhat-marketplace), or add the catalog to imageset.yaml by hand"});
      continue;
    }
    std::set<std::string>& channels = catalogs[package.catalog][package.package];
    if (!package.channel.empty()) channels.insert(package.channel);
  }
  return catalogs;
}

void EmitOperators(const CatalogPackages& catalogs, YAML::Emitter& out) {
  out << YAML::Key << "operators" << YAML::Value << YAML::BeginSeq;
  for (const auto& [catalog, packages] : catalogs) {
    out << YAML::BeginMap << YAML::Key << "catalog" << YAML::Value << catalog;
    out << YAML::Key << "packages" << YAML::Value << YAML::BeginSeq;
    for (const auto& [name, channels] : packages) {
      out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name;
      if (!channels.empty()) {
        out << YAML::Key << "channels" << YAML::Value << YAML::BeginSeq;
        for (const std::string& channel : channels) {
          out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted
              << channel << YAML::EndMap;
        }
        out << YAML::EndSeq;
      }
      out << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

void EmitHelm(const RepositoryCharts& repositories, YAML::Emitter& out) {
  out << YAML::Key << "helm" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "repositories" << YAML::Value << YAML::BeginSeq;
  for (const auto& [url, charts] : repositories) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << HelmRepositoryName(url);
    out << YAML::Key << "url" << YAML::Value << url;
    out << YAML::Key << "charts" << YAML::Value << YAML::BeginSeq;
    for (const auto& [name, versions] : charts) {
      for (const std::string& version : versions) {
        out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name;
        // Quoted: a version or channel such as 4.19 must not read back as a number (oc-mirror
        // reads the file through JSON into string fields).
        if (!version.empty())
          out << YAML::Key << "version" << YAML::Value << YAML::DoubleQuoted << version;
        out << YAML::EndMap;
      }
    }
    out << YAML::EndSeq << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
}

void EmitAdditionalImages(const std::vector<ImageUse>& images, YAML::Emitter& out) {
  out << YAML::Key << "additionalImages" << YAML::Value << YAML::BeginSeq;
  for (const ImageUse& use : images) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << use.image << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

}  // namespace

// The field names and nesting follow oc-mirror's v2 API types:
// github.com/openshift/oc-mirror v2/internal/pkg/api/v2alpha1/type_config.go
// (ImageSetConfiguration, Mirror{operators, additionalImages, helm}, Operator{catalog, packages},
// Helm{repositories}, Repository{name, url, charts}, Chart{name, version}, Image{name}) and
// type_config_include.go (IncludePackage{name, channels}, IncludeChannel{name}).
std::string ImageSetConfiguration(const BundleImages& images, DiagnosticSink& sink) {
  const CatalogPackages catalogs = PackagesByCatalog(images, sink);
  if (sink.HasErrors()) return "";
  RepositoryCharts repositories;
  for (const HelmChart& chart : images.charts) {
    repositories[chart.repo_url][chart.chart].insert(chart.version);
  }

  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "mirror.openshift.io/v2alpha1";
  out << YAML::Key << "kind" << YAML::Value << "ImageSetConfiguration";
  out << YAML::Key << "mirror" << YAML::Value << YAML::BeginMap;
  if (!catalogs.empty()) EmitOperators(catalogs, out);
  if (!repositories.empty()) EmitHelm(repositories, out);
  if (!images.images.empty()) EmitAdditionalImages(images.images, out);
  out << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace hkim
