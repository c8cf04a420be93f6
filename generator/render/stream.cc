#include "render/render.h"

// A rendered bundle as one YAML stream (`render` without -d, like helm template): every file's
// header and text after a `---`, kustomizations left out.

#include <ostream>
#include <sstream>

namespace hkim {

bool IsMarkdown(const std::string& file_name) {
  return file_name.size() >= 3 && file_name.compare(file_name.size() - 3, 3, ".md") == 0;
}

std::string FileHeader(const RenderedFile& file) {
  // In Markdown a "# " line is a heading: the README gets an HTML comment instead.
  if (IsMarkdown(file.file_name)) return "<!-- Source: templates/" + file.template_name + " -->\n";
  return "# Source: templates/" + file.template_name + "\n";
}

std::string FileText(const RenderedFile& file) { return FileHeader(file) + file.content; }

void WriteStream(const RenderedBundle& bundle, std::ostream& out) {
  for (const RenderedFile& file : bundle.files) {
    // Kustomizations (the root one and one per layer) and the README are not Kubernetes objects.
    const std::string& name = file.file_name;
    if (name == "kustomization.yaml" || IsMarkdown(name) ||
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
