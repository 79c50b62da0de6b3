// snap-train as one CoCoA+ rank under mpirun (distributed_train.h).
#include "distributed_train.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli_common.h"
#include "snapml/datasets/format.h"
#include "snapml/datasets/streamed_binary_source.h"
#include "snapml/datasets/partition.h"
#include "snapml/error.h"
#include "snapml/mpi/mpi_communicator.h"
#include "snapml/mpi/timed_communicator.h"
#include "snapml/threads.h"
#include "snapml/impl/rank_agreement.h"
#include "text_format.h"
#include "train_report.h"

namespace snapml::cli {
namespace {

using Clock = std::chrono::steady_clock;

// This rank's rows: a mapped run of chunks of a binary file (streamed from disk
// when --max-memory, a budget per rank, cannot hold them), or its share of an
// svmlight file parsed into `held`.
std::unique_ptr<ChunkSource> open_share(const TrainOptions& o, Communicator& communicator, Dataset& held,
                                        int& index_base) {
  datasets::InputFile input(o.training_file, o.max_memory);  // opened once: a pipe can be read only once
  // Every rank reads its share of one file: the same bytes, whatever the path.
  check_same_on_every_rank(communicator, "the training file", input.identity(), o.training_file,
                           "under mpirun every rank reads its share of one training file; give every rank the "
                           "same file");
  const bool binary = datasets::sniff_format(input, o.format) == DataFormat::Binary;
  require(o.max_memory == 0 || binary,
          "--max-memory streams a binary (.snap) file; " + o.training_file +
              " is text, which every rank parses into memory: convert it first (snap-convert)");
  if (binary && o.max_memory > 0) {
    datasets::BinaryFileLayout share = datasets::layout_share(datasets::read_binary_layout(input),
                                                              communicator.rank(), communicator.size());
    const datasets::BinarySourcePlan plan = datasets::plan_binary_source(share, o.max_memory);
    if (plan.stream) {
      // One write, so that the ranks' lines do not interleave on a shared stderr.
      if (!o.quiet)
        std::cerr << ("snap-train: rank " + std::to_string(communicator.rank()) + ": its " +
                      std::to_string(share.table.size()) + " chunks of " + o.training_file + " (" +
                      std::to_string(share.data_bytes()) + " bytes) exceed --max-memory; streaming them through " +
                      std::to_string(plan.buffers) + " buffers of " + std::to_string(share.largest_chunk_bytes()) +
                      " bytes\n");
      return std::make_unique<datasets::StreamedBinarySource>(std::move(share), plan.buffers);
    }
  }
  if (binary) {
    // Resident: the epochs visit the share's rows in any order (partition.h).
    datasets::BinaryOpenOptions options;
    options.access = datasets::BinaryAccess::Random;
    return std::make_unique<datasets::MappedBinaryPartition>(datasets::MappedBinaryFile(input, options),
                                                             communicator.rank(), communicator.size());
  }
  datasets::SvmlightOptions options;
  options.threads = o.parameters.threads;
  datasets::IndexBase base = datasets::IndexBase::Auto;
  held = datasets::read_svmlight_partition(std::move(input), communicator, options, &base);
  index_base = base == datasets::IndexBase::Zero ? 0 : 1;
  return std::make_unique<InMemorySource>(held);
}

std::string joined(const std::vector<std::int64_t>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) text += (i ? " " : "") + std::to_string(values[i]);
  return text;
}

// Rank 0's line about the distribution: rows per rank, rounds, what every rank
// reduced, and the time inside collectives (transfer and waiting), fastest and
// slowest rank.
void print_distribution(Communicator& world, const ChunkSource& source, const TrainResult& result,
                        const mpi::CommunicationStats& stats, double seconds) {
  const auto ranks = static_cast<std::size_t>(world.size());
  const auto rank = static_cast<std::size_t>(world.rank());
  std::vector<std::int64_t> rows(ranks, 0);
  rows[rank] = source.n_rows();
  world.allreduce_sum(rows.data(), rows.size());
  std::vector<double> comm_seconds(ranks, 0.0);
  comm_seconds[rank] = stats.seconds;
  world.allreduce_sum(comm_seconds.data(), comm_seconds.size());
  if (!world.is_root()) return;
  std::size_t rounds = 0;
  // CoCoA+'s merges; a primal fit's iterations (each a reduction of its products).
  for (const FitResult& fit : result.fits)
    rounds += fit.rounds > 0 ? static_cast<std::size_t>(fit.rounds) : fit.history.size();
  const double slowest = *std::max_element(comm_seconds.begin(), comm_seconds.end());
  const double fastest = *std::min_element(comm_seconds.begin(), comm_seconds.end());
  std::cout << printf_string(
      "snap-train: %zu ranks, rows per rank %s; %zu rounds, %lld allreduce calls, %lld bytes reduced per rank "
      "(%.0f per round); time in collectives %.3g to %.3g s of %.3g s (%.1f%% at most)\n",
      ranks, joined(rows).c_str(), rounds, static_cast<long long>(stats.allreduce_calls),
      static_cast<long long>(stats.allreduce_bytes),
      rounds ? static_cast<double>(stats.allreduce_bytes) / static_cast<double>(rounds) : 0.0, fastest, slowest,
      seconds, seconds > 0.0 ? 100.0 * slowest / seconds : 0.0);
}

int train_rank(TrainOptions& o, Communicator& world) {
  const std::string search = o.find_C ? "-C (the search for C by cross-validation)" : "-v (cross-validation)";
  require(o.folds == 0, search + " runs in one process; run snap-train " + (o.find_C ? "-C" : "-v") +
                            " without mpirun");
  TrainParameters& p = o.parameters;
  if (p.threads == 0) p.threads = threads_per_rank();
  const bool root = world.is_root();

  Dataset held;
  int index_base = -1;
  const std::unique_ptr<ChunkSource> source = open_share(o, world, held, index_base);
  // The test file is read (on rank 0, which alone evaluates) before training, so
  // that a wrong path ends the run at once; with the training file's index base.
  const Dataset test = root && !o.test_file.empty()
                           ? read_dataset(o.test_file, o.format, p.threads,
                                          {index_base, "the training file " + o.training_file})
                           : Dataset();

  ProgressLine progress(!o.quiet && root);
  if (progress.active())
    p.on_epoch = [&progress](int problem, const EpochRecord& record) { progress.update(problem, record); };
  mpi::TimedCommunicator timed(world);  // counts the training's collectives only
  const Clock::time_point started = Clock::now();
  TrainResult result = train_naming_file(o, [&] { return train(*source, timed, p); });
  result.model.index_base = index_base;
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  progress.clear();

  if (!o.quiet) print_distribution(world, *source, result, timed.stats(), seconds);
  if (!root) return kExitOk;
  // The history before the model: an output that fails (a full device) then
  // leaves the model as it was, not a new model beside exit 3.
  if (!o.history_file.empty()) write_history(o.history_file, result);
  if (o.liblinear_model)
    result.model.save_liblinear(o.model_file, result.plan.algorithm == SolverPlan::Algorithm::Newton);
  else
    result.model.save(o.model_file);
  if (!o.quiet) print_summary(result, p, seconds, o.model_file, std::cout, std::cerr);
  if (!o.test_file.empty()) report_test(result.model, test, p.threads, std::cout);
  std::cout.flush();
  return kExitOk;
}

}  // namespace

bool launched_as_mpi_rank() { return mpi::launched_by_mpi(); }

int train_as_mpi_rank(TrainOptions& options, int* argc, char*** argv) {
  mpi::MpiSession session(argc, argv);
  mpi::MpiCommunicator world;
  // run_tool maps the exception to snap-train's exit code and prints
  // "snap-train: rank R: message"; a failure on any rank then ends them all.
  const int code = run_tool("snap-train: rank " + std::to_string(world.rank()),
                            [&] { return train_rank(options, world); });
  if (code != kExitOk) {
    std::cerr.flush();
    // MpiCommunicator::abort always exits 2; here the status says which kind of
    // error it was (2 bad input, 3 I/O, ...), as for one process.
    MPI_Abort(MPI_COMM_WORLD, code);
    std::abort();
  }
  return kExitOk;
}

}  // namespace snapml::cli
