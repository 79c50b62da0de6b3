// A small weight vector shared by a team of PASSCoDe threads through a copy per
// thread (snapml/src/dual/sdca_cpu.cpp; docs/algorithms.md, "Threads").
//
// On a w of a few hundred weights (a9a's 124, w8a's 301) every column is in many
// rows and every cache line of w is written by every thread all the time: with
// atomic adds, or with the hot columns' pending changes added atomically every
// few rows (hot_columns.h), two threads were slower than one (a9a hinge, 64
// epochs without shrinking: 0.101-0.111 s on two threads, 0.091-0.098 s on one).
// Here each thread steps on its own copy of w with plain loads and stores (the
// one-thread loop), and every publish_rows() rows it publishes its change since
// the last time into its own published vector (one writer, so nothing is lost and
// nothing is atomically added), then rebuilds its copy as w plus every thread's
// published change: another thread's steps reach it at most publish_rows() of its
// own rows late and all at once, the bounded staleness of PASSCoDe's reads
// (Hsieh, Yu & Dhillon, ICML 2015) that the hot columns already have. w itself is
// only read during the pass; fold() adds the published changes into it at the
// end, so w = w(alpha) holds again when the pass ends (the certificate's
// invariant), up to the rounding of the order the changes are added in.
//
// The rows between publications shrink with the team (team_staleness.h: 64 rows
// at two threads, 8 at sixteen), and each publication reads threads x weights
// values: the copies serve while that stays small next to the rows' own work
// (kMaxReadsPerRow), a9a's 124 weights up to 8 threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "team_staleness.h"

namespace snapml::detail {

class ThreadCopies {
 public:
  // Rows between publications: 64 at two threads (team_staleness.h).
  static constexpr int kMostPublishRows = 64;
  static int publish_rows(int threads) { return rows_between_publications(threads, kMostPublishRows); }
  // Values read by publications a row at most: 64, at two threads 4,096 a
  // publication, about a value a non-zero of 64 rows of a9a's 14 non-zeros.
  static constexpr std::int64_t kMaxReadsPerRow = 64;
  // The most weights the copies serve for a team of `threads`.
  static std::size_t max_weights(int threads) {
    if (threads < 2) return 0;
    return static_cast<std::size_t>(kMaxReadsPerRow * publish_rows(threads) / threads);
  }
  static bool fits(std::size_t weights, int threads) { return threads > 1 && weights <= max_weights(threads); }

  ThreadCopies(std::size_t weights, int threads);
  ThreadCopies(const ThreadCopies&) = delete;  // the copies point into its storage
  ThreadCopies& operator=(const ThreadCopies&) = delete;

  // One thread's copy, inside the team's parallel region.
  class Copy {
   public:
    // The copy of `base` the thread `thread` steps on.
    Copy(ThreadCopies& copies, int thread, const double* base);
    double* weights() { return local_.data(); }
    // Publishes this thread's change since the last call and takes every
    // thread's published change into the copy.
    void publish(const double* base);

   private:
    void refresh(const double* base);
    ThreadCopies& copies_;
    double* published_;            // this thread's, in copies_.published_
    std::vector<double> local_;    // the copy the steps read and write
    std::vector<double> snapshot_; // the copy as refresh() left it
  };

  // After the team's region (every thread's last publish): base += every
  // published change, and the published vectors back to 0.
  void fold(double* base);

 private:
  std::size_t weights_;
  std::size_t stride_;  // a whole number of cache lines, so no two threads share one
  int threads_;
  std::vector<double> storage_;
  double* published_;  // threads_ x stride_, in storage_ from a cache line's start
};

}  // namespace snapml::detail
