// Giving back what start-up touched once. A long-running process (the
// scheduler) runs much of its code only while it starts: parsing the
// configuration and the DAG files, setting up its parts. The kernel keeps
// those code pages mapped into the process (and counted in its RSS) for as
// long as it lives, although they are clean copies of files in the page
// cache. ReleaseStartupPages() unmaps them: every private file mapping that
// is not writable and holds no private (copy-on-write) page, i.e. code and
// read-only data that were never modified, is dropped with
// madvise(MADV_DONTNEED); what the process runs again is mapped back from
// the page cache at its first use (a minor fault). Nothing is lost: such a
// page is by definition identical to its file. Then malloc_trim(0) returns
// the heap's free pages.
//
// Linux only; errors are ignored (it is an optimisation). Call it from one
// thread once start-up is over. Other threads may run meanwhile, dlopen()
// included: a segment the loader is still relocating is writable or already
// holds private pages, so it is skipped. What must not happen meanwhile is a
// library being unmapped and another mapped at the same address between the
// read of /proc/self/smaps and the madvise: dagu never unloads a library
// (src/dynlib keeps what it loads; its only dlclose drops an RTLD_NOLOAD
// reference to a library that stays loaded).
#pragma once

#include <cstddef>

namespace dagu {

// Returns how many bytes of mappings were released (for the log).
size_t ReleaseStartupPages();

}  // namespace dagu
