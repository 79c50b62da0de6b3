// Writes the checkpoint fuzzer's seed files (tests/fuzz/corpus/checkpoint/) with
// the fingerprint its harness expects (checkpoint_probe.h), through the writer
// the fits use (TrainCheckpoint). Run once by hand when the format changes:
//   make_checkpoint_seeds tests/fuzz/corpus/checkpoint
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "checkpoint_probe.h"
#include "snapml/solver.h"

namespace {

using snapml::SolverState;

// A fresh checkpoint at `path` holding `running` (problem 0's state, saved as a
// running fit) and, when `done` has weights, problem 1 finished with them.
void write_seed(const std::string& path, const SolverState& running, const std::vector<double>& done) {
  std::remove(path.c_str());
  snapml::TrainCheckpoint checkpoint(path, 0.0, snapml::fuzz::checkpoint_fingerprint_for_fuzzing(),
                                     snapml::fuzz::kCheckpointProblems);
  if (!done.empty()) {
    snapml::FitResult fit;
    fit.epochs = 7;
    fit.converged = true;
    snapml::EpochRecord last;
    last.epoch = 7;
    last.primal = 2.5;
    last.dual = 2.4;
    last.gap = 0.1;
    fit.history.push_back(last);
    checkpoint.finished(1, fit, done);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // past the last save's cost (checkpoint_save_due)
  checkpoint.progress(0, 3, [&] { return running; });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_checkpoint_seeds DIRECTORY\n");
    return 1;
  }
  const std::string dir = argv[1];
  SolverState dual;
  dual.alpha = {0.5, 0.0, 1.0, 0.25, 0.75, 0.125};  // one per row: SDCA's
  write_seed(dir + "/running_dual.ck", dual, {});
  SolverState primal;
  primal.weights = {0.5, -1.25, 2.0, 0.0625};  // features + 1: the Newton solver's
  write_seed(dir + "/running_primal_done.ck", primal, {1.0, 2.0, -3.0, 0.5});
  SolverState classes;
  classes.weights = {0.5, -1.25, 2.0, 0.0625, -0.5, 1.25, -2.0, 0.125};  // two rows: the multinomial loss's
  write_seed(dir + "/running_two_rows.ck", classes, {});
  return 0;
}
