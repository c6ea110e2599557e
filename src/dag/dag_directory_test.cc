// Loading files and directories: one bad file never stops the others; the
// base config; unreadable files and directories.
#include <gtest/gtest.h>

#include "dag/dag_loader.h"
#include "support/faulty_file_system.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using testing::FaultyFileSystem;
using testing::TempDir;

const DagLoadResult* Find(const std::vector<DagLoadResult>& results, const std::string& file) {
  for (const DagLoadResult& r : results) {
    if (BaseName(r.path) == file) return &r;
  }
  return nullptr;
}

TEST(DagDirectoryTest, BadFilesDoNotStopTheOthers) {
  TempDir dir;
  dir.WriteFile("dags/a-good.yaml", "schedule: \"* * * * *\"\nsteps: [{run: echo a}]\n");
  dir.WriteFile("dags/b-bad.yaml", "schedule: \"nope\"\nsteps: [{run: echo b}]\n");
  dir.WriteFile("dags/c-broken.yml", "steps: [\n");
  dir.WriteFile("dags/d-good.yml", "steps: [{run: echo d}]\n");
  dir.WriteFile("dags/notes.txt", "not a dag");
  dir.WriteFile("dags/.hidden.yaml", "steps: [\n");
  dir.WriteFile("dags/sub/nested.yaml", "steps: [{command: x}]\n");

  std::vector<DagLoadResult> results = LoadDagDirectory(dir.Sub("dags"), {});
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(BaseName(results[0].path), "a-good.yaml");  // sorted by file name
  EXPECT_EQ(BaseName(results[3].path), "d-good.yml");

  const DagLoadResult* good = Find(results, "a-good.yaml");
  ASSERT_TRUE(good != nullptr && good->ok());
  EXPECT_EQ(good->dag->name, "a-good");
  EXPECT_EQ(good->dag->schedules.start.size(), 1u);

  const DagLoadResult* bad = Find(results, "b-bad.yaml");
  ASSERT_NE(bad, nullptr);
  EXPECT_FALSE(bad->ok());
  ASSERT_FALSE(bad->errors.empty());
  EXPECT_EQ(bad->errors[0].file, dir.Sub("dags/b-bad.yaml"));
  EXPECT_EQ(bad->errors[0].line, 1);

  const DagLoadResult* broken = Find(results, "c-broken.yml");
  ASSERT_NE(broken, nullptr);
  EXPECT_FALSE(broken->ok());
  EXPECT_TRUE(Find(results, "d-good.yml")->ok());
}

TEST(DagDirectoryTest, DuplicateDagNamesKeepTheFirstFile) {
  TempDir dir;
  dir.WriteFile("dags/one.yaml", "name: same\nsteps: [{command: x}]\n");
  dir.WriteFile("dags/two.yaml", "name: same\nsteps: [{command: y}]\n");
  std::vector<DagLoadResult> results = LoadDagDirectory(dir.Sub("dags"), {});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].ok());
  EXPECT_FALSE(results[1].ok());
  ASSERT_EQ(results[1].errors.size(), 1u);
  EXPECT_NE(results[1].errors[0].message.find("already used by " + dir.Sub("dags/one.yaml")), std::string::npos);
}

TEST(DagDirectoryTest, MissingDirectoryIsOneError) {
  TempDir dir;
  std::vector<DagLoadResult> results = LoadDagDirectory(dir.Sub("nope"), {});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(results[0].ok());
  EXPECT_NE(results[0].errors[0].message.find("cannot list the DAGs directory"), std::string::npos);
}

TEST(DagDirectoryTest, UnreadableFileIsReportedAndTheRestLoad) {
  TempDir dir;
  dir.WriteFile("dags/a.yaml", "steps: [{command: x}]\n");
  dir.WriteFile("dags/b.yaml", "steps: [{command: y}]\n");
  FaultyFileSystem fs(PosixFileSystem());
  fs.FailWith("ReadFile", "a.yaml", Status::IOError("EIO"));
  LoadDagOptions options;
  options.fs = &fs;
  std::vector<DagLoadResult> results = LoadDagDirectory(dir.Sub("dags"), options);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_FALSE(results[0].ok());
  EXPECT_NE(results[0].errors[0].message.find("cannot read the DAG file"), std::string::npos);
  EXPECT_TRUE(results[1].ok());
}

