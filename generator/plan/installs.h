#pragma once

// What a planned object installs whose images are chosen elsewhere (PlannedObject::subscription,
// ::chart): an OLM package, whose images its catalog names, and a Helm chart, whose images are
// its own. Typed here so that `hkimgen images` lists them from the plan (images/images.h).

#include <string>

namespace hkim {

/// What an OLM Subscription installs (plan/operators/openshift.cc): the operator's own images come
/// from its catalog, which `hkimgen images` names by these (images/images.h).
struct PlannedSubscription {
  std::string package;
  std::string channel;
  std::string source;  ///< CatalogSource name
  std::string source_namespace;
  std::string starting_csv;  ///< "" when OLM starts at the channel's head
};

/// The Helm chart an Argo CD Application installs (plan/operators/oke.cc), as its spec.source
/// names it: the chart's images are its own.
struct PlannedChart {
  std::string repo_url;
  std::string chart;
  std::string version;  ///< targetRevision
};

}  // namespace hkim
