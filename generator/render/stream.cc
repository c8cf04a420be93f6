#include "render/render.h"

// A rendered bundle as one YAML stream (`render` without -d, like helm template): every file's
// header and text after a `---`, kustomizations left out.

#include <ostream>
#include <sstream>

namespace hkim {

std::string FileHeader(const RenderedFile& file) {
  return "# Source: templates/" + file.template_name + "\n";
}

std::string FileText(const RenderedFile& file) { return FileHeader(file) + file.content; }

void WriteStream(const RenderedBundle& bundle, std::ostream& out) {
  for (const RenderedFile& file : bundle.files) {
    // Kustomizations (the root one and one per layer) are not Kubernetes objects.
    const std::string& name = file.file_name;
    if (name == "kustomization.yaml" ||
        (name.size() > 19 && name.compare(name.size() - 19, 19, "/kustomization.yaml") == 0)) {
      continue;
    }
    out << "---\n" << FileHeader(file) << file.content;
  }
}

std::string BundleStream(const RenderedBundle& bundle) {
  std::ostringstream out;
  WriteStream(bundle, out);
  return out.str();
}

}  // namespace hkim
