#include "schema/pattern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdexcept>
#include <valijson/constraint_builder.hpp>
#include <valijson/constraints/concrete_constraints.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>

#include "schema/keyword_rename.h"

namespace hkim {
namespace {

/// Where Pcre2PatternKeywords moves `pattern`: a name valijson ignores unless taught.

/// What valijson's PatternConstraint reports, word for word: validate/validate.cc reads it.
constexpr const char* kMismatch = "Failed to match regex specified by 'pattern' constraint.";

class Pcre2PatternConstraint : public valijson::constraints::PolyConstraint {
 public:
  explicit Pcre2PatternConstraint(SchemaPattern pattern) : pattern_(std::move(pattern)) {}

  bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    if (!target.isString()) return true;  // as valijson's strict types: only strings
    if (pattern_.Search(target.asString())) return true;
    if (results) results->pushError(context, kMismatch);
    return false;
  }

 private:
  Constraint* cloneInto(void* memory) const override {
    return new (memory) Pcre2PatternConstraint(*this);
  }
  size_t sizeOf() const override { return sizeof(Pcre2PatternConstraint); }

  SchemaPattern pattern_;
};

class Pcre2PatternBuilder : public valijson::ConstraintBuilder {
 public:
  valijson::constraints::Constraint* make(
      const valijson::adapters::Adapter& value) const override {
    std::string pattern;
    if (!value.getString(pattern)) {
      throw std::runtime_error("a 'pattern' that is not a string");
    }
    return new Pcre2PatternConstraint(SchemaPattern(pattern));
  }
};

}  // namespace

struct SchemaPattern::Compiled {
  std::string pattern;
  pcre2_code* code = nullptr;
  ~Compiled() { pcre2_code_free(code); }
};

SchemaPattern::SchemaPattern(const std::string& pattern) {
  auto compiled = std::make_shared<Compiled>();
  compiled->pattern = pattern;
  int error = 0;
  PCRE2_SIZE offset = 0;
  compiled->code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                    PCRE2_DOLLAR_ENDONLY, &error, &offset, nullptr);
  if (compiled->code == nullptr) {
    PCRE2_UCHAR reason[256];
    pcre2_get_error_message(error, reason, sizeof reason);
    throw std::runtime_error("the pattern '" + pattern + "' is not a regular expression (" +
                             reinterpret_cast<const char*>(reason) + " at offset " +
                             std::to_string(offset) + ")");
  }
  compiled_ = std::move(compiled);
}

bool SchemaPattern::Search(std::string_view text) const {
  // Match data per call: the compiled pattern is shared between threads, match data is not.
  std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> match(
      pcre2_match_data_create_from_pattern(compiled_->code, nullptr), pcre2_match_data_free);
  if (!match) throw std::bad_alloc();
  const int found = pcre2_match(compiled_->code, reinterpret_cast<PCRE2_SPTR>(text.data()),
                                text.size(), 0, 0, match.get(), nullptr);
  if (found >= 0) return true;
  if (found == PCRE2_ERROR_NOMATCH) return false;
  throw std::runtime_error("matching the pattern '" + compiled_->pattern + "' failed (PCRE2 " +
                           std::to_string(found) + ")");
}

Pcre2PatternKeywords::Pcre2PatternKeywords(nlohmann::json& schema)
    : RenamedSchemaKeyword(schema, "pattern", kPcre2PatternKeyword,
                           nlohmann::json::value_t::string) {}

void UsePcre2Patterns(valijson::SchemaParser& parser) {
  parser.addConstraintBuilder(kPcre2PatternKeyword, new Pcre2PatternBuilder);  // parser owns it
}

}  // namespace hkim
