#pragma once

// How a changed manifest is shown in `diff` (issue 40): a value that is a multi-line text in a
// double-quoted scalar (a NAD's CNI config, pretty JSON written as "{\n  \"cniVersion\"...") is
// one 600-character line in the file; shown as its own lines, a change to one field of it is a
// one-line change in the diff.

#include <string>

namespace hkim {

/// `yaml_text` with every `key: "..."` line whose value holds a newline replaced by
/// `key: |` and the value's lines, indented two spaces deeper: for display only (the YAML
/// means the same up to the final newline; the file is compared byte for byte elsewhere).
std::string ExpandQuotedMultilineValues(const std::string& yaml_text);

}  // namespace hkim
