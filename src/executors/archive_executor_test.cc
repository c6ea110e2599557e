// ArchiveRunner on the real libarchive; the expected summaries, errors and
// listings are what Dagu 1.30.2 printed for the same steps.
#include "executors/archive_executor.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "executors/executor_test_util.h"

namespace dagu {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::StepFixture;
using Json = nlohmann::json;

class ArchiveRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Write("data/a.txt", "hello\n");
    Write("data/sub/b.log", "world\n");
    Write("data/deep/x/c.txt", "deep\n");
    ::chmod(f_.dir.Sub("data/a.txt").c_str(), 0600);
  }

  void Write(const std::string& rel, const std::string& text) {
    fs::create_directories(fs::path(f_.dir.Sub(rel)).parent_path());
    std::ofstream(f_.dir.Sub(rel)) << text;
  }

  // Runs `op` with `config` (JSON); its stdout in *out.
  StepResult Run(const std::string& op, const std::string& config, std::string* out = nullptr) {
    StepFixture g;  // fresh log files for each step
    f_.step.executor_type = "archive";
    f_.step.commands = {op};
    f_.step.executor_config_json = config;
    StepInvocation inv = f_.Inv();
    inv.stdout_path = g.dir.Sub("s.out");
    inv.stderr_path = g.dir.Sub("s.err");
    if (!working_dir_.empty()) {  // a step with its own dir:
      inv.dag_working_dir = f_.dir.path();
      inv.working_dir = working_dir_;
    }
    ArchiveRunner runner;
    StepResult r = runner.Start(inv)->Wait();
    if (out != nullptr) *out = ReadFile(g.dir.Sub("s.out"));
    err_ = ReadFile(g.dir.Sub("s.err"));
    return r;
  }

  Json RunJson(const std::string& op, const std::string& config) {
    std::string out;
    StepResult r = Run(op, config, &out);
    EXPECT_EQ(r.exit_code, 0) << r.error;
    EXPECT_EQ(r.error, "");
    Json j = Json::parse(out, nullptr, false);
    EXPECT_TRUE(j.is_object()) << out;
    return j;
  }

  // The listing as "path size mode isDir" lines.
  static std::string Listing(const Json& j) {
    std::string s;
    for (const auto& e : j.value("files", Json::array())) {
      s += e["path"].get<std::string>() + " " + std::to_string(e["size"].get<int64_t>()) + " " +
           e["mode"].get<std::string>() + (e["isDir"].get<bool>() ? " dir" : "") + "\n";
    }
    return s;
  }

  // A tar written entry by entry: name, contents ("" for none), symlink target.
  void WriteTar(const std::string& rel, const std::vector<std::array<std::string, 3>>& entries) {
    struct archive* a = archive_write_new();
    archive_write_set_format_pax_restricted(a);
    int fd = ::open(f_.dir.Sub(rel).c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(archive_write_open_fd(a, fd), ARCHIVE_OK);
    for (const auto& [name, data, link] : entries) {
      struct archive_entry* e = archive_entry_new();
      struct stat st{};
      st.st_mode = (link.empty() ? S_IFREG : S_IFLNK) | 0640;
      st.st_size = link.empty() ? static_cast<off_t>(data.size()) : 0;
      st.st_mtim.tv_sec = 1700000000;
      archive_entry_copy_stat(e, &st);
      archive_entry_copy_pathname(e, name.c_str());
      if (!link.empty()) archive_entry_copy_symlink(e, link.c_str());
      ASSERT_EQ(archive_write_header(a, e), ARCHIVE_OK);
      if (!data.empty()) archive_write_data(a, data.data(), data.size());
      archive_entry_free(e);
    }
    archive_write_close(a);
    archive_write_free(a);
    ::close(fd);
  }

  StepFixture f_;
  std::string working_dir_;
  std::string err_;
};