TEST(DagFileTest, LoadDagReadsTheFile) {
  TempDir dir;
  std::string path = dir.WriteFile("hello.yaml", "steps: [{run: echo hi}]\n");
  Dag dag;
  std::vector<DagError> errors;
  ASSERT_TRUE(LoadDag(path, {}, &dag, &errors).ok());
  EXPECT_EQ(dag.name, "hello");
  EXPECT_EQ(dag.location, path);
  EXPECT_EQ(dag.working_dir, dir.path());
  EXPECT_EQ(dag.yaml_data, "steps: [{run: echo hi}]\n");
}

TEST(DagFileTest, MissingFileIsNotFound) {
  TempDir dir;
  Dag dag;
  std::vector<DagError> errors;
  Status s = LoadDag(dir.Sub("missing.yaml"), {}, &dag, &errors);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].ToString().rfind(dir.Sub("missing.yaml") + ":1:1: cannot read the DAG file", 0), 0u)
      << errors[0].ToString();
}

TEST(DagBaseConfigTest, DagValuesOverrideBaseValuesAndListsAppend) {
  TempDir dir;
  std::string base = dir.WriteFile("base.yaml", R"(
env:
  - FROM_BASE: 1
tags: [base]
timeout_sec: 100
max_active_runs: 5
schedule: "0 1 * * *"
handler_on:
  failure: {run: notify failure}
  exit: {run: base exit}
preconditions: "test -f /base"
steps: [{run: ignored}]
)");
  std::string path = dir.WriteFile("dags/etl.yaml", R"(
env:
  - FROM_DAG: 2
tags: [dag]
timeout_sec: 7
handler_on:
  exit: {run: dag exit}
steps: [{command: x}]
)");
  LoadDagOptions options;
  options.base_config = base;
  Dag dag;
  std::vector<DagError> errors;
  ASSERT_TRUE(LoadDag(path, options, &dag, &errors).ok());
  EXPECT_EQ(dag.env, (std::vector<std::pair<std::string, std::string>>{{"FROM_BASE", "1"}, {"FROM_DAG", "2"}}));
  EXPECT_EQ(dag.tags, (std::vector<std::string>{"base", "dag"}));
  EXPECT_EQ(dag.timeout, std::chrono::seconds(7));
  EXPECT_EQ(dag.max_active_runs, 5);
  EXPECT_EQ(dag.schedules.start.size(), 1u);
  ASSERT_TRUE(dag.handler_on.failure.has_value());
  EXPECT_EQ(dag.handler_on.failure->commands, std::vector<std::string>{"notify failure"});
  EXPECT_EQ(dag.handler_on.exit->commands, std::vector<std::string>{"dag exit"});
  EXPECT_EQ(dag.preconditions.size(), 1u);
  ASSERT_EQ(dag.steps.size(), 1u);
  EXPECT_EQ(dag.steps[0].commands, std::vector<std::string>{"x"});
  EXPECT_EQ(dag.name, "etl");
  ASSERT_EQ(errors.size(), 1u);  // the warning about steps in the base config
  EXPECT_EQ(errors[0].file, base);
  EXPECT_FALSE(errors[0].is_error());
}

TEST(DagBaseConfigTest, MissingBaseIsFineBadBaseIsAnError) {
  TempDir dir;
  std::string path = dir.WriteFile("dags/etl.yaml", "steps: [{command: x}]\n");
  LoadDagOptions options;
  options.base_config = dir.Sub("no-base.yaml");
  Dag dag;
  std::vector<DagError> errors;
  EXPECT_TRUE(LoadDag(path, options, &dag, &errors).ok());

  options.base_config = dir.WriteFile("base.yaml", "timeout_sec: soon\n");
  errors.clear();
  EXPECT_FALSE(LoadDag(path, options, &dag, &errors).ok());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].file, options.base_config);
  EXPECT_EQ(errors[0].key, "timeout_sec");
}

TEST(DagBaseConfigTest, UnreadableBaseIsAnError) {
  TempDir dir;
  std::string path = dir.WriteFile("dags/etl.yaml", "steps: [{command: x}]\n");
  FaultyFileSystem fs(PosixFileSystem());
  fs.FailWith("ReadFile", "base.yaml", Status::IOError("EIO"));
  LoadDagOptions options;
  options.fs = &fs;
  options.base_config = dir.WriteFile("base.yaml", "env: {A: 1}\n");
  Dag dag;
  std::vector<DagError> errors;
  EXPECT_FALSE(LoadDag(path, options, &dag, &errors).ok());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].file, options.base_config);
  EXPECT_NE(errors[0].message.find("cannot read the base config"), std::string::npos);
}

}  // namespace
}  // namespace dagu
