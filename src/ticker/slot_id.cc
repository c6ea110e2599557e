#include "ticker/slot_id.h"

#include <algorithm>
#include <filesystem>

#include "core/sha256.h"
#include "core/time_format.h"

namespace dagu {

std::string NormaliseDataDir(std::string_view dir) {
  std::error_code ec;
  std::filesystem::path p(dir);
  std::filesystem::path abs = std::filesystem::absolute(p, ec);
  if (ec) abs = p;
  std::string out = abs.lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string ScheduledRunId(std::string_view data_dir, std::string_view dag_name, WallTime slot) {
  std::string key = NormaliseDataDir(data_dir);
  key += '\n';
  key += dag_name;
  return "sched-" + Sha256Hex(key).substr(0, 12) + "-" + FormatSlotUTC(slot);
}

std::string CatchupRunId(std::string_view dag_name, WallTime slot) {
  return "catchup-" + Sha256Hex(dag_name).substr(0, 12) + "-" + FormatSlotUTC(slot);
}

std::string LegacyCatchupRunId(std::string_view dag_name, WallTime slot) {
  std::string name(dag_name);
  std::replace(name.begin(), name.end(), '.', '_');
  if (name.size() > 31) name.resize(31);
  return "catchup-" + name + "-" + Sha256Hex(dag_name).substr(0, 8) + "-" + FormatSlotUTC(slot);
}

bool ParseScheduledRunId(std::string_view data_dir, std::string_view dag_name, std::string_view run_id,
                         WallTime* slot) {
  // sched-<12 hex>-YYYYMMDDTHHMMSS
  constexpr size_t kStamp = 15;
  if (run_id.size() != 6 + 12 + 1 + kStamp || run_id.substr(0, 6) != "sched-") return false;
  std::string_view stamp = run_id.substr(run_id.size() - kStamp);
  std::string rfc = std::string(stamp.substr(0, 4)) + "-" + std::string(stamp.substr(4, 2)) + "-" +
                    std::string(stamp.substr(6, 2)) + "T" + std::string(stamp.substr(9, 2)) + ":" +
                    std::string(stamp.substr(11, 2)) + ":" + std::string(stamp.substr(13, 2)) + "Z";
  WallTime t;
  bool set = false;
  if (!ParseRFC3339(rfc, &t, &set).ok() || !set) return false;
  if (ScheduledRunId(data_dir, dag_name, t) != run_id) return false;
  *slot = t;
  return true;
}

std::vector<std::string> SlotRunIds(std::string_view data_dir, std::string_view dag_name, WallTime slot) {
  return {ScheduledRunId(data_dir, dag_name, slot), CatchupRunId(dag_name, slot),
          LegacyCatchupRunId(dag_name, slot)};
}

}  // namespace dagu
