// How late one thread's steps may reach the others, whatever the team's size
// (snapml/src/dual/sdca_cpu.cpp; docs/algorithms.md, "Threads").
//
// A thread holds its changes to the columns every row shares (the hot columns'
// pending changes, hot_columns.h; a small w's per-thread copy, thread_copies.h)
// for a number of its rows before publishing them; another thread then reads
// them up to (T - 1) x that many rows late: PASSCoDe's bounded staleness (Hsieh,
// Yu & Dhillon, ICML 2015), whose guarantee needs the delay bounded. With a fixed
// 64 rows the delay grew with the team: w8a's epochs to 1e-4 went from 22 (one
// thread) to 23-29 at 16 threads, and on a 16-core machine a9a's copies (15 x 64
// rows behind) ran its 1,000 epochs without converging (device run of
// 2026-11-27, docs/benchmarks/threads.md). A constant total, two threads' 128
// rows, keeps the staleness of two threads for any team.
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
