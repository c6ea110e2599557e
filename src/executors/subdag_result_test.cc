// The JSON a call step prints, byte for byte as Dagu 1.30.2 printed it.
#include "executors/subdag_result.h"

#include <gtest/gtest.h>

namespace dagu {
namespace {

RunRecord Child(const std::string& id, RunStatus status, std::map<std::string, std::string> outputs,
                const std::string& params = "") {
  RunRecord r;
  r.name = "item";
  r.dag_run_id = id;
  r.status = status;
  r.params = params;
  NodeRecord n;
  n.output_variables = std::move(outputs);
  r.nodes.push_back(n);
  return r;
}

TEST(SubdagResultTest, OneChild) {
  RunRecord r = Child("id1", RunStatus::kSucceeded, {{"X", "X=<a&b>"}});
  EXPECT_EQ(GoJsonIndent(ChildResultJson(r)),
            "{\n  \"name\": \"item\",\n  \"dagRunId\": \"id1\",\n  \"outputs\": {\n"
            "    \"X\": \"\\u003ca\\u0026b\\u003e\"\n  },\n  \"status\": \"succeeded\"\n}\n");
  RunRecord none = Child("id2", RunStatus::kFailed, {}, "CODE=3");
  EXPECT_EQ(GoJsonIndent(ChildResultJson(none)),
            "{\n  \"name\": \"item\",\n  \"dagRunId\": \"id2\",\n  \"params\": \"CODE=3\",\n"
            "  \"outputs\": {},\n  \"status\": \"failed\"\n}\n");
}

TEST(SubdagResultTest, OutputNamesComeFromTheValueText) {
  // Dagu keeps a failed step's DAGU_CONTINUE_ON.<step>=false among outputs.
  RunRecord r = Child("i", RunStatus::kFailed, {{"k", "DAGU_CONTINUE_ON.boom=false"}, {"F", "FINE=fine"}});
  Json j = ChildResultJson(r);
  EXPECT_EQ(j["outputs"].dump(), "{\"DAGU_CONTINUE_ON.boom\":\"false\",\"FINE\":\"fine\"}");
}

TEST(SubdagResultTest, ParallelAggregate) {
  std::vector<std::optional<RunRecord>> results = {
      Child("a", RunStatus::kSucceeded, {{"OUT", "OUT=1"}}, "R=us"),
      Child("b", RunStatus::kFailed, {{"OUT", "OUT=2"}}, "R=bad"),
      std::nullopt,
  };
  Json j = ParallelResultJson(3, results);
  EXPECT_EQ(j["summary"].dump(), "{\"total\":3,\"succeeded\":1,\"failed\":1}");
  EXPECT_EQ(j["results"].size(), 2u);
  EXPECT_EQ(j["outputs"].dump(), "[{\"OUT\":\"1\"}]");
  std::string text = GoJsonIndent(j);
  EXPECT_EQ(text.rfind("{\n  \"summary\": {\n    \"total\": 3,\n    \"succeeded\": 1,\n    \"failed\": 1\n  },\n", 0), 0u)
      << text;
  EXPECT_EQ(GoJsonIndent(ParallelResultJson(1, {})),
            "{\n  \"summary\": {\n    \"total\": 1,\n    \"succeeded\": 0,\n    \"failed\": 0\n  },\n"
            "  \"results\": [],\n  \"outputs\": []\n}\n");
}

}  // namespace
}  // namespace dagu
