#include "schema/unique_items.h"

#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <valijson/constraint_builder.hpp>
#include <valijson/constraints/concrete_constraints.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>

#include "schema/keyword_rename.h"

namespace hkim {
namespace {

using valijson::adapters::Adapter;

void AppendSized(const std::string& text, std::string& out) {
  out += std::to_string(text.size());
  out += ':';
  out += text;
}

/// `value` as a text equal for equal values and different for different ones: each part tagged
/// with its type, strings with their length (no quoting to get wrong), members in the adapter's
/// order (nlohmann's objects are sorted by name).
void AppendCanonical(const Adapter& value, std::string& out) {
  if (value.isObject()) {
    out += '{';
    value.applyToObject([&out](const std::string& name, const Adapter& member) {
      AppendSized(name, out);
      AppendCanonical(member, out);
      return true;
    });
    out += '}';
  } else if (value.isArray()) {
    out += '[';
    value.applyToArray([&out](const Adapter& item) {
      AppendCanonical(item, out);
      return true;
    });
    out += ']';
  } else if (value.isString()) {
    out += 's';
    AppendSized(value.getString(), out);
  } else if (value.isBool()) {
    out += value.getBool() ? 't' : 'f';
  } else if (value.isInteger()) {
    out += 'i' + std::to_string(value.getInteger());
  } else if (value.isDouble()) {
    char digits[32];
    std::snprintf(digits, sizeof digits, "d%.17g", value.getDouble());
    out += digits;
  } else {
    out += 'n';
  }
}

class SortedUniqueItemsConstraint : public valijson::constraints::PolyConstraint {
 public:
  explicit SortedUniqueItemsConstraint(bool wanted) : wanted_(wanted) {}

  bool validate(const Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    // `uniqueItems: false` asks nothing; as valijson's strict types, only lists are checked.
    if (!wanted_ || !target.isArray()) return true;
    std::map<std::string, size_t> first_index;
    size_t index = 0;
    bool unique = true;
    target.applyToArray([&](const Adapter& item) {
      std::string text;
      AppendCanonical(item, text);
      const auto [first, added] = first_index.try_emplace(std::move(text), index);
      if (!added) {
        unique = false;
        if (results) {
          results->pushError(context, "Elements at indexes #" + std::to_string(first->second) +
                                          " and #" + std::to_string(index) +
                                          kRepeatedItemsMessageEnd);
        }
        return false;  // one repeat fails the list; the messages name each (validate stage)
      }
      ++index;
      return true;
    });
    return unique;
  }

 private:
  Constraint* cloneInto(void* memory) const override {
    return new (memory) SortedUniqueItemsConstraint(*this);
  }
  size_t sizeOf() const override { return sizeof(SortedUniqueItemsConstraint); }

  bool wanted_;
};

class SortedUniqueItemsBuilder : public valijson::ConstraintBuilder {
 public:
  valijson::constraints::Constraint* make(const Adapter& value) const override {
    bool wanted = false;
    if (!value.getBool(wanted)) throw std::runtime_error("a 'uniqueItems' that is not a boolean");
    return new SortedUniqueItemsConstraint(wanted);
  }
};

}  // namespace

SortedUniqueItemsKeywords::SortedUniqueItemsKeywords(nlohmann::json& schema)
    : RenamedSchemaKeyword(schema, "uniqueItems", kSortedUniqueItemsKeyword,
                           nlohmann::json::value_t::boolean) {}

void UseSortedUniqueItems(valijson::SchemaParser& parser) {
  parser.addConstraintBuilder(kSortedUniqueItemsKeyword, new SortedUniqueItemsBuilder);
}

}  // namespace hkim
