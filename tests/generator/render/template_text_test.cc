#include "render/template_text.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "support/embedded_files.h"
#include "test_files.h"

namespace hkim {
namespace {

using test_files::AllStrings;

// The expressions the scanners replaced, kept here as their specification.
std::string RegexJoinStandaloneTags(const std::string& text) {
  static const std::regex standalone(R"([ \t]*(\{\{[#^/!][^}]*\}\})[ \t]*\r?)");
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    const bool has_newline = end != std::string::npos;
    std::string line = text.substr(start, has_newline ? end - start : std::string::npos);
    std::smatch match;
    if (std::regex_match(line, match, standalone)) {
      out += match[1].str();
    } else {
      out += line;
      if (has_newline) out += '\n';
    }
    if (!has_newline) break;
    start = end + 1;
  }
  return out;
}

std::string RegexMarkSections(const std::string& text) {
  static const std::regex section(R"(\{\{([#^/])\s*([^}]*?)\s*\}\})");
  return std::regex_replace(RegexJoinStandaloneTags(text), section, "{{$1?$2}}");
}

std::string RegexExpandPartials(const std::string& text,
                                const std::function<const std::string*(const std::string&)>& source,
                                int depth) {
  static const std::regex partial_tag(R"(\{\{>\s*([^}]*?)\s*\}\})");
  if (text.find("{{>") == std::string::npos) return text;
  std::string out;
  size_t done = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), partial_tag);
       it != std::sregex_iterator(); ++it) {
    const std::string* partial = source((*it)[1].str() + ".mustache");
    if (!partial || depth >= kMaxPartialDepth) continue;
    out.append(text, done, static_cast<size_t>(it->position(0)) - done);
    out += RegexExpandPartials(RegexMarkSections(*partial), source, depth + 1);
    done = static_cast<size_t>(it->position(0) + it->length(0));
  }
  out.append(text, done, std::string::npos);
  return out;
}

const std::vector<std::string>& TrickyTexts() {
  static const std::vector<std::string> texts = {
      "  {{#a}}\n  x: 1\n  {{/a}}\n",
      "\t{{^ b }}  \r\nkey: v\n{{/ b }}\r\n",
      "{{! comment }}\n{{#a}}{{/a}}\n",
      "{{{#a}}}\n{{#a}b}}\n{{#}}\n{{# }}\n{{#a\n}}\n",
      "x {{#a}} y\n{{#a}}\n{{/a}} z\n",
      "{{>common/labels}}\n  {{> common/labels }}\n{{>missing}}\n{{>}}{{> }}\n",
      "{{>loop}}\n",
      "{{{>common/labels}}}\n{{>common/labels}",
      "",
      "no tags at all\n",
  };
  return texts;
}

TEST(TemplateText, ScannersMarkExactlyWhatTheOldExpressionsDid) {
  for (const std::string& text : AllStrings("{}#/> \n", 6)) {
    ASSERT_EQ(JoinStandaloneTags(text), RegexJoinStandaloneTags(text)) << "'" << text << "'";
    ASSERT_EQ(MarkSections(text), RegexMarkSections(text)) << "'" << text << "'";
  }
  for (const std::string& text : AllStrings("{}^!\t\r\na", 5)) {
    ASSERT_EQ(MarkSections(text), RegexMarkSections(text)) << "'" << text << "'";
  }
  for (const std::string& text : TrickyTexts()) {
    EXPECT_EQ(MarkSections(text), RegexMarkSections(text)) << "'" << text << "'";
  }
  for (const auto& [name, text] : EmbeddedTemplates()) {
    EXPECT_EQ(MarkSections(std::string(text)), RegexMarkSections(std::string(text))) << name;
  }
}

TEST(TemplateText, ExpandsPartialsExactlyAsTheOldExpressionDid) {
  std::map<std::string, std::string> sources;
  for (const auto& [name, text] : EmbeddedTemplates()) sources[name] = std::string(text);
  sources["loop.mustache"] = "l {{> loop}}\n";
  sources["a.mustache"] = "{{#on}}\n  a: 1\n{{/on}}\n";
  auto source = [&sources](const std::string& name) -> const std::string* {
    auto it = sources.find(name);
    return it == sources.end() ? nullptr : &it->second;
  };
  std::vector<std::string> texts = TrickyTexts();
  for (const std::string& text : AllStrings("{}>a ", 7)) texts.push_back(text);
  for (const auto& [name, text] : sources) texts.push_back(text);
  for (const std::string& text : texts) {
    const std::string marked = MarkSections(text);
    ASSERT_EQ(ExpandPartials(marked, source), RegexExpandPartials(marked, source, 0))
        << "'" << text << "'";
  }
}

TEST(TemplateText, FindsEveryTagKainjowTakesForAPartial) {
  EXPECT_TRUE(HasPartialTag("a: {{>common/labels}}\n"));
  EXPECT_TRUE(HasPartialTag("{{ > spaced }}"));
  EXPECT_TRUE(HasPartialTag("{{\n>x}}"));
  EXPECT_FALSE(HasPartialTag("a: {{x}} > b\n{{#?s}}>{{/?s}}"));
  EXPECT_FALSE(HasPartialTag("{{"));
}

TEST(TemplateText, HidesOnlySpacesThatTouchLiteralText) {
  const std::string h(1, kHiddenSpace);
  EXPECT_EQ(MarkLiteralSpaces("  key: value\n"), h + h + "key:" + h + "value\n");
  // Next to a tag or a line break only: kainjow must still see them (whitespace-only lines).
  EXPECT_EQ(MarkLiteralSpaces("  {{#?a}}  {{/?a}}  \n"), "  {{#?a}}  {{/?a}}  \n");
  EXPECT_EQ(MarkLiteralSpaces("x: {{v}} # {{{w}}} y\n"),
            "x:" + h + "{{v}}" + h + "#" + h + "{{{w}}}" + h + "y\n");
  // Spaces inside tags are the tag's own.
  EXPECT_EQ(MarkLiteralSpaces("{{ a b }}"), "{{ a b }}");
  EXPECT_EQ(MarkLiteralSpaces("a {{unclosed b"), "a" + h + "{{unclosed b");
}

}  // namespace
}  // namespace hkim
