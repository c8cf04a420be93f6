#pragma once

// Images stage (after render): every image reference a bundle makes the cluster pull, from the
// plan's typed record of them: each planned object's image needs (plan/requirements.h
// NeedImage), with the field of the rendered object that names the reference; the OLM packages
// (PlannedObject::subscription) and Helm charts (PlannedObject::chart) whose operators pull
// images of their own choosing; and the image the README's precondition checks run. Nothing is
// parsed back from the rendered documents: tests/generator/images/plan_vs_rendered_test.cc reads
// every rendered document of every shipped profile and init starter on its own and holds the two
// equal, origin by origin, so the list cannot drift from what the bundle says.
//
// What the rendered documents count as an image reference (in any object, chart values included):
//  - a string `image` field (pod and init containers of every workload kind, the NFD operand);
//  - a mapping with string `repository` and `image` (NicClusterPolicy, ClusterPolicy
//    components): repository/image, then `:version` or `@version` for a digest;
//  - a mapping with string `repository` and `tag` (the common Helm values shape).

#include <map>
#include <string>
#include <vector>

#include "plan/plan.h"

namespace hkim {

/// Where one image reference was found.
struct ImageOrigin {
  std::string bundle;  ///< the bundle's name (cluster)
  std::string file;    ///< file name inside the bundle, e.g. "workload/70-statefulset-x.yaml"
  std::string object;  ///< Kind/namespace/name (Kind/name when cluster-scoped)
  std::string field;   ///< e.g. spec.template.spec.initContainers[0].image
};

struct ImageUse {
  std::string image;  ///< the reference as the cluster pulls it
  std::vector<ImageOrigin> origins;
};

/// An operator installed through OLM: its images come from the catalog's bundle.
struct OlmPackage {
  std::string package;
  std::string channel;
  std::string source;  ///< CatalogSource name
  std::string source_namespace;
  std::string catalog;  ///< catalog index image ("" when the source is not a known one)
  ImageOrigin origin;
};

/// A Helm chart an Argo CD Application installs: its images are the chart's.
struct HelmChart {
  std::string repo_url;
  std::string chart;
  std::string version;  ///< targetRevision
  ImageOrigin origin;
};

/// What one or several bundles pull: images sorted by reference (each with every origin, in
/// bundle then file order), packages and charts sorted and without duplicates.
struct BundleImages {
  std::vector<ImageUse> images;
  std::vector<OlmPackage> packages;
  std::vector<HelmChart> charts;
};

/// Catalog source name -> its index image (what oc-mirror's `catalog:` takes).
using CatalogIndex = std::map<std::string, std::string>;

/// The index images of OpenShift's default catalog sources for `openshift_version` ("4.19";
/// none when empty: DefaultCatalogImage), plus each mirrored source of `mirrored_sources`
/// (images.catalog_sources: default source -> the CatalogSource oc-mirror generated) under the
/// default source's index image, so that a mirrored bundle still names its catalogs.
CatalogIndex KnownCatalogs(const std::string& openshift_version,
                           const std::map<std::string, std::string>& mirrored_sources = {});

/// The image references, packages and charts of the bundle `plan` renders, from the plan itself;
/// each package's catalog from `catalogs` ("" when its source is not there). The origins name
/// the file each object is written to, its Kind/namespace/name and the field (Need::field).
BundleImages CollectImages(const BundlePlan& plan, const CatalogIndex& catalogs);

/// `from` added to `into`: same image, package or chart once, origins joined; order kept sorted.
void MergeImages(BundleImages& into, const BundleImages& from);

/// The index image of one of OpenShift's default catalog sources (redhat-operators,
/// certified-operators, community-operators, redhat-marketplace) for an OpenShift minor
/// version: registry.redhat.io/redhat/<name>-index:v<version>; "" for any other source.
std::string DefaultCatalogImage(const std::string& source, const std::string& openshift_version);

/// The registry part of an image reference ("docker.io" when the first component is not a host:
/// it has no '.', ':' and is not "localhost").
std::string ImageRegistry(const std::string& image);

}  // namespace hkim
