// Test fixture shared by the config unit tests: a temp directory holding a
// fake user home, an injected environment (never the real HOME) and a
// LoadContext pointing at both.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "config/config.h"
#include "support/temp_dir.h"

namespace dagu::testing {

class ConfigTest : public ::testing::Test {
 protected:
  ConfigTest() {
    env_["HOME"] = dir_.Sub("user");
    context_.cwd = dir_.Sub("cwd");
    context_.executable = "/opt/dagu/bin/dagu";
  }

  // Writes `text` to <temp>/<relative> and returns the full path.
  std::string Write(const std::string& relative, const std::string& text) { return dir_.WriteFile(relative, text); }

  // A unified home at <temp>/home with the given config.yaml, named by DAGU_HOME.
  std::string HomeWithConfig(const std::string& yaml) {
    Write("home/config.yaml", yaml);
    env_["DAGU_HOME"] = dir_.Sub("home");
    return dir_.Sub("home");
  }

  Status Load(Config* config, const ConfigOverrides& overrides = {}) {
    context_.env = env_;
    return LoadConfig(overrides, context_, config);
  }

  // Loads and expects success.
  Config MustLoad(const ConfigOverrides& overrides = {}) {
    Config config;
    Status s = Load(&config, overrides);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return config;
  }

  // Loads and expects failure; returns the message.
  std::string LoadError(const ConfigOverrides& overrides = {}) {
    Config config;
    Status s = Load(&config, overrides);
    EXPECT_FALSE(s.ok()) << "expected an error";
    return s.message();
  }

  TempDir dir_;
  std::map<std::string, std::string> env_;
  LoadContext context_;
};

}  // namespace dagu::testing
