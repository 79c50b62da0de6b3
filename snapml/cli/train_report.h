// What snap-train tells its user while and after it trains: the progress line,
// the summary, the per-epoch history file and the test-set metrics.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <ostream>
#include <string>

#include "snapml/dataset.h"
#include "snapml/model.h"
#include "snapml/solver.h"
#include "snapml/train.h"

namespace snapml::cli {

// One line on stderr rewritten in place ("\r") with the newest epoch, so that a
// long run shows it is alive without filling the scroll-back. Only on a terminal:
// a pipe or a log file gets no carriage returns.
class ProgressLine {
 public:
  // Draws nothing unless `enabled` and stderr is a terminal.
  explicit ProgressLine(bool enabled);
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool active() const { return active_; }
  // Text in front of the epoch, e.g. "fold 2/5"; "" for none.
  void set_stage(const std::string& stage);
  // Called from the solvers' threads (TrainParameters::on_epoch); redraws at
  // most ten times a second so that a fast solver is not slowed by the terminal.
  void update(int problem, const EpochRecord& record);
  // Erases the line, so that the next output starts on a clean one.
  void clear();

 private:
  using Clock = std::chrono::steady_clock;
  bool active_;
  std::mutex mutex_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_draw_{};
  std::string stage_;
  std::size_t drawn_width_ = 0;
};

// The duality gap of a fit's last epoch relative to its primal objective: the
// number compared with tol.
double relative_gap(const FitResult& fit);

// "snap-train: 12 epochs, relative duality gap 0.00081 <= tol 0.001, 0.42 s; saved a9a.model"
// to `out` (after a line naming the checkpoint a fit resumed from), and to `warnings` a line when a problem stopped at max_iter first.
void print_summary(const TrainResult& result, const TrainParameters& parameters, double seconds,
                   const std::string& saved_to, std::ostream& out, std::ostream& warnings);

// --history: a CSV row per epoch of every problem (OutputFile: atomically).
// Columns: problem, class (the class a problem separates from the rest; empty for
// regression), epoch, seconds, primal, dual, gap (primal - dual), relative_gap.
void write_history(const std::string& path, const TrainResult& result);

// --test: accuracy, log loss (logistic) and AUC (two classes), or mean squared
// error, R2 and squared correlation (regression) of `model` on `test`.
void report_test(const Model& model, const Dataset& test, int threads, std::ostream& out);

}  // namespace snapml::cli
