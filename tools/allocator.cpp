// mimalloc's tuning for the executables that run scenarios (meson.build
// links it into them, outside the sanitized build). Its default hands
// freed pages back to the OS after 25 ms and a segment's after 500 ms: a
// large group frees and takes again the same megabytes at every
// rebalance (subscriptions, snapshots, assignments), so the kernel zeroed
// them again and again (a fifth of a 10,000-member cooperative run in
// clear_page). 2 s and 10 s keep them; the peak barely moves (issue 16,
// docs/performance.md, "sixteenth").
#include <mimalloc.h>

namespace {

const bool kTuned = [] {
  mi_option_set(mi_option_decommit_delay, 2000);
  mi_option_set(mi_option_segment_decommit_delay, 10000);
  return true;
}();

}  // namespace
