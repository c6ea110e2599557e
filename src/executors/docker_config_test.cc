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

namespace dagu {
namespace {

std::string Same(const std::string& s) { return s; }

TEST(DockerConfigFromContainerTest, ImageModeMapsEachKey) {
  DockerStepConfig c;
  Status s = DockerConfigFromContainer(
      nlohmann::json::parse(R"({"Image":"img","Name":"n","PullPolicy":1,"Env":["A=1"],"User":"u","WorkingDir":"/w",
        "WorkDir":"/d","Volumes":[".:/a","./x/../y:/b:ro","~/h:/c","/abs:/d:rw","named:/e"],
        "Ports":["8080:80","127.0.0.1:53:53/udp","9000"],"Network":"mynet","RestartPolicy":"Always",
        "Startup":"command","Command":["sleep","1"],"WaitFor":"healthy","LogPattern":"ready"})"),
      "/wd", "/home/me", Same, &c);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(c.image, "img");
  EXPECT_EQ(c.container_name, "n");
  EXPECT_EQ(c.pull, DockerStepConfig::Pull::kNever);
  EXPECT_TRUE(c.auto_remove);
  EXPECT_EQ(c.container["WorkingDir"], "/d");  // workDir wins
  EXPECT_EQ(c.container["Env"], nlohmann::json::parse(R"(["A=1"])"));
  EXPECT_EQ(c.host["Binds"], nlohmann::json::parse(R"(["/wd:/a:rw","/wd/y:/b:ro","/home/me/h:/c:rw","/abs:/d:rw"])"));
  EXPECT_EQ(c.host["Mounts"],
            nlohmann::json::parse(R"([{"Type":"volume","Source":"named","Target":"/e","ReadOnly":false}])"));
  EXPECT_EQ(c.container["ExposedPorts"], nlohmann::json::parse(R"({"80/tcp":{},"53/udp":{},"9000/tcp":{}})"));
  EXPECT_EQ(c.host["PortBindings"], nlohmann::json::parse(R"({"80/tcp":[{"HostIp":"0.0.0.0","HostPort":"8080"}],
                                                               "53/udp":[{"HostIp":"127.0.0.1","HostPort":"53"}]})"));
  EXPECT_EQ(c.host["NetworkMode"], "mynet");
  EXPECT_EQ(c.network["EndpointsConfig"], nlohmann::json::parse(R"({"mynet":{}})"));
  EXPECT_EQ(c.host["RestartPolicy"], nlohmann::json::parse(R"({"Name":"always"})"));
  EXPECT_EQ(c.startup, "command");
  EXPECT_EQ(c.start_cmd, (std::vector<std::string>{"sleep", "1"}));
  EXPECT_EQ(c.wait_for, "healthy");
  EXPECT_EQ(c.log_pattern, "ready");
}

TEST(DockerConfigFromContainerTest, ExecModeAndExpansionAndErrors) {
  DockerStepConfig c;
  auto expand = [](const std::string& s) { return s == "${C}" ? std::string("ctr") : s; };
  ASSERT_TRUE(DockerConfigFromContainer(nlohmann::json::parse(R"({"Exec":"${C}","User":"1","Env":["E=1"]})"), "/wd",
                                        "", expand, &c)
                  .ok());
  EXPECT_EQ(c.container_name, "ctr");
  EXPECT_TRUE(c.image.empty());
  EXPECT_EQ(c.exec, nlohmann::json::parse(R"({"User":"1","Env":["E=1"]})"));
  // What 1.30.2 writes into dag.json (every field, nulls) reads the same.
  ASSERT_TRUE(DockerConfigFromContainer(nlohmann::json::parse(R"({"Exec":"","Name":"","Image":"i","PullPolicy":0,
      "Env":null,"Volumes":null,"User":"","WorkingDir":"","WorkDir":"","Platform":"","Ports":null,"Network":"",
      "KeepContainer":true,"Startup":"","Command":null,"WaitFor":"","LogPattern":"","RestartPolicy":""})"),
                                        "/wd", "", Same, &c)
                  .ok());
  EXPECT_EQ(c.pull, DockerStepConfig::Pull::kAlways);
  EXPECT_FALSE(c.auto_remove);
  EXPECT_EQ(c.startup, "keepalive");
  EXPECT_EQ(c.wait_for, "running");
  EXPECT_FALSE(c.container.contains("Env"));
  Status bad = DockerConfigFromContainer(nlohmann::json::parse(R"({"Image":"i","Volumes":["nocolon"]})"), "/wd", "",
                                         Same, &c);
  EXPECT_EQ(bad.message(), "failed to parse volumes: invalid volume format: nocolon");
  bad = DockerConfigFromContainer(nlohmann::json::parse(R"({"Image":"i","Ports":["1:2:3:4"]})"), "/wd", "", Same, &c);
  EXPECT_EQ(bad.message(), "failed to parse ports: invalid port format: 1:2:3:4");
}

}  // namespace
}  // namespace dagu
