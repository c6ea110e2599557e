// Paths and patterns of the archive executor (archive_executor.h), as Dagu
// 1.30.2 treats them:
//  - Go's path/filepath functions on '/' paths (Clean, Join, Base, Dir),
//    so paths in messages and results read as 1.30.2 writes them;
//  - PathWithin: whether a cleaned target stays under a base (relative
//    targets such as "../x" escape; ".." alone escapes);
//  - SanitizeArchivePath: an entry's name after stripComponents and
//    preservePaths ("" = nothing left to extract);
//  - the include/exclude globs, as github.com/bmatcuk/doublestar v4 matches
//    them: '*' and '?' stop at '/', a whole "**" segment spans any number of
//    segments (also none: "a/**" matches "a"), "[a-z]", "[!x]" / "[^x]",
//    "{a,b}" alternatives, '\' escapes the next character.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dagu::archive_paths {

std::string Clean(std::string_view path);
std::string Join(const std::vector<std::string>& parts);  // empty parts skipped; "" when all are
std::string Base(std::string_view path);
std::string Dir(std::string_view path);

bool PathWithin(const std::string& base, const std::string& target);

std::string SanitizeArchivePath(const std::string& name, int strip, bool preserve);

// doublestar.ValidatePattern.
bool ValidGlob(std::string_view pattern);
// doublestar.Match(TrimSpace(pattern), name); an invalid or empty pattern matches nothing.
bool GlobMatch(std::string_view pattern, std::string_view name);
// In when no include is given or one matches, and no exclude matches.
bool MatchesFilters(const std::string& path, const std::vector<std::string>& include,
                    const std::vector<std::string>& exclude);

}  // namespace dagu::archive_paths
