// The expected values below are what Dagu 1.30.2 produced for the same text
// (tests/compat/cases/run/ checks the same forms side by side).
#include "agent/eval.h"

#include <gtest/gtest.h>

namespace dagu {
namespace {

VarList Vars(std::vector<std::pair<std::string, std::string>> kv) {
  VarList v;
  for (auto& [k, x] : kv) v.Set(k, x);
  return v;
}

OwnedVars Owned(std::vector<std::pair<std::string, std::string>> kv) {
  OwnedVars o;
  o.maps.push_back(Vars(std::move(kv)));
  return o;
}

TEST(SubstituteTest, ReferencesOfKnownNames) {
  OwnedVars o = Owned({{"P", "pv"}, {"1", "one"}});
  EXPECT_EQ(Substitute("echo $P ${P} \"$P\" x$P.y pre${P}post ${P}_x $P_x", o),
            "echo pv pv \"pv\" xpv.y prepvpost pv_x $P_x");
  EXPECT_EQ(Substitute("echo ${1} $1x ${UNDEF} $UNDEF ${P:0:1} \\$P", o), "echo one $1x ${UNDEF} $UNDEF ${P:0:1} \\pv");
}

TEST(SubstituteTest, SingleQuotesTouchingTheReferenceKeepIt) {
  OwnedVars o = Owned({{"P", "pv"}});
  EXPECT_EQ(Substitute("'$P' '${P}' 'a $P b' '${P}x' x'${P}' \"'${P}'\" $P'", o),
            "'$P' '${P}' 'a pv b' '${P}x' x'${P}' \"'${P}'\" $P'");
}

TEST(SubstituteTest, QuotedReferenceIsGoQuoted) {
  OwnedVars o = Owned({{"J", "x\"y"}, {"ML", "l1\nl2\ttab"}, {"Q", "a b"}});
  EXPECT_EQ(Substitute("echo \"${J}\" \"${Q}\" \"${ML}\" \"$ML\"", o),
            "echo \"x\\\"y\" \"a b\" \"l1\\nl2\\ttab\" \"l1\nl2\ttab\"");
}

TEST(SubstituteTest, JsonPaths) {
  OwnedVars o = Owned({{"CONFIG", R"({"host":"db1","port":5432,"tags":["a","b"],"nested":{"k":"v"},"f":1.5})"},
                       {"TEXT", "not json"}});
  EXPECT_EQ(Substitute("${CONFIG.host} ${CONFIG.port} ${CONFIG.tags[1]} ${CONFIG.nested.k} ${CONFIG.nope}", o),
            "db1 5432 b v <nil>");
  EXPECT_EQ(Substitute("${CONFIG.tags} ${CONFIG.nested} ${CONFIG.f} $CONFIG.host", o), "[a b] map[k:v] 1.5 db1");
  EXPECT_EQ(Substitute("${TEXT.x} $TEXT.y", o), "${TEXT.x} not json.y");
  EXPECT_EQ(Substitute("\"${CONFIG.host}\"", o), "\"db1\"");
}

TEST(SubstituteTest, StepReferences) {
  OwnedVars o;
  o.steps["prod"] = {"/logs/prod.out", "/logs/prod.err", "3"};
  EXPECT_EQ(Substitute("${prod.stdout} ${prod.stderr} ${prod.exitCode} ${prod.exit_code}", o),
            "/logs/prod.out /logs/prod.err 3 3");
  EXPECT_EQ(Substitute("${prod.stdout:1:4} ${prod.other} ${nobody.stdout}", o), "logs ${prod.other} ${nobody.stdout}");
}

TEST(ExpandJsonReferencesTest, OnlyPathsAndStepReferencesQuotesOrNot) {
  OwnedVars o = Owned({{"CFG", R"({"host":"h1","n":{"x":[1,2]}})"}, {"P", "pv"}});
  o.steps["sa"] = {"/logs/sa.out", "/logs/sa.err", "0"};
  EXPECT_EQ(ExpandJsonReferences("${CFG.host} '${CFG.host}' $CFG.n.x pre-${CFG.host}-post ${CFG.nope}", o),
            "h1 'h1' [1 2] pre-h1-post <nil>");
  EXPECT_EQ(ExpandJsonReferences("${sa.exitCode} ${sa.stdout} $P ${P} ${CFG}", o), "0 /logs/sa.out $P ${P} ${CFG}");
}

TEST(ShellExpandTest, ParameterExpansions) {
  VarList v = Vars({{"A", "abcdef"}, {"E", ""}});
  auto lookup = v.Lookup();
  EXPECT_EQ(ShellExpand("${A:1:3} ${A:2} ${A: -2} ${#A} ${A^^} ${A^} ${UNDEF:-def} ${E:-empty} ${A:+alt}", lookup),
            "bcd cdef ef 6 ABCDEF Abcdef def empty alt");
  EXPECT_EQ(ShellExpand("${A#a*c} ${A%d*} ${A/cd/X} ${A//[ae]/_} $A${UNDEF}x", lookup), "def abc abXef _bcd_f abcdefx");
  EXPECT_EQ(ShellExpand("'$A' \"$A\" \\$A", lookup), "'abcdef' \"abcdef\" $A");  // quotes are kept
}

TEST(ShellExpandTest, CommandSubstitutionFallsBackToPlainExpansion) {
  VarList v = Vars({{"A", "abcdef"}});
  EXPECT_EQ(ShellExpand("$(echo sub) $A ${A:1:2}", v.Lookup()), "$(echo sub) abcdef ");
}

TEST(GoQuoteTest, AsStrconvQuote) {
  EXPECT_EQ(GoQuote("plain"), "\"plain\"");
  EXPECT_EQ(GoQuote("a\"b\\c\n\t\r"), "\"a\\\"b\\\\c\\n\\t\\r\"");
  EXPECT_EQ(GoQuote(std::string("\x01\x7f", 2)), "\"\\x01\\x7f\"");
  EXPECT_EQ(GoQuote("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
  EXPECT_EQ(GoQuote("\xff"), "\"\\xff\"");
}

TEST(JsonPathValueTest, GoFormatting) {
  EXPECT_EQ(JsonPathValue(R"({"a":1000000,"b":1e21,"c":0.0001,"d":true,"e":null})", ".a"), "1000000");
  EXPECT_EQ(JsonPathValue(R"({"b":1.5e21})", ".b"), "1.5e+21");
  EXPECT_EQ(JsonPathValue(R"({"c":0.00001})", ".c"), "1e-05");
  EXPECT_EQ(JsonPathValue(R"({"d":true})", ".d"), "true");
  EXPECT_EQ(JsonPathValue(R"({"e":null})", ".e"), "<nil>");
  EXPECT_EQ(JsonPathValue(R"([1,2])", ".[0]"), "1");
  EXPECT_EQ(JsonPathValue(R"("s")", ".x"), std::nullopt);  // cannot index a string
  EXPECT_EQ(JsonPathValue("nope", ".x"), std::nullopt);
}

TEST(ReplaceBackticksTest, EachCommandRuns) {
  auto run = [](const std::string& cmd) { return "<" + cmd + ">"; };
  EXPECT_EQ(ReplaceBackticks("a `x` b `y z` `unclosed", run), "a <x> b <y z> `unclosed");
}

}  // namespace
}  // namespace dagu
