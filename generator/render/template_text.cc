#include "render/template_text.h"

#include <optional>

namespace hkim {
namespace {

constexpr std::string_view kWhitespace = " \t\n\v\f\r";  // \s of the expressions replaced

/// A tag `{{S name}}` with S one of `sigils`, found at `at`: S, the name without the whitespace
/// around it, and where the tag ends. The name holds no `}`.
struct SigilTag {
  char sigil;
  std::string_view name;
  size_t end;
};

std::optional<SigilTag> TagAt(std::string_view text, size_t at, std::string_view sigils) {
  if (text.compare(at, 2, "{{") != 0 || at + 2 >= text.size()) return std::nullopt;
  const char sigil = text[at + 2];
  if (sigils.find(sigil) == std::string_view::npos) return std::nullopt;
  const size_t close = text.find('}', at + 3);
  if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != '}') {
    return std::nullopt;
  }
  std::string_view name = text.substr(at + 3, close - (at + 3));
  const size_t first = name.find_first_not_of(kWhitespace);
  name = first == std::string_view::npos
             ? std::string_view()
             : name.substr(first, name.find_last_not_of(kWhitespace) - first + 1);
  return SigilTag{sigil, name, close + 2};
}

/// The tag of a standalone line (`[ \t]*{{X...}}[ \t]*\r?`, X one of # ^ / !), if it is one.
std::optional<std::string_view> StandaloneTag(std::string_view line) {
  const size_t at = line.find_first_not_of(" \t");
  if (at == std::string_view::npos || line.compare(at, 2, "{{") != 0 || at + 2 >= line.size() ||
      std::string_view("#^/!").find(line[at + 2]) == std::string_view::npos) {
    return std::nullopt;
  }
  const size_t close = line.find('}', at + 3);
  if (close == std::string_view::npos || close + 1 >= line.size() || line[close + 1] != '}') {
    return std::nullopt;
  }
  std::string_view rest = line.substr(close + 2);
  if (!rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
  if (rest.find_first_not_of(" \t") != std::string_view::npos) return std::nullopt;
  return line.substr(at, close + 2 - at);
}

}  // namespace

std::string JoinStandaloneTags(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    const bool has_newline = end != std::string_view::npos;
    const std::string_view line =
        text.substr(start, has_newline ? end - start : std::string_view::npos);
    if (std::optional<std::string_view> tag = StandaloneTag(line)) {
      out += *tag;
    } else {
      out += line;
      if (has_newline) out += '\n';
    }
    if (!has_newline) break;
    start = end + 1;
  }
  return out;
}

std::string MarkSections(std::string_view source) {
  const std::string joined = JoinStandaloneTags(source);
  const std::string_view text = joined;
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  size_t done = 0;
  for (size_t at = text.find("{{"); at != std::string_view::npos; at = text.find("{{", at + 1)) {
    if (at < done) continue;  // inside a tag already replaced
    std::optional<SigilTag> tag = TagAt(text, at, "#^/");
    if (!tag) continue;
    out.append(text, done, at - done);
    out += "{{";
    out += tag->sigil;
    out += '?';
    out += tag->name;
    out += "}}";
    done = tag->end;
  }
  out.append(text, done, std::string_view::npos);
  return out;
}

std::string ExpandPartials(std::string_view text,
                           const std::function<const std::string*(const std::string&)>& source,
                           int depth) {
  if (text.find("{{>") == std::string_view::npos) return std::string(text);
  std::string out;
  size_t done = 0;
  for (size_t at = text.find("{{"); at != std::string_view::npos; at = text.find("{{", at + 1)) {
    std::optional<SigilTag> tag = TagAt(text, at, ">");
    if (!tag) continue;
    const std::string* partial = source(std::string(tag->name) + ".mustache");
    // A missing partial, or one nested too deep, keeps its tag.
    if (partial && depth < kMaxPartialDepth) {
      out.append(text, done, at - done);
      out += ExpandPartials(MarkSections(*partial), source, depth + 1);
      done = tag->end;
    }
    at = tag->end - 1;  // tags do not overlap
  }
  out.append(text, done, std::string_view::npos);
  return out;
}

bool HasPartialTag(std::string_view text) {
  for (size_t at = text.find("{{"); at != std::string_view::npos; at = text.find("{{", at + 1)) {
    const size_t first = text.find_first_not_of(kWhitespace, at + 2);
    if (first != std::string_view::npos && text[first] == '>') return true;
  }
  return false;
}

std::string MarkLiteralSpaces(std::string text) {
  auto literal = [&text](size_t i) {  // a non-space literal character (not a line break)
    const char c = text[i];
    return c != ' ' && c != '\t' && c != '\n' && c != '\r';
  };
  size_t segment = 0;  // start of the current text between tags
  while (segment < text.size()) {
    const size_t tag = text.find("{{", segment);
    const size_t end = tag == std::string::npos ? text.size() : tag;
    for (size_t i = segment; i < end;) {
      if (text[i] != ' ') {
        ++i;
        continue;
      }
      size_t run_end = i;
      while (run_end < end && text[run_end] == ' ') ++run_end;
      const bool before = i > segment && literal(i - 1);
      const bool after = run_end < end && literal(run_end);
      if (before || after) std::fill(text.begin() + i, text.begin() + run_end, kHiddenSpace);
      i = run_end;
    }
    if (tag == std::string::npos) break;
    const bool triple = text.compare(tag, 3, "{{{") == 0;
    const size_t close = text.find(triple ? "}}}" : "}}", tag + 2);
    if (close == std::string::npos) break;  // kainjow reports the unclosed tag
    segment = close + (triple ? 3 : 2);
  }
  return text;
}

}  // namespace hkim
