#include "executors/docker_config.h"

#include <gtest/gtest.h>

namespace dagu {
namespace {

using nlohmann::json;

DockerStepConfig Parse(const std::string& text) {
  DockerStepConfig c;
  Status s = ParseDockerStepConfig(json::parse(text), &c);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return c;
}

std::string Error(const std::string& text) {
  DockerStepConfig c;
  Status s = ParseDockerStepConfig(json::parse(text), &c);
  return s.ok() ? "" : s.message();
}

TEST(DockerConfigTest, ShortcutsAndDefaults) {
  DockerStepConfig c = Parse(R"({"image":" busybox ","workingDir":"/w","volumes":["/a:/b"],
                                  "host":{"binds":["/c:/d"]}})");
  EXPECT_EQ(c.image, "busybox");
  EXPECT_EQ(c.pull, DockerStepConfig::Pull::kMissing);
  EXPECT_FALSE(c.auto_remove);
  EXPECT_EQ(c.container["WorkingDir"], "/w");
  EXPECT_EQ(c.host["Binds"], json::parse(R"(["/c:/d","/a:/b"])"));
  // container.WorkingDir wins over the shortcut.
  EXPECT_EQ(Parse(R"({"image":"x","workingDir":"/w","container":{"workingdir":"/c"}})").container["WorkingDir"], "/c");
}

TEST(DockerConfigTest, PassThroughIsCaseInsensitiveWeakAndDropsUnknownKeys) {
  DockerStepConfig c = Parse(R"({"image":"x","container":{"env":"A=1","TTY":"true","bogus":1,"stoptimeout":"5",
                                  "Labels":{"k":"v"}},"host":{"dns":["1.1.1.1"],"readonlyrootfs":1,
                                  "Resources":{"Memory":1000}},
                                  "network":{"endpointsconfig":{"n":{}}},"containerName":"c",
                                  "exec":{"user":"root","workingdir":"/"}})");
  EXPECT_EQ(c.container, json::parse(R"({"Env":["A=1"],"Tty":true,"StopTimeout":5,"Labels":{"k":"v"}})"));
  EXPECT_EQ(c.host, json::parse(R"({"Dns":["1.1.1.1"],"ReadonlyRootfs":true,"Memory":1000})"));
  EXPECT_EQ(c.network, json::parse(R"({"EndpointsConfig":{"n":{}}})"));
  EXPECT_EQ(c.exec, json::parse(R"({"User":"root","WorkingDir":"/"})"));
  EXPECT_EQ(Error(R"({"image":"x","container":{"Tty":"maybe"}})"),
            "failed to decode config: cannot parse 'container.Tty' as bool: strconv.ParseBool: parsing \"maybe\": "
            "invalid syntax");
}

TEST(DockerConfigTest, PullPolicies) {
  EXPECT_EQ(Parse(R"({"image":"x","pull":"always"})").pull, DockerStepConfig::Pull::kAlways);
  EXPECT_EQ(Parse(R"({"image":"x","pull":"never"})").pull, DockerStepConfig::Pull::kNever);
  EXPECT_EQ(Parse(R"({"image":"x","pull":"missing"})").pull, DockerStepConfig::Pull::kMissing);
  EXPECT_EQ(Parse(R"({"image":"x","pull":true})").pull, DockerStepConfig::Pull::kAlways);
  EXPECT_EQ(Parse(R"({"image":"x","pull":"false"})").pull, DockerStepConfig::Pull::kNever);
  EXPECT_EQ(Error(R"({"image":"x","pull":"sometimes"})"),
            "failed to parse pull policy as boolean: strconv.ParseBool: parsing \"sometimes\": invalid syntax");
}

TEST(DockerConfigTest, AutoRemoveFromEitherPlace) {
  EXPECT_TRUE(Parse(R"({"image":"x","autoRemove":"true"})").auto_remove);
  DockerStepConfig h = Parse(R"({"image":"x","host":{"autoRemove":true}})");
  EXPECT_TRUE(h.auto_remove);
  EXPECT_EQ(h.host["AutoRemove"], false);  // the step removes it, not the daemon
  EXPECT_FALSE(Parse(R"({"image":"x","host":{"AutoRemove":true},"autoRemove":false})").auto_remove);
  EXPECT_EQ(Error(R"({"image":"x","autoRemove":"yes"})"),
            "failed to evaluate autoRemove value: strconv.ParseBool: parsing \"yes\": invalid syntax");
}

TEST(DockerConfigTest, RulesOf130) {
  EXPECT_EQ(Error(R"({"pull":"always"})"), "containerName or image must be specified");
  EXPECT_EQ(Error(R"({"image":"x","exec":{"User":"root"}})"),
            "'exec' options require 'containerName' (exec-in-existing mode)");
  EXPECT_EQ(Error(R"({"image":"x","exec":{}})"), "");
  EXPECT_EQ(Parse(R"({"containerName":"c"})").container_name, "c");
}

}  // namespace
}  // namespace dagu
