// String helpers shared by every part: ASCII whitespace trimming and case
// folding, with the rules of Go's strings.TrimSpace / strings.ToLower on ASCII
// text (what Dagu applies). For prefixes and suffixes use C++20's
// std::string_view::starts_with / ends_with.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dagu {

// ' ', '\t', '\n', '\v', '\f', '\r' (C's isspace in the "C" locale).
bool IsAsciiSpace(char c);

// `s` without leading and trailing ASCII whitespace. The result views `s`.
std::string_view TrimSpace(std::string_view s);
// `s` without trailing ASCII whitespace. The result views `s`.
std::string_view TrimRightSpace(std::string_view s);

// `s` with 'A'-'Z' turned into 'a'-'z'; other bytes unchanged.
std::string AsciiLower(std::string_view s);
// The same for one byte.
char AsciiLowerChar(char c);

// A list as Go's fmt prints a []string with %v: "[a b c]", "[]" when empty.
std::string GoStringList(const std::vector<std::string>& items);

// Go's url.QueryEscape: letters, digits and "-_.~" kept, a space '+', every
// other byte "%XX" (upper-case hex), as Go writes queries and forms.
std::string QueryEscape(std::string_view s);

}  // namespace dagu