TEST_F(ArchiveRunnerTest, EachFormatRoundTrips) {
  for (const std::string ext : {"zip", "tar", "tar.gz", "tgz", "tar.bz2", "tar.xz", "tar.zst"}) {
    SCOPED_TRACE(ext);
    const std::string archive = "out/d." + ext;
    Json c = RunJson("create", R"({"source": "data", "destination": ")" + archive + R"("})");
    EXPECT_EQ(c["operation"], "create");
    EXPECT_EQ(c["destination"], archive);
    EXPECT_EQ(c["filesAdded"], 7);  // data, a.txt, deep, deep/x, c.txt, sub, b.log
    EXPECT_EQ(c["verifyPerformed"], false);

    Json l = RunJson("list", R"({"source": ")" + archive + R"(", "verifyIntegrity": true})");
    EXPECT_EQ(Listing(l),
              "data 0 drwxr-xr-x dir\ndata/a.txt 6 -rw-------\ndata/deep 0 drwxr-xr-x dir\n"
              "data/deep/x 0 drwxr-xr-x dir\ndata/deep/x/c.txt 5 -rw-r--r--\ndata/sub 0 drwxr-xr-x dir\n"
              "data/sub/b.log 6 -rw-r--r--\n");
    EXPECT_EQ(l["totalFiles"], 7);
    EXPECT_EQ(l["totalSize"], 17);
    EXPECT_EQ(l["verified"], true);

    const std::string dest = "x-" + ext;
    Json x = RunJson("extract", R"({"source": ")" + archive + R"(", "destination": ")" + dest + R"("})");
    EXPECT_EQ(x["filesExtracted"], 3);
    EXPECT_EQ(x["bytesExtracted"], 17);
    EXPECT_EQ(x["filesSkipped"], 0);
    EXPECT_EQ(ReadFile(f_.dir.Sub(dest + "/data/a.txt")), "hello\n");
    EXPECT_EQ(ReadFile(f_.dir.Sub(dest + "/data/deep/x/c.txt")), "deep\n");
    struct stat st;
    ASSERT_EQ(::stat(f_.dir.Sub(dest + "/data/a.txt").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
  }
}

TEST_F(ArchiveRunnerTest, SummaryIsGosJsonInItsFieldOrder) {
  std::string out;
  ASSERT_EQ(Run("create", R"({"source": "data/a.txt", "destination": "a.tar"})", &out).exit_code, 0);
  std::string masked = std::regex_replace(out, std::regex(R"("duration": "[^"]+")"), R"("duration": "D")");
  EXPECT_EQ(masked,
            "{\n  \"operation\": \"create\",\n  \"source\": \"data/a.txt\",\n  \"destination\": \"a.tar\",\n"
            "  \"filesAdded\": 1,\n  \"bytesArchived\": 6,\n  \"duration\": \"D\",\n"
            "  \"verifyPerformed\": false\n}\n");
  EXPECT_TRUE(std::regex_search(out, std::regex(R"re("duration": "[0-9.]+(ns|µs|ms|s)")re"))) << out;
}

TEST_F(ArchiveRunnerTest, IncludeAndExcludePatterns) {
  RunJson("create", R"({"source": "data", "destination": "d.zip"})");
  EXPECT_EQ(Listing(RunJson("list", R"({"source": "d.zip", "include": ["**/*.txt"]})")),
            "data/a.txt 6 -rw-------\ndata/deep/x/c.txt 5 -rw-r--r--\n");
  EXPECT_EQ(Listing(RunJson("list", R"({"source": "d.zip", "include": "data/*", "exclude": "{data/a.txt,data/deep}"})")),
            "data/sub 0 drwxr-xr-x dir\n");
  Json l = RunJson("list", R"({"source": "d.zip", "include": ["data/**"], "exclude": ["data/sub/**", "*.log"]})");
  EXPECT_EQ(l["totalFiles"], 5);
  EXPECT_EQ(l["totalSize"], 11);
  // create filters too: a folder's entry and its files are matched one by one.
  Json c = RunJson("create", R"({"source": "data", "destination": "f.tar.zst", "include": ["data", "data/deep/**"]})");
  EXPECT_EQ(c["filesAdded"], 4);
  EXPECT_EQ(Listing(RunJson("list", R"({"source": "f.tar.zst"})")),
            "data 0 drwxr-xr-x dir\ndata/deep 0 drwxr-xr-x dir\ndata/deep/x 0 drwxr-xr-x dir\n"
            "data/deep/x/c.txt 5 -rw-r--r--\n");
}

TEST_F(ArchiveRunnerTest, StripComponentsFlatOverwriteAndDryRun) {
  RunJson("create", R"({"source": "data", "destination": "d.zip"})");
  Json s = RunJson("extract", R"({"source": "d.zip", "destination": "s1", "stripComponents": 1, "exclude": ["deep/**"]})");
  EXPECT_EQ(s["filesExtracted"], 2);
  EXPECT_EQ(s["filesSkipped"], 3);
  EXPECT_TRUE(fs::exists(f_.dir.Sub("s1/a.txt")));
  EXPECT_FALSE(fs::exists(f_.dir.Sub("s1/deep")));
  Json flat = RunJson("extract",
                      R"({"source": "d.zip", "destination": "s2", "preservePaths": false, "include": ["**/*.txt", "*.txt"]})");
  EXPECT_EQ(flat["filesExtracted"], 2);
  EXPECT_EQ(flat["filesSkipped"], 5);
  EXPECT_TRUE(fs::exists(f_.dir.Sub("s2/c.txt")));

  StepResult again = Run("extract", R"({"source": "d.zip", "destination": "s1", "stripComponents": 1})");
  EXPECT_EQ(again.exit_code, 4);
  EXPECT_EQ(again.error,
            "archive: extraction failed: handling file 1: data/a.txt: archive: destination error: destination "
            "\"s1/a.txt\" exists (overwrite disabled)");

  Json cont = RunJson("extract", R"({"source": "d.zip", "destination": "s1", "stripComponents": 1, "continueOnError": true})");
  EXPECT_EQ(cont["filesExtracted"], 1);  // deep/x/c.txt, new
  ASSERT_EQ(cont["errors"].size(), 2u);
  EXPECT_EQ(cont["errors"][1], "archive: destination error: destination \"s1/sub/b.log\" exists (overwrite disabled)");
  EXPECT_EQ(err_,
            "archive executor warning: continuing after error: archive: destination error: destination \"s1/a.txt\" "
            "exists (overwrite disabled)\narchive executor warning: continuing after error: archive: destination "
            "error: destination \"s1/sub/b.log\" exists (overwrite disabled)\n");

  Json over = RunJson("extract", R"({"source": "d.zip", "destination": "s1", "stripComponents": "1", "overwrite": "true"})");
  EXPECT_EQ(over["filesExtracted"], 3);

  Json dry = RunJson("extract", R"({"source": "d.zip", "destination": "s3", "dryRun": true})");
  EXPECT_EQ(dry["filesExtracted"], 3);
  EXPECT_EQ(dry["bytesExtracted"], 17);
  EXPECT_FALSE(fs::exists(f_.dir.Sub("s3")));
}

// 1.30.2 refuses an entry that leaves the destination and a symlink that
// points out of it, and extracts an absolute path below the destination.
TEST_F(ArchiveRunnerTest, PathTraversalIsRefusedAndAbsolutePathsContained) {
  WriteTar("dotdot.tar", {{{"ok.txt", "x", ""}, {"../escape.txt", "x", ""}}});
  StepResult r = Run("extract", R"({"source": "dotdot.tar", "destination": "o1"})");
  EXPECT_EQ(r.exit_code, 6);
  EXPECT_EQ(r.error,
            "archive: extraction failed: handling file: ../escape.txt: archive: corrupted archive: target "
            "\"../escape.txt\" escapes destination");
  EXPECT_TRUE(fs::exists(f_.dir.Sub("o1/ok.txt")));
  EXPECT_FALSE(fs::exists(f_.dir.Sub("escape.txt")));

  StepResult l = Run("list", R"({"source": "dotdot.tar"})");
  EXPECT_EQ(l.exit_code, 12);
  EXPECT_EQ(l.error, "archive: corrupted archive: readdir ..: invalid argument");

  WriteTar("link.tar", {{{"l", "", "../../outside"}}});
  r = Run("extract", R"({"source": "link.tar", "destination": "o3"})");
  EXPECT_EQ(r.exit_code, 6);
  EXPECT_EQ(r.error,
            "archive: extraction failed: handling file: l: archive: corrupted archive: symlink target "
            "\"../../outside\" escapes destination");
  WriteTar("abslink.tar", {{{"l", "", "/etc/passwd"}}});
  r = Run("extract", R"({"source": "abslink.tar", "destination": "o5"})");
  EXPECT_EQ(r.error,
            "archive: extraction failed: handling file: l: archive: corrupted archive: symlink target "
            "\"/etc/passwd\" is absolute");
  WriteTar("inlink.tar", {{{"d/f", "x", ""}, {"d/l", "", "f"}}});
  RunJson("extract", R"({"source": "inlink.tar", "destination": "o6"})");
  EXPECT_EQ(fs::read_symlink(f_.dir.Sub("o6/d/l")).string(), "f");

  const std::string outside = f_.dir.Sub("abs_escape.txt");
  WriteTar("abs.tar", {{{outside, "x", ""}}});
  Json x = RunJson("extract", R"({"source": "abs.tar", "destination": "o2"})");
  EXPECT_EQ(x["filesExtracted"], 1);
  EXPECT_FALSE(fs::exists(outside));
  EXPECT_TRUE(fs::exists(f_.dir.Sub("o2" + outside)));
}

TEST_F(ArchiveRunnerTest, ListFillsInImpliedFolders) {
  WriteTar("implicit.tar", {{{"top/mid/f.txt", "abc", ""}, {"./dot.txt", "d", ""}, {"z.txt", "zz", ""}}});
  Json l = RunJson("list", R"({"source": "implicit.tar"})");
  EXPECT_EQ(Listing(l),
            "dot.txt 1 -rw-r-----\ntop 0 d--------- dir\ntop/mid 0 d--------- dir\ntop/mid/f.txt 3 -rw-r-----\n"
            "z.txt 2 -rw-r-----\n");
  EXPECT_EQ(l["files"][1]["modTime"], "0001-01-01T00:00:00Z");
}

TEST_F(ArchiveRunnerTest, BadConfigFailsNamingTheKey) {
  struct Case {
    std::string op, config, error;
    int exit;
  };
  const std::vector<Case> cases = {
      {"explode", R"({"source": "x"})", "archive: configuration error: unsupported archive operation \"explode\"", 2},
      {"create", R"({"destination": "x.tar"})", "archive: configuration error: source is required for create", 2},
      {"list", R"({})", "archive: configuration error: source is required for list", 2},
      {"create", R"({"source": "data"})", "archive: configuration error: destination is required for create", 2},
      {"list", R"({"source": "x", "include": ["[a"]})", "archive: configuration error: invalid glob pattern \"[a\"", 2},
      {"list", R"({"source": "x", "stripComponents": -1})", "archive: configuration error: stripComponents must be >= 0", 2},
      {"create", R"({"source": "data", "destination": "p.zip", "password": "x"})",
       "archive: configuration error: password is only supported for extract/list operations", 2},
      {"create", R"({"source": "data", "destination": "p.gz"})",
       "archive: creation failed: format archives.Gz cannot create archives", 7},
      {"create", R"({"source": "data", "destination": "p.foo"})",
       "archive: format detection failed: could not infer format; specify config.format", 5},
      {"create", R"({"source": "data", "dryRun": true})",
       "archive: format detection failed: could not infer format; specify config.format", 5},
      {"create", R"({"source": "data", "destination": "p.foo", "format": "rar5"})", "unknown format \"rar5\"", 1},
      {"extract", R"({"source": "data"})", "archive: configuration error: source must be a file", 2},
      {"list", R"({"source": "nope.tar"})", "archive: source not found: open nope.tar: no such file or directory", 3},
      {"extract", R"({"source": "nope.tar"})", "archive: source not found: stat nope.tar: no such file or directory", 3},
      {"create", R"({"source": "nope", "destination": "x.tar"})",
       "archive: source not found: stat nope: no such file or directory", 3},
      {"extract", R"({"source": "data/a.txt"})", "archive: format detection failed: no formats matched", 5},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.op + " " + c.config);
    std::string out;
    StepResult r = Run(c.op, c.config, &out);
    EXPECT_TRUE(r.started);
    EXPECT_EQ(r.error, c.error);
    EXPECT_EQ(r.exit_code, c.exit);
    EXPECT_EQ(out, "");
  }
}

// 1.30.2 runs in the DAG's working directory: relative paths ignore the step's dir:.
TEST_F(ArchiveRunnerTest, RelativePathsAreInTheDagsWorkingDirectory) {
  working_dir_ = f_.dir.Sub("data");
  std::string out;
  StepResult r = Run("create", R"({"source": "a.txt", "destination": "x.zip"})", &out);
  EXPECT_EQ(r.error, "archive: source not found: stat a.txt: no such file or directory");
  RunJson("create", R"({"source": "data/a.txt", "destination": "out3/x.tar"})");
  EXPECT_TRUE(fs::exists(f_.dir.Sub("out3/x.tar")));
}

// As 1.30.2: a zip stores a link's target as its data and lists that length
// as the link's size (counted in totalSize); a tar lists 0.
TEST_F(ArchiveRunnerTest, SymlinksAreStoredAsLinks) {
  fs::create_symlink("a.txt", f_.dir.Sub("data/link"));
  for (const std::string ext : {"zip", "tar"}) {
    SCOPED_TRACE(ext);
    RunJson("create", R"({"source": "data", "destination": "l.)" + ext + R"("})");
    Json l = RunJson("list", R"({"source": "l.)" + ext + R"(", "include": "data/l*"})");
    EXPECT_EQ(Listing(l), std::string("data/link ") + (ext == "zip" ? "5" : "0") + " Lrwxrwxrwx\n");
    EXPECT_EQ(l["totalSize"], ext == "zip" ? 5 : 0);
    RunJson("extract", R"({"source": "l.)" + ext + R"(", "destination": "lx-)" + ext + R"("})");
    EXPECT_EQ(fs::read_symlink(f_.dir.Sub("lx-" + ext + "/data/link")).string(), "a.txt");
  }
}

TEST_F(ArchiveRunnerTest, SignalStopsTheStep) {
  f_.step.executor_type = "archive";
  f_.step.commands = {"create"};
  f_.step.executor_config_json = R"({"source": "data", "destination": "s.tar"})";
  ArchiveRunner runner;
  auto step = runner.Start(f_.Inv());
  step->Signal(SIGTERM);
  StepResult r = step->Wait();
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(f_.Out(), "");
}

TEST_F(ArchiveRunnerTest, ConfigValuesAreExpanded) {
  f_.step.executor_type = "archive";
  StepInvocation inv;
  std::string out;
  f_.step.commands = {"create"};
  f_.step.executor_config_json = R"({"source": "${SRC}", "destination": "$DEST"})";
  inv = f_.Inv();
  inv.env.push_back("SRC=data");
  inv.env.push_back("DEST=e.tar.gz");
  ArchiveRunner runner;
  StepResult r = runner.Start(inv)->Wait();
  EXPECT_EQ(r.exit_code, 0) << r.error;
  EXPECT_TRUE(fs::exists(f_.dir.Sub("e.tar.gz")));
}

}  // namespace
}  // namespace dagu
