// Step params of a call (Step::call_params) in the text form Dagu 1.30.2
// writes and passes to the child run: each entry Go-quoted, named ones as
// NAME="value", positional ones as "value", joined by spaces --
//   {A: "x y", B: "1"}  ->  A="x y" B="1"
// This string (after variable substitution when the step starts) is the
// step's `childDag.params`, the child's params after `--`, and part of the
// sub-run ID. Pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dag/dag.h"

namespace dagu {

// `s` as Go's strconv.Quote writes it: in double quotes, with \\, \", \n,
// \t, \r, \a, \b, \f, \v and other control bytes escaped (\x1b); printable
// UTF-8 is kept as is.
std::string GoQuote(std::string_view s);

// The joined, quoted form above ("" for no params).
std::string CallParamsText(const std::vector<CallParam>& params);

}  // namespace dagu
