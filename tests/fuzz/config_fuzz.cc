// Fuzz target: config.yaml (LoadConfig, from an in-memory DAGU_HOME). The
// input is the file; a first line "#env NAME=VALUE;NAME=VALUE" adds
// environment variables. Property: a config that loads has absolute paths.
#include <map>
#include <string>

#include "config/config.h"
#include "fuzz_check.h"
#include "mem_file_system.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::map<std::string, std::string> env{{"DAGU_HOME", "/fuzz/home"}, {"HOME", "/fuzz/user"}};
  if (text.rfind("#env ", 0) == 0) {
    std::string line = text.substr(5, text.find('\n') - 5);
    for (size_t at = 0; at <= line.size();) {
      size_t end = line.find(';', at);
      if (end == std::string::npos) end = line.size();
      std::string pair = line.substr(at, end - at);
      size_t eq = pair.find('=');
      if (eq != std::string::npos && eq > 0) env[pair.substr(0, eq)] = pair.substr(eq + 1);
      at = end + 1;
    }
  }
  dagu::fuzz::MemFileSystem fs;
  fs.Put("/fuzz/home/config.yaml", text);
  dagu::LoadContext context;
  context.env = env;
  context.cwd = "/fuzz";
  context.fs = &fs;
  context.executable = "/usr/bin/dagu";
  dagu::Config config;
  dagu::Status s = dagu::LoadConfig(dagu::ConfigOverrides{}, context, &config);
  if (!s.ok()) {
    FUZZ_CHECK(!s.message().empty(), "an error without a message");
    return 0;
  }
  for (const std::string* p : {&config.paths.dags_dir, &config.paths.data_dir, &config.paths.log_dir,
                               &config.paths.queue_dir, &config.paths.scheduler_dir}) {
    FUZZ_CHECK(!p->empty() && (*p)[0] == '/', "a relative path after loading: \"%s\"", p->c_str());
  }
  return 0;
}
