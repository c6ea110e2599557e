#include "dag/dag_names.h"

#include <gtest/gtest.h>

#include "core/sha256.h"

namespace dagu {
namespace {

TEST(DagNamesTest, ValidNames) {
  EXPECT_EQ(DagNameProblem("etl_daily-v1.2"), "");
  EXPECT_EQ(DagNameProblem(std::string(40, 'x')), "");
}

TEST(DagNamesTest, InvalidNames) {
  EXPECT_EQ(DagNameProblem(""), "DAG name is empty");
  EXPECT_EQ(DagNameProblem(std::string(41, 'x')),
            "DAG name \"" + std::string(41, 'x') + "\" is 41 characters long (at most 40)");
  EXPECT_NE(DagNameProblem("has space").find("may only contain"), std::string::npos);
  EXPECT_NE(DagNameProblem("a/b").find("may only contain"), std::string::npos);
  EXPECT_NE(DagNameProblem("caf\xC3\xA9").find("may only contain"), std::string::npos);
}

TEST(DagNamesTest, ALeadingDashIsRefusedForNewNamesButNotForRecordedOnes) {
  EXPECT_EQ(DagNameProblem("-h"), "DAG name \"-h\" may not start with '-' (it would be read as a flag)");
  EXPECT_NE(DagNameProblem("--run-id").find("may not start with '-'"), std::string::npos);
  EXPECT_EQ(DagNameProblem("a-"), "");
  EXPECT_EQ(RecordedDagNameProblem("-h"), "");  // 1.30.2 accepted it: its runs stay reachable
  EXPECT_EQ(RecordedDagNameProblem(""), "DAG name is empty");
  EXPECT_NE(RecordedDagNameProblem("a/b").find("may only contain"), std::string::npos);
}

TEST(DagNamesTest, NameFromPath) {
  EXPECT_EQ(DagNameFromPath("/x/dags/my-etl.yaml"), "my-etl");
  EXPECT_EQ(DagNameFromPath("report.yml"), "report");
  EXPECT_EQ(DagNameFromPath("/x/a.b.yaml"), "a.b");
  EXPECT_EQ(DagNameFromPath("/x/notes.txt"), "notes.txt");
  EXPECT_EQ(DagNameFromPath("/x/.yaml"), ".yaml");
}

TEST(DagNamesTest, SafeNameReplacesEachCharacterAndTruncates) {
  EXPECT_EQ(SafeName("my-dag_1"), "my-dag_1");
  EXPECT_EQ(SafeName("my.dag x"), "my_dag_x");
  EXPECT_EQ(SafeName("caf\xC3\xA9!"), "caf__");  // one '_' per code point
  EXPECT_EQ(SafeName(std::string(150, 'a')).size(), 100u);
}

TEST(DagNamesTest, DataDirNameAddsAHashWhenTheNameChanged) {
  EXPECT_EQ(DagDataDirName("hello"), "hello");
  EXPECT_EQ(DagDataDirName("hello.yaml"), "hello");
  EXPECT_EQ(DagDataDirName("my.dag"), "my_dag-" + Sha256Hex("my.dag").substr(0, 4));
}

TEST(DagNamesTest, SuspendFlagFileName) {
  EXPECT_EQ(SuspendFlagFileName("/d/hello.yaml"), "hello.suspend");
  EXPECT_EQ(SuspendFlagFileName("/d/my etl.yaml"), "my-etl.suspend");
  EXPECT_EQ(SuspendFlagFileName("a<b>c:d\"e|f?g*h\\i\tj.yml"), "a-b-c-d-e-f-g-h-i-j.suspend");
  EXPECT_EQ(SuspendFlagFileName("/d/v1.2.yaml"), "v1.2.suspend");
  EXPECT_EQ(SuspendFlagFileName("/d/con.yaml"), "-.suspend");
  EXPECT_EQ(SuspendFlagFileName("/d/LPT1.yaml"), "-.suspend");
  EXPECT_EQ(SuspendFlagFileName("/d/com10.yaml"), "com10.suspend");
}

}  // namespace
}  // namespace dagu
