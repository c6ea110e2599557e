#include "cron/cron_field_parser.h"

#include <ostream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace dagu {
namespace {

template <size_t N>
std::vector<int> SetBits(const std::bitset<N>& bits) {
  std::vector<int> values;
  for (size_t i = 0; i < N; ++i) {
    if (bits[i]) values.push_back(static_cast<int>(i));
  }
  return values;
}

CronFields MustParseFields(std::string_view text) {
  CronFields fields;
  Status status = ParseCronFields(text, &fields);
  EXPECT_TRUE(status.ok()) << text << ": " << status.ToString();
  return fields;
}

std::string ParseError(std::string_view text) {
  CronFields fields;
  Status status = ParseCronFields(text, &fields);
  EXPECT_FALSE(status.ok()) << text << " was accepted";
  return status.message();
}

std::vector<int> Range(int from, int to) {
  std::vector<int> values;
  for (int i = from; i <= to; ++i) values.push_back(i);
  return values;
}

TEST(CronFieldParserTest, StarsCoverEachFieldsRange) {
  CronFields f = MustParseFields("* * * * *");
  EXPECT_EQ(SetBits(f.minute_bits), Range(0, 59));
  EXPECT_EQ(SetBits(f.hour_bits), Range(0, 23));
  EXPECT_EQ(SetBits(f.dom_bits), Range(1, 31));
  EXPECT_EQ(SetBits(f.month_bits), Range(1, 12));
  EXPECT_EQ(SetBits(f.dow_bits), Range(0, 6));
  EXPECT_TRUE(f.dom_star);
  EXPECT_TRUE(f.dow_star);
}

TEST(CronFieldParserTest, QuestionMarkIsAStarInEveryField) {
  CronFields f = MustParseFields("? ? ? ? ?");
  EXPECT_EQ(SetBits(f.minute_bits), Range(0, 59));
  EXPECT_EQ(SetBits(f.dow_bits), Range(0, 6));
  EXPECT_TRUE(f.dom_star);
  EXPECT_TRUE(f.dow_star);
}

TEST(CronFieldParserTest, ListsRangesAndSteps) {
  CronFields f = MustParseFields("1,15,30-32 9-17/4 */10 2-11/3 1-5");
  EXPECT_EQ(SetBits(f.minute_bits), (std::vector<int>{1, 15, 30, 31, 32}));
  EXPECT_EQ(SetBits(f.hour_bits), (std::vector<int>{9, 13, 17}));
  EXPECT_EQ(SetBits(f.dom_bits), (std::vector<int>{1, 11, 21, 31}));
  EXPECT_EQ(SetBits(f.month_bits), (std::vector<int>{2, 5, 8, 11}));
  EXPECT_EQ(SetBits(f.dow_bits), Range(1, 5));
  EXPECT_FALSE(f.dom_star);
  EXPECT_FALSE(f.dow_star);
}

TEST(CronFieldParserTest, SingleValueWithStepRunsToTheMaximum) {
  EXPECT_EQ(SetBits(MustParseFields("5/15 * * * *").minute_bits), (std::vector<int>{5, 20, 35, 50}));
  EXPECT_EQ(SetBits(MustParseFields("* 20/2 * * *").hour_bits), (std::vector<int>{20, 22}));
  EXPECT_EQ(SetBits(MustParseFields("* * * 11/1 *").month_bits), (std::vector<int>{11, 12}));
}

TEST(CronFieldParserTest, StepLargerThanTheRangeKeepsOnlyTheStart) {
  EXPECT_EQ(SetBits(MustParseFields("*/90 * * * *").minute_bits), (std::vector<int>{0}));
  EXPECT_EQ(SetBits(MustParseFields("7-9/5 * * * *").minute_bits), (std::vector<int>{7}));
}

TEST(CronFieldParserTest, StarIsUnrestrictedOnlyWithoutAStepAboveOne) {
  EXPECT_TRUE(MustParseFields("0 0 */1 * *").dom_star);
  EXPECT_FALSE(MustParseFields("0 0 */2 * *").dom_star);
  EXPECT_FALSE(MustParseFields("0 0 ?/2 * *").dom_star);
  EXPECT_FALSE(MustParseFields("0 0 * * */2").dow_star);
  EXPECT_EQ(SetBits(MustParseFields("0 0 * * */2").dow_bits), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_FALSE(MustParseFields("0 0 1-31 * *").dom_star);  // a full range is still "restricted"
  // A star anywhere in a list makes the field unrestricted (robfig ORs the star bit).
  EXPECT_TRUE(MustParseFields("0 0 5,* * *").dom_star);
}

TEST(CronFieldParserTest, NamesAnyCaseOnlyInMonthAndWeekday) {
  CronFields f = MustParseFields("0 0 * jan,Mar,DEC mon-FRI");
  EXPECT_EQ(SetBits(f.month_bits), (std::vector<int>{1, 3, 12}));
  EXPECT_EQ(SetBits(f.dow_bits), Range(1, 5));
  EXPECT_EQ(SetBits(MustParseFields("0 0 * * SUN,sat").dow_bits), (std::vector<int>{0, 6}));
  EXPECT_EQ(SetBits(MustParseFields("0 0 * * MON/2").dow_bits), (std::vector<int>{1, 3, 5}));
  EXPECT_EQ(SetBits(MustParseFields("0 0 * JUN-aug *").month_bits), (std::vector<int>{6, 7, 8}));
}

TEST(CronFieldParserTest, RobfigQuirksAreAccepted) {
  // Empty list items vanish (strings.FieldsFunc).
  EXPECT_EQ(SetBits(MustParseFields("1,,2, * * * *").minute_bits), (std::vector<int>{1, 2}));
  // Anything after a leading star, up to a '/', is ignored.
  EXPECT_EQ(SetBits(MustParseFields("*-5 * * * *").minute_bits), Range(0, 59));
  // strconv.Atoi takes a '+' sign and leading zeros.
  EXPECT_EQ(SetBits(MustParseFields("+5 007 * * *").minute_bits), (std::vector<int>{5}));
  EXPECT_EQ(SetBits(MustParseFields("+5 007 * * *").hour_bits), (std::vector<int>{7}));
  // Extra whitespace of any kind between fields.
  EXPECT_EQ(SetBits(MustParseFields("  0\t12 \n * * *  ").hour_bits), (std::vector<int>{12}));
  // A field made only of commas matches nothing (never fires), as in robfig.
  EXPECT_TRUE(MustParseFields(", * * * *").minute_bits.none());
}

struct ErrorCase {
  const char* text;
  const char* message;
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << '"' << c.text << '"'; }

class CronFieldParserErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(CronFieldParserErrorTest, NamesTheFieldAndTheProblem) {
  EXPECT_EQ(ParseError(GetParam().text), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Table, CronFieldParserErrorTest,
    ::testing::Values(
        ErrorCase{"* * * *", "expected exactly 5 fields (minute hour day-of-month month day-of-week), found 4"},
        ErrorCase{"0 * * * * *", "expected exactly 5 fields (minute hour day-of-month month day-of-week), found 6"},
        ErrorCase{"", "expected exactly 5 fields (minute hour day-of-month month day-of-week), found 0"},
        ErrorCase{"60 * * * *", "minute field \"60\": end of range (60) above maximum (59)"},
        ErrorCase{"5,60 * * * *", "minute field \"5,60\": item \"60\": end of range (60) above maximum (59)"},
        ErrorCase{"0 24 * * *", "hour field \"24\": end of range (24) above maximum (23)"},
        ErrorCase{"0 0 0 * *", "day-of-month field \"0\": beginning of range (0) below minimum (1)"},
        ErrorCase{"0 0 32 * *", "day-of-month field \"32\": end of range (32) above maximum (31)"},
        ErrorCase{"0 0 * 0 *", "month field \"0\": beginning of range (0) below minimum (1)"},
        ErrorCase{"0 0 * 13 *", "month field \"13\": end of range (13) above maximum (12)"},
        ErrorCase{"0 0 * * 7", "day-of-week field \"7\": end of range (7) above maximum (6) (use 0 or SUN for Sunday)"},
        ErrorCase{"0 0 * * 1-7",
                  "day-of-week field \"1-7\": end of range (7) above maximum (6) (use 0 or SUN for Sunday)"},
        ErrorCase{"*/0 * * * *", "minute field \"*/0\": step of range should be a positive number"},
        ErrorCase{"0 0 * * 0-6/0", "day-of-week field \"0-6/0\": step of range should be a positive number"},
        ErrorCase{"1-2-3 * * * *", "minute field \"1-2-3\": too many hyphens"},
        ErrorCase{"1/2/3 * * * *", "minute field \"1/2/3\": too many slashes"},
        ErrorCase{"-1 * * * *", "minute field \"-1\": \"\" is not a number"},
        ErrorCase{"5-1 * * * *", "minute field \"5-1\": beginning of range (5) beyond end of range (1)"},
        ErrorCase{"0 0 * * FRI-MON", "day-of-week field \"FRI-MON\": beginning of range (5) beyond end of range (1)"},
        ErrorCase{"*/x * * * *", "minute field \"*/x\": step \"x\" is not a number"},
        ErrorCase{"*/ * * * *", "minute field \"*/\": step \"\" is not a number"},
        ErrorCase{"MON * * * *",
                  "minute field \"MON\": \"MON\" is not a number (names are allowed only in the month and "
                  "day-of-week fields)"},
        ErrorCase{"0 0 * * MONDAY", "day-of-week field \"MONDAY\": \"MONDAY\" is not a number or a weekday name "
                                    "(SUN..SAT)"},
        ErrorCase{"0 0 * FOO *", "month field \"FOO\": \"FOO\" is not a number or a month name (JAN..DEC)"},
        ErrorCase{"0 0 * * SUN-7", "day-of-week field \"SUN-7\": end of range (7) above maximum (6) (use 0 or SUN "
                                   "for Sunday)"},
        ErrorCase{"0 0 L * *",
                  "day-of-month field \"L\": \"L\" is not a number (names are allowed only in the month and "
                  "day-of-week fields)"},
        ErrorCase{"0 0 15W * *", "day-of-month field \"15W\": \"15W\" is not a number"},
        ErrorCase{"0 0 * * 1#2", "day-of-week field \"1#2\": \"1#2\" is not a number"},
        ErrorCase{"99999999999 * * * *", "minute field \"99999999999\": number \"99999999999\" is out of range"}));

}  // namespace
}  // namespace dagu
