#include "web/dag_list_order.h"

#include <algorithm>
#include <string>

#include "core/strings.h"

namespace dagu::web {

std::optional<WallTime> DagNextRun(const Dag* dag, WallTime now) {
  std::optional<WallTime> next;
  if (dag == nullptr) return next;
  for (const CronSchedule& c : dag->schedules.start) {
    auto n = c.Next(now);
    if (n && (!next || *n < *next)) next = n;
  }
  return next;
}

namespace {

bool HasSchedules(const DagFile& f) {
  const Dag* d = f.AnyDag();
  return d != nullptr && !d->schedules.start.empty();
}

std::vector<std::string> LowerNames(const DagListing& listing) {
  std::vector<std::string> out;
  out.reserve(listing.files.size());
  for (const auto& f : listing.files) out.push_back(AsciiLower(f->DagName()));
  return out;
}

std::vector<uint32_t> Identity(size_t n) {
  std::vector<uint32_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint32_t>(i);
  return out;
}

std::shared_ptr<const DagListOrders::Order> ByName(const DagListing& listing, bool desc) {
  const std::vector<std::string> lower = LowerNames(listing);
  auto order = std::make_shared<DagListOrders::Order>(Identity(listing.files.size()));
  std::stable_sort(order->begin(), order->end(),
                   [&](uint32_t a, uint32_t b) { return desc ? lower[b] < lower[a] : lower[a] < lower[b]; });
  return order;
}

std::shared_ptr<const DagListOrders::Order> ByNext(const DagListing& listing,
                                                    const std::vector<std::optional<WallTime>>& next, bool desc) {
  const std::vector<std::string> lower = LowerNames(listing);
  auto order = std::make_shared<DagListOrders::Order>(Identity(listing.files.size()));
  std::stable_sort(order->begin(), order->end(), [&](uint32_t a, uint32_t b) {
    if (!next[a] && !next[b]) return desc ? lower[b] < lower[a] : lower[a] < lower[b];
    if (!next[a]) return false;
    if (!next[b]) return true;
    return desc ? *next[b] < *next[a] : *next[a] < *next[b];
  });
  return order;
}

}  // namespace

bool DagListOrders::NextRunsHold(const DagListing& listing, const NextRuns& next, WallTime now) {
  if (now < next.from || now >= next.until) return false;
  for (uint32_t i : next.beyond) {
    if (DagNextRun(listing.files[i]->AnyDag(), now)) return false;
  }
  return true;
}

std::shared_ptr<const DagListOrders::Order> DagListOrders::Get(const std::shared_ptr<const DagListing>& listing,
                                                              DagListSort sort, bool desc, WallTime now) {
  std::shared_ptr<const State> kept;
  {
    std::lock_guard<std::mutex> l(mu_);
    kept = state_;
  }
  if (kept != nullptr && kept->listing != listing) kept = nullptr;
  const int d = desc ? 1 : 0;
  std::shared_ptr<const Order> found;
  std::shared_ptr<const NextRuns> next;  // the next runs an order is (to be) derived from
  if (sort == DagListSort::kName) {
    if (kept != nullptr) found = kept->by_name[d];
  } else if (kept != nullptr && kept->next != nullptr && NextRunsHold(*listing, *kept->next, now)) {
    next = kept->next;
    found = next->order[d];
  }
  if (found != nullptr) {
    std::lock_guard<std::mutex> l(mu_);
    ++counters_.hits;
    return found;
  }
  // Computed outside the lock; then kept beside what the state holds now.
  if (sort == DagListSort::kName) {
    found = ByName(*listing, desc);
  } else {
    auto made = std::make_shared<NextRuns>();
    if (next != nullptr) {
      *made = *next;  // same instants, one more direction
    } else {
      made->from = now;
      made->until = WallTime::max();
      made->at.reserve(listing->files.size());
      for (size_t i = 0; i < listing->files.size(); ++i) {
        std::optional<WallTime> n = DagNextRun(listing->files[i]->AnyDag(), now);
        if (n) made->until = std::min(made->until, *n);
        if (!n && HasSchedules(*listing->files[i])) made->beyond.push_back(static_cast<uint32_t>(i));
        made->at.push_back(n);
      }
    }
    found = ByNext(*listing, made->at, desc);
    made->order[d] = found;
    next = std::move(made);
  }
  std::lock_guard<std::mutex> l(mu_);
  ++counters_.computed;
  auto state = std::make_shared<State>();
  if (state_ != nullptr && state_->listing == listing) *state = *state_;
  state->listing = listing;
  if (sort == DagListSort::kName) {
    state->by_name[d] = found;
  } else {
    state->next = next;
  }
  state_ = std::move(state);
  return found;
}

DagListOrders::Counters DagListOrders::counters() const {
  std::lock_guard<std::mutex> l(mu_);
  return counters_;
}

}  // namespace dagu::web
