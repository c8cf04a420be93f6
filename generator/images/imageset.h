#pragma once

// `hkimgen images -o imageset`: what a bundle pulls (images.h) as an oc-mirror v2
// ImageSetConfiguration, so that `oc-mirror --config imageset.yaml` copies exactly that into
// the mirror registry.

#include <string>

#include "images/images.h"
#include "support/diagnostics.h"

namespace hkim {

/// The ImageSetConfiguration (apiVersion mirror.openshift.io/v2alpha1) as YAML: the OLM catalogs
/// with the bundle's packages and channels, the Helm repositories with the charts the Argo CD
/// Applications install (name and version), and every image reference as additionalImages.
/// A package whose catalog source has no known index image is an error
/// ("images.unknown-catalog"); returns "" then.
std::string ImageSetConfiguration(const BundleImages& images, DiagnosticSink& sink);

/// A Helm repository's name for oc-mirror, from its URL: host and path, every run of
/// characters other than [a-z0-9] one '-' ("https://helm.ngc.nvidia.com/nvidia" ->
/// "helm-ngc-nvidia-com-nvidia").
std::string HelmRepositoryName(const std::string& url);

}  // namespace hkim
