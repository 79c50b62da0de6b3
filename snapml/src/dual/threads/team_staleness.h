// How late one thread's steps may reach the others, whatever the team's size
// (snapml/src/dual/sdca_cpu.cpp; docs/algorithms.md, "Threads").
//
// A thread holds its changes to the columns every row shares (the hot columns'
// pending changes, hot_columns.h; a small w's per-thread copy, thread_copies.h)
// for a number of its rows before publishing them; another thread then reads
// them up to (T - 1) x that many rows late: PASSCoDe's bounded staleness (Hsieh,
// Yu & Dhillon, ICML 2015), whose guarantee needs the delay bounded. With a fixed
// 64 rows the delay grew with the team: w8a's epochs to 1e-4 went from 22 (one
// thread) to 23-29 at 16 threads. A constant total, two threads' 128 rows, keeps
// the staleness of two threads for any team. It does not make many threads safe
// on columns in most rows: on a 16-core machine a9a's copies stalled at 4 threads
// with 32 rows as with 64 (device run of 2026-11-27), hence replicas past two
// threads for such data (snapml/thread_updates.h).
#pragma once

#include <algorithm>

namespace snapml::detail {

inline constexpr int kTeamStaleRows = 128;
inline constexpr int kMinPublishRows = 8;

// Rows a thread steps between two publications: kTeamStaleRows / threads, within
// [kMinPublishRows, most].
inline int rows_between_publications(int threads, int most) {
  return std::clamp(kTeamStaleRows / std::max(threads, 1), kMinPublishRows, most);
}

}  // namespace snapml::detail
