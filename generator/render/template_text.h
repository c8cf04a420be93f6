#pragma once

// Template text, prepared before kainjow parses it (part of the render stage, render/render.h):
// standalone tag lines joined, section tags marked, partials expanded, literal spaces hidden.
// Plain scanners: each replaces a std::regex that did the same and cost a quarter of a small
// render (template_text_test.cc checks them against those expressions).

#include <functional>
#include <string>
#include <string_view>

namespace hkim {

/// A template's literal space as kainjow sees it (MarkLiteralSpaces); the render turns it back
/// into a space. Rendered values never hold it: strings are escaped, other values are JSON text.
constexpr char kHiddenSpace = '\x03';

/// Nesting deeper than this is taken for a partial that includes itself.
constexpr int kMaxPartialDepth = 8;

/// Mustache drops a line that holds only a section or comment tag ("standalone"); kainjow does
/// so for sections it renders but leaves an empty line behind a skipped one. Removing such
/// lines' indentation and newline gives the spec's output in both cases. A standalone line is
/// `[ \t]*{{X...}}[ \t]*\r?` with X one of # ^ / ! and no `}` inside the tag.
std::string JoinStandaloneTags(std::string_view text);

/// JoinStandaloneTags, then every section tag `{{#name}}`, `{{^name}}`, `{{/name}}` renamed
/// `{{#?name}}` (spaces around the name dropped), so that the render's context can tell a
/// section lookup (which wants a boolean as a boolean) from a variable lookup.
std::string MarkSections(std::string_view text);

/// `text` with each partial tag `{{> name}}` replaced by the partial's text (`source(name +
/// ".mustache")`, itself MarkSections'd and expanded), so that a render does not parse a
/// partial again for every object. A partial that does not exist, or nests deeper than
/// kMaxPartialDepth, keeps its tag (the render reports it).
std::string ExpandPartials(std::string_view text,
                           const std::function<const std::string*(const std::string&)>& source,
                           int depth = 0);

/// Whether `text` holds a tag that kainjow takes for a partial (`{{>x}}`, also `{{ > x}}`),
/// which ExpandPartials left (missing, or nested too deep) or did not expand (spaced).
bool HasPartialTag(std::string_view text);

/// kainjow makes every space of a template a node of its own (to find lines that hold only
/// whitespace and section tags, which it drops): YAML's indentation made parsing a template,
/// and its memory, several times the cost of rendering it. A run of spaces next to a literal
/// non-space character of the same text (no tag between them) is always output together with
/// that character, so its line is never whitespace-only: hiding those spaces as kHiddenSpace
/// changes nothing but the node count. Other spaces (only whitespace and tags around them) stay.
std::string MarkLiteralSpaces(std::string text);

}  // namespace hkim
