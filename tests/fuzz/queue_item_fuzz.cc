// Fuzz target: queue items. The first line of the input is an item's file
// name, the rest its contents; the item is listed from an in-memory queue
// directory (QueueStore::List, ListQueues, FindRunItems). Property: a name
// that parses is the name ItemFileName gives for what it parsed into.
#include <string>
#include <vector>

#include "core/clock.h"
#include "fuzz_check.h"
#include "mem_file_system.h"
#include "store/queue_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  size_t nl = text.find('\n');
  std::string name = text.substr(0, nl);
  std::string contents = nl == std::string::npos ? "" : text.substr(nl + 1);
  if (name.empty() || name.find('/') != std::string::npos || name.find('\0') != std::string::npos) return 0;

  dagu::QueuePriority priority;
  dagu::WallTime queued_at;
  std::string run_id;
  if (dagu::QueueStore::ParseItemFileName(name, &priority, &queued_at, &run_id)) {
    std::string again = dagu::QueueStore::ItemFileName(priority, queued_at, run_id);
    FUZZ_CHECK(again == name, "\"%s\" parses into what gives the name \"%s\"", name.c_str(), again.c_str());
  }
  dagu::fuzz::MemFileSystem fs;
  fs.Put("/fuzz/queue/default/" + name, contents);
  dagu::QueueStore store(&fs, dagu::Clock::Real(), "/fuzz/queue");
  std::vector<dagu::QueueItem> items;
  FUZZ_CHECK(store.List("default", &items).ok(), "List failed");
  FUZZ_CHECK(items.size() <= 1, "one file listed as %zu items", items.size());
  std::vector<std::string> queues;
  FUZZ_CHECK(store.ListQueues(&queues).ok(), "ListQueues failed");
  for (const auto& item : items) {
    std::vector<dagu::QueueItem> found;
    FUZZ_CHECK(store.FindRunItems("default", item.run_id, &found).ok() && found.size() == 1,
               "the listed item is not found by its run ID");
  }
  return 0;
}
