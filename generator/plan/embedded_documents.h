#pragma once

// How a planned object carries other rendered documents (plan stage -> render stage).

namespace hkim {

/// A context key of a PlannedObject: [{"key", "template", "context"}], documents rendered
/// before the object, each put into its context under `key` as compact JSON text (one string
/// value, quoted by `{{key}}`): how a ConfigMap carries a rendered pod.
inline constexpr const char* kEmbeddedDocuments = "embedded_documents";

}  // namespace hkim
