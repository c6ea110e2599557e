// The deployment files in deploy/ (issue 17), checked with the tools an
// operator has: `systemd-analyze verify` on the units (with ExecStart pointed
// at the built binary), `promtool check rules` and `promtool test rules` on
// the alert rules, `kubectl kustomize` (kubectl's own parser) on the
// Kubernetes manifests, and a structural check of the manifests and the
// Compose file written here (no API server or compose plugin is available
// offline): kinds and names, the ReadWriteMany volume, the probes, services
// that select existing pods, and one shared volume at DAGU_HOME.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu::testing {
namespace {

const std::string kDeploy = std::string(DAGU_SOURCE_DIR) + "/deploy";

struct ShellResult {
  int status = -1;
  std::string output;  // stdout and stderr
};

ShellResult Shell(const std::string& command) {
  ShellResult r;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  int rc = ::pclose(p);
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return r;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool Have(const char* tool) { return Shell(std::string("command -v ") + tool).status == 0; }

// --- systemd ---------------------------------------------------------------

// systemd-analyze verify exits 0 even for values it ignores; what it prints is the verdict.
ShellResult VerifyUnit(const TempDir& dir, const std::string& name, const std::string& text) {
  std::string path = dir.WriteFile(name, text);
  return Shell("cd '" + dir.path() + "' && systemd-analyze verify --man=no '" + path + "'");
}

std::string WithBinary(std::string unit) {
  const std::string from = "/usr/bin/dagu";
  for (size_t at; (at = unit.find(from)) != std::string::npos;) unit.replace(at, from.size(), DAGU_BINARY);
  return unit;
}

TEST(OpsDeployTest, SystemdUnitsVerify) {
  ASSERT_TRUE(Have("systemd-analyze")) << "install the Debian package `systemd` (scripts/install-deps.sh)";
  TempDir dir;
  for (const char* name : {"dagu-scheduler.service", "dagu-start-all.service"}) {
    std::string unit = ReadFile(kDeploy + "/systemd/" + name);
    ASSERT_FALSE(unit.empty()) << name;
    for (const char* want : {"\nType=notify\n", "\nNotifyAccess=main\n", "\nWatchdogSec=", "\nRestart=on-failure\n",
                             "\nRestartPreventExitStatus=78\n", "\nExecStart=/usr/bin/dagu "}) {
      EXPECT_NE(unit.find(want), std::string::npos) << name << " lacks " << want;
    }
    ShellResult r = VerifyUnit(dir, name, WithBinary(unit));
    EXPECT_EQ(r.status, 0) << name << ":\n" << r.output;
    EXPECT_EQ(r.output, "") << name << ": systemd-analyze verify complained:\n" << r.output;
  }
  // The coordinator's and the worker's units (no sd_notify in those roles).
  for (const char* name : {"dagu-coordinator.service", "dagu-worker.service"}) {
    std::string unit = ReadFile(kDeploy + "/systemd/" + name);
    ASSERT_FALSE(unit.empty()) << name;
    for (const char* want : {"\nType=exec\n", "\nRestart=on-failure\n", "\nRestartPreventExitStatus=78\n",
                             "\nExecStart=/usr/bin/dagu "}) {
      EXPECT_NE(unit.find(want), std::string::npos) << name << " lacks " << want;
    }
    ShellResult r = VerifyUnit(dir, name, WithBinary(unit));
    EXPECT_EQ(r.status, 0) << name << ":\n" << r.output;
    EXPECT_EQ(r.output, "") << name << ": systemd-analyze verify complained:\n" << r.output;
  }
  // The check is real: a misspelt value is reported.
  std::string broken = WithBinary(ReadFile(kDeploy + "/systemd/dagu-scheduler.service"));
  broken.replace(broken.find("Type=notify"), 11, "Type=notifyy");
  ShellResult r = VerifyUnit(dir, "broken.service", broken);
  EXPECT_NE(r.output.find("notifyy"), std::string::npos) << r.output;
}

// --- Prometheus ------------------------------------------------------------

TEST(OpsDeployTest, AlertRulesPassPromtoolCheckAndTheirUnitTests) {
  ASSERT_TRUE(Have("promtool")) << "install the Debian package `prometheus` (scripts/install-deps.sh)";
  ShellResult check = Shell("promtool check rules '" + kDeploy + "/prometheus/alerts.yml'");
  EXPECT_EQ(check.status, 0) << check.output;
  EXPECT_NE(check.output.find("SUCCESS: 6 rules found"), std::string::npos) << check.output;
  ShellResult test = Shell("cd '" + kDeploy + "/prometheus' && promtool test rules alerts_test.yml");
  EXPECT_EQ(test.status, 0) << test.output;
  for (const char* alert : {"DaguNoActiveScheduler", "DaguTwoActiveSchedulers", "DaguSchedulerLockRenewalFailures",
                            "DaguSlowSchedulerTakeover", "DaguQueueGrowing"}) {
    EXPECT_NE(ReadFile(kDeploy + "/prometheus/alerts_test.yml").find("alertname: " + std::string(alert)),
              std::string::npos)
        << alert << " has no unit test";
  }
}

// --- Kubernetes ------------------------------------------------------------

std::string Str(const YAML::Node& n) { return n && n.IsScalar() ? n.as<std::string>() : ""; }

// True when every label of `selector` is in `labels`.
bool Selects(const YAML::Node& selector, const YAML::Node& labels) {
  if (!selector || !selector.IsMap() || selector.size() == 0 || !labels) return false;
  for (const auto& kv : selector) {
    if (Str(labels[kv.first.as<std::string>()]) != kv.second.as<std::string>()) return false;
  }
  return true;
}

std::set<std::string> PortNames(const YAML::Node& container) {
  std::set<std::string> names;
  for (const auto& p : container["ports"]) names.insert(Str(p["name"]));
  return names;
}

TEST(OpsDeployTest, KubernetesManifests) {
  const std::string file = kDeploy + "/kubernetes/dagu.yaml";
  if (Have("kubectl")) {
    TempDir dir;
    std::filesystem::copy_file(file, dir.Sub("dagu.yaml"));
    dir.WriteFile("kustomization.yaml", "resources:\n  - dagu.yaml\n");
    ShellResult r = Shell("kubectl kustomize '" + dir.path() + "'");
    EXPECT_EQ(r.status, 0) << r.output;
  }
  std::vector<YAML::Node> docs = YAML::LoadAllFromFile(file);
  std::map<std::string, YAML::Node> by_kind_name;
  for (const YAML::Node& d : docs) {
    ASSERT_TRUE(d.IsMap());
    std::string kind = Str(d["kind"]);
    ASSERT_FALSE(Str(d["apiVersion"]).empty()) << kind;
    ASSERT_FALSE(Str(d["metadata"]["name"]).empty()) << kind;
    if (kind != "Namespace") {
      EXPECT_EQ(Str(d["metadata"]["namespace"]), "dagu") << kind;
    }
    by_kind_name[kind + "/" + Str(d["metadata"]["name"])] = d;
  }
  YAML::Node pvc = by_kind_name["PersistentVolumeClaim/dagu-home"];
  ASSERT_TRUE(pvc) << "no PVC dagu-home";
  EXPECT_EQ(Str(pvc["spec"]["accessModes"][0]), "ReadWriteMany");

  YAML::Node sched = by_kind_name["Deployment/dagu-scheduler"];
  ASSERT_TRUE(sched) << "no Deployment dagu-scheduler";
  EXPECT_EQ(sched["spec"]["replicas"].as<int>(), 2);
  EXPECT_TRUE(Selects(sched["spec"]["selector"]["matchLabels"], sched["spec"]["template"]["metadata"]["labels"]));
  YAML::Node c = sched["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(Str(c["args"][0]), "scheduler");
  EXPECT_EQ(Str(c["readinessProbe"]["httpGet"]["path"]), "/health?role=active");
  EXPECT_EQ(Str(c["livenessProbe"]["httpGet"]["path"]), "/health");
  EXPECT_TRUE(PortNames(c).count(Str(c["readinessProbe"]["httpGet"]["port"])));
  EXPECT_TRUE(PortNames(c).count(Str(c["livenessProbe"]["httpGet"]["port"])));

  // Every workload mounts the one claim at DAGU_HOME, and its ConfigMap exists.
  int workloads = 0;
  for (auto& [key, d] : by_kind_name) {
    if (Str(d["kind"]) != "Deployment") continue;
    ++workloads;
    YAML::Node pod = d["spec"]["template"]["spec"];
    std::map<std::string, YAML::Node> volumes;
    for (const YAML::Node& v : pod["volumes"]) volumes[Str(v["name"])] = v;
    for (const auto& container : pod["containers"]) {
      std::string home;
      for (const auto& e : container["env"]) {
        if (Str(e["name"]) == "DAGU_HOME") home = Str(e["value"]);
      }
      bool mounted = false;
      for (const auto& m : container["volumeMounts"]) {
        YAML::Node v = volumes[Str(m["name"])];
        ASSERT_TRUE(v) << key << ": mount of undeclared volume " << Str(m["name"]);
        if (v["persistentVolumeClaim"]) {
          EXPECT_TRUE(by_kind_name.count("PersistentVolumeClaim/" + Str(v["persistentVolumeClaim"]["claimName"])));
          mounted = mounted || Str(m["mountPath"]) == home;
        }
        if (v["configMap"]) {
          EXPECT_TRUE(by_kind_name.count("ConfigMap/" + Str(v["configMap"]["name"]))) << key;
        }
      }
      EXPECT_TRUE(mounted) << key << ": the shared claim is not mounted at DAGU_HOME " << home;
    }
  }
  EXPECT_EQ(workloads, 2);
  // Every Service selects the pods of a Deployment and targets a port they name.
  int services = 0;
  for (auto& [key, d] : by_kind_name) {
    if (Str(d["kind"]) != "Service") continue;
    ++services;
    bool found = false;
    for (auto& [k2, w] : by_kind_name) {
      if (Str(w["kind"]) != "Deployment") continue;
      if (!Selects(d["spec"]["selector"], w["spec"]["template"]["metadata"]["labels"])) continue;
      found = true;
      for (const auto& p : d["spec"]["ports"]) {
        EXPECT_TRUE(PortNames(w["spec"]["template"]["spec"]["containers"][0]).count(Str(p["targetPort"])))
            << key << " targets a port " << k2 << " does not name";
      }
    }
    EXPECT_TRUE(found) << key << " selects no pods";
  }
  EXPECT_EQ(services, 2);
}

// --- Compose ---------------------------------------------------------------

// A service with its `<<` merge keys applied (yaml-cpp leaves them as keys).
YAML::Node Merged(const YAML::Node& service) {
  YAML::Node out(YAML::NodeType::Map);
  if (YAML::Node base = service["<<"]) {
    for (const auto& kv : base) out[kv.first.as<std::string>()] = kv.second;
  }
  for (const auto& kv : service) {
    if (kv.first.as<std::string>() != "<<") out[kv.first.as<std::string>()] = kv.second;
  }
  return out;
}

TEST(OpsDeployTest, ComposeFile) {
  YAML::Node doc = YAML::LoadFile(kDeploy + "/compose/compose.yaml");
  YAML::Node services = doc["services"];
  ASSERT_TRUE(services && services.IsMap());
  std::map<std::string, int> commands;
  std::set<std::string> host_ports;
  for (const auto& kv : services) {
    std::string name = kv.first.as<std::string>();
    YAML::Node s = Merged(kv.second);
    EXPECT_FALSE(Str(s["image"]).empty()) << name;
    commands[Str(s["command"][0])]++;
    std::string home = Str(s["environment"]["DAGU_HOME"]);
    ASSERT_EQ(s["volumes"].size(), 1u) << name;
    std::string mount = Str(s["volumes"][0]);
    std::string volume = mount.substr(0, mount.find(':'));
    EXPECT_EQ(mount.substr(mount.find(':') + 1), home) << name << ": the volume is not at DAGU_HOME";
    EXPECT_TRUE(doc["volumes"][volume]) << name << " uses undeclared volume " << volume;
    EXPECT_TRUE(s["healthcheck"]["test"]) << name << " has no health check";
    for (const auto& p : s["ports"]) {
      std::string host = Str(p).substr(0, Str(p).find(':'));
      EXPECT_TRUE(host_ports.insert(host).second) << "host port " << host << " published twice";
    }
  }
  EXPECT_EQ(commands["scheduler"], 2);
  EXPECT_EQ(commands["server"], 1);
}

}  // namespace
}  // namespace dagu::testing
