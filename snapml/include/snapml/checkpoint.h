// Checkpoint and resume of a train() call (TrainParameters::checkpoint;
// docs/reliability.md, "Interruption").
//
// What is saved is what lets each problem go on to the same optimum: the dual
// solvers' alpha (w = w(alpha) is recomputed from it on resume, so the duality
// gap stays a certificate: solver.h's warm start from alpha), the Newton
// solver's weights, the local epochs done, and each finished one-vs-rest
// problem's weights. The permutation generator is not saved: a resumed fit takes
// other coordinate orders than an uninterrupted one would have, so it reaches
// the same optimum to within tol, not the same iterates bit for bit.
//
// The file: magic "SNAPMLCK", format version, a fingerprint (name, value pairs:
// this process's rows, the features, a checksum of the rows (rank_agreement.h),
// the ranks, the problems and the parameters that define the optimum), the
// problems' states, and a checksum of everything before it. It is written
// through AtomicFile (temporary file, fsync, rename), so a kill during a save
// leaves the previous checkpoint whole. train() refuses a checkpoint under
// several ranks for now; the file name and fingerprint already name the rank
// (FILE.rank-R-of-K) for when each rank saves its partition.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/solver.h"

namespace snapml {

struct TrainParameters;

// The state of one problem (one model row, or the multinomial problem's rows).
struct ProblemCheckpoint {
  enum class Status : std::uint8_t { NotStarted = 0, Running = 1, Done = 2 };
  Status status = Status::NotStarted;
  bool converged = false;  // Done: whether it met tol
  int epochs = 0;          // local epochs (Newton iterations) done
  SolverState state;       // Running: alpha or weights; Done: weights
  EpochRecord last;        // Done: the last certificate (the summary's gap)
};

using Fingerprint = std::vector<std::pair<std::string, std::string>>;

// Whether a save is due `since` seconds after the last one, which took
// `last_cost` seconds: once `interval` has passed, and never before 9 times the
// last save's cost, so that saving takes at most a tenth of the fit's time. A
// save (an fsync of the file and of its directory) takes milliseconds to tens of
// them: interval 0, a save after every epoch, made a9a's hinge fit 6 times
// slower here and 27 times on another disk (issue 36).
bool checkpoint_save_due(double since, double interval, double last_cost);

// The file this process reads and writes: `path`, or under mpirun with K > 1
// ranks path.rank-R-of-K.
std::string checkpoint_path(const std::string& path, int rank, int ranks);

// What must match between the run that wrote a checkpoint and the one resuming
// from it: this process's data (rows, features, the rows' checksum: one more
// pass over the source), the ranks, the number of problems and the parameters
// that define the optimum (rank_agreement.h's fit_defining_parameters, less
// those that only change the route: max_iter, local_epochs, adaptive_sigma,
// shrinking, certify_every_epoch, use_gpu, threads, seed).
Fingerprint checkpoint_fingerprint(ChunkSource& source, Communicator& communicator, const TrainParameters& p,
                                   std::size_t problems);

class TrainCheckpoint {
 public:
  TrainCheckpoint(std::string path, double interval_seconds, Fingerprint fingerprint, std::size_t problems);

  // Reads the file when it exists (false when it does not). Throws InputError
  // naming the file when it is not a checkpoint, truncated or damaged, and
  // InvalidArgument naming the file and every difference when its fingerprint
  // is not this run's.
  bool load();
  const ProblemCheckpoint& problem(std::size_t k) const { return problems_[k]; }
  const std::string& path() const { return path_; }

  // SolverParameters::on_progress of problem k: saves when the interval has
  // passed since the last save (0: every call). Thread-safe (one-vs-rest
  // problems run side by side).
  void progress(std::size_t k, int epochs, const std::function<SolverState()>& snapshot);
  // Problem k has finished with these weights: kept for the next save (made now
  // when the interval has passed).
  void finished(std::size_t k, const FitResult& fit, const std::vector<double>& weights);

 private:
  bool due() const;
  void save();  // under mutex_
  std::string encoded() const;

  std::string path_;
  std::chrono::duration<double> interval_;
  Fingerprint fingerprint_;
  std::vector<ProblemCheckpoint> problems_;
  std::chrono::steady_clock::time_point last_save_;
  double last_cost_ = 0.0;  // seconds the last save took
  std::mutex mutex_;
};

}  // namespace snapml
