// Helpers for the scheduling parts' unit tests: RFC3339 literals, cron
// schedules in UTC, and TestDags -- DAG files in a temporary directory whose
// loaded form the test sets directly (no YAML), behind a real DagCatalog.
// Header-only (it links against the parts that include it).
#pragma once

#include <chrono>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/time_format.h"
#include "cron/time_zone.h"
#include "dagwatch/dag_catalog.h"
#include "support/temp_dir.h"

namespace dagu::testing {

// An RFC3339 literal as a WallTime (fails the test when it does not parse).
inline WallTime T(const char* rfc3339) {
  WallTime t;
  bool set = false;
  EXPECT_TRUE(ParseRFC3339(rfc3339, &t, &set).ok()) << rfc3339;
  return t;
}

// Times as RFC3339 UTC strings, for readable test failures.
template <class Container>
std::vector<std::string> Fmt(const Container& times) {
  std::vector<std::string> out;
  for (WallTime t : times) out.push_back(FormatRFC3339UTC(t));
  return out;
}

inline std::vector<CronSchedule> UtcCrons(std::initializer_list<const char*> exprs) {
  const date::time_zone* utc = nullptr;
  EXPECT_TRUE(LocateZone("UTC", &utc).ok());
  std::vector<CronSchedule> out;
  for (const char* e : exprs) {
    CronSchedule s;
    Status st = CronSchedule::Parse(e, utc, &s);
    EXPECT_TRUE(st.ok()) << st.ToString();
    out.push_back(s);
  }
  return out;
}

class TestDags {
 public:
  // DAG files go to `dir`/dags; `fs` is what the catalog reads through.
  TestDags(const TempDir& dir, FileSystem* fs)
      : dir_(dir),
        catalog_(fs, dir.Sub("dags"), [this](const std::string& path, Dag* out) { return Load(path, out); }) {
    std::filesystem::create_directories(dir.Sub("dags"));
  }

  // Writes dags/<name>.yaml; the catalog loads it as the returned Dag, which
  // the test may still change before the next rescan.
  Dag& Add(const std::string& name, std::initializer_list<const char*> start,
           std::initializer_list<const char*> stop = {}, std::initializer_list<const char*> restart = {}) {
    std::string path = dir_.WriteFile("dags/" + name + ".yaml", name + "\n");
    // Old files unless a test says otherwise (SetFileTime): the replayer
    // reads the file's mtime as evidence of when the DAG existed, and the
    // tests' slots are in 2026. Each Add gets its own mtime, so the catalog
    // sees a re-Add as a change.
    SetFileTime(name, T("2000-01-01T00:00:00Z") + std::chrono::seconds(++adds_));
    Dag& d = defs_[path];
    d = Dag();
    d.name = name;
    d.location = path;
    d.schedules.start = UtcCrons(start);
    d.schedules.stop = UtcCrons(stop);
    d.schedules.restart = UtcCrons(restart);
    return d;
  }

  void Remove(const std::string& name) { std::filesystem::remove(dir_.Sub("dags/" + name + ".yaml")); }

  // Sets the mtime of dags/<name>.yaml (the catalog reloads it at its next
  // rescan and reports the time as DagCatalog::FileMtime).
  void SetFileTime(const std::string& name, WallTime t) {
    auto file_time = std::chrono::file_clock::from_sys(t);
    std::filesystem::last_write_time(dir_.Sub("dags/" + name + ".yaml"),
                                     std::chrono::time_point_cast<std::filesystem::file_time_type::duration>(file_time));
  }

  DagCatalog& catalog() { return catalog_; }

 private:
  Status Load(const std::string& path, Dag* out) {
    auto it = defs_.find(path);
    if (it == defs_.end()) return Status::InvalidArgument(path + ": unknown test DAG");
    *out = it->second;
    return Status::OK();
  }

  const TempDir& dir_;
  std::map<std::string, Dag> defs_;
  int adds_ = 0;
  DagCatalog catalog_;
};

}  // namespace dagu::testing
