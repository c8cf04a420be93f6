#pragma once

// `--set` arguments as Helm takes them: one argument may hold several assignments separated by
// commas (`a=1,b=2`); `\,` keeps a comma in a value, and commas inside `[...]` (list selectors)
// or `{...}` (list values) do not separate. ApplySetAssignments (layering/layering.h) splits with this,
// so each assignment is one line of the `--set` layer in diagnostics.

#include <string>
#include <vector>

namespace hkim {

/// One assignment of a `--set` argument after splitting at commas.
struct SetPiece {
  std::string text;          ///< "b=2", with `\,` unescaped
  std::string argument;      ///< the whole --set argument it came from
  bool after_comma = false;  ///< not the argument's first assignment
};

/// Splits `--set` arguments into assignments at unescaped commas outside [] and {}.
std::vector<SetPiece> SplitSetArguments(const std::vector<std::string>& arguments);

}  // namespace hkim
