// Labels to binary problems, class weights, one-vs-rest scheduling.
#include "snapml/train.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "../common/omp_threads.h"
#include "snapml/atomic_file.h"
#include "snapml/checkpoint.h"
#include "snapml/error.h"
#include "snapml/feature_memory.h"
#include "snapml/impl/rank_agreement.h"
#include "snapml/output_path.h"
#include "snapml/solver_factory.h"
#include "compact_columns.h"
#include "target_transform.h"

namespace snapml {
namespace {

// What one pass over the data tells us, agreed over all ranks.
struct LabelSummary {
  std::int32_t n_features = 0;
  std::int64_t n_rows = 0;
  std::vector<double> classes;       // sorted (classification only)
  std::vector<double> class_weight_sums;  // the sample weights of each class's rows, summed
  detail::TargetStats targets;       // this rank's (regression only)
};

// A class's rows on this rank: how many, and their sample weights summed.
struct ClassTally {
  std::int64_t rows = 0;
  double weight = 0.0;
};

// Union of every rank's (label, tally) table: each rank writes its table into
// its own slot of a zeroed array and a sum gathers them all, exactly; the ranks'
// weights are then added in rank order (the same sum on every rank).
void gather_classes(std::map<double, ClassTally>& local, Communicator& communicator) {
  const auto ranks = static_cast<std::size_t>(communicator.size());
  if (ranks == 1) return;
  std::int64_t longest = static_cast<std::int64_t>(local.size());
  communicator.allreduce_max(&longest, 1);
  const auto slot = static_cast<std::size_t>(longest);
  std::vector<double> labels(ranks * slot, 0.0);
  std::vector<std::int64_t> counts(ranks * slot, 0);
  std::vector<double> weights(ranks * slot, 0.0);
  std::size_t position = static_cast<std::size_t>(communicator.rank()) * slot;
  for (const auto& [label, tally] : local) {
    labels[position] = label;
    weights[position] = tally.weight;
    counts[position++] = tally.rows;
  }
  communicator.allreduce_sum(labels.data(), labels.size());
  communicator.allreduce_sum(counts.data(), counts.size());
  communicator.allreduce_sum(weights.data(), weights.size());
  local.clear();
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (counts[i] > 0) {
      ClassTally& tally = local[labels[i]];
      tally.rows += counts[i];
      tally.weight += weights[i];
    }
}

LabelSummary summarise(ChunkSource& source, Communicator& communicator, bool classification) {
  std::map<double, ClassTally> counts;
  detail::TargetStats targets;
  CsrView x;
  source.reset();
  while (source.next(x)) {
    for (std::int64_t row = 0; row < x.n_rows; ++row) {
      const double label = x.labels[row];
      const float weight = x.weight(row);
      require(std::isfinite(label), "row " + std::to_string(x.first_row + row) +
                                        " has a label that is not a finite number");
      require(std::isfinite(weight) && weight >= 0.0f,
              "row " + std::to_string(x.first_row + row) +
                  " has a negative or non-finite sample weight; weights must be >= 0");
      if (classification) {
        ClassTally& tally = counts[label];
        ++tally.rows;
        tally.weight += weight;
      }
      else targets.add(label, weight);
    }
  }
  LabelSummary summary;
  summary.targets = targets;
  std::int64_t sizes[2] = {source.n_features(), 0};
  communicator.allreduce_max(sizes, 1);
  summary.n_features = static_cast<std::int32_t>(sizes[0]);
  sizes[1] = source.n_rows();
  communicator.allreduce_sum(sizes + 1, 1);
  summary.n_rows = sizes[1];
  if (classification) {
    gather_classes(counts, communicator);
    for (const auto& [label, tally] : counts) {
      summary.classes.push_back(label);
      summary.class_weight_sums.push_back(tally.weight);
    }
  }
  return summary;
}

std::vector<double> class_weights(const LabelSummary& summary, const TrainParameters& p,
                                  std::vector<double>& ignored) {
  const std::size_t n_classes = summary.classes.size();
  std::vector<double> weights(n_classes, 1.0);
  require(!(p.balanced_class_weight && !p.class_weight.empty()),
          "class_weight: pass either per-class weights or balanced, not both");
  if (p.balanced_class_weight) {
    // scikit-learn's compute_class_weight("balanced", sample_weight=...): the
    // classes' sample weights, not their row counts (the same without weights):
    // total / (n_classes x the class's). A class whose rows all weigh 0 has nothing
    // to balance: 1.
    double total = 0.0;
    for (double sum : summary.class_weight_sums) total += sum;
    for (std::size_t k = 0; k < n_classes; ++k) {
      const double sum = summary.class_weight_sums[k];
      weights[k] = sum > 0.0 ? total / (static_cast<double>(n_classes) * sum) : 1.0;
    }
  }
  for (const auto& [label, weight] : p.class_weight) {
    const auto found = std::find(summary.classes.begin(), summary.classes.end(), label);
    if (found == summary.classes.end() && p.ignore_absent_class_weights) {
      ignored.push_back(label);
      continue;
    }
    require(found != summary.classes.end(),
            "class_weight names label " + number_text(label) + ", which is not in the training labels");
    require(std::isfinite(weight) && weight >= 0.0,
            "class_weight for label " + number_text(label) + " must be finite and >= 0");
    weights[static_cast<std::size_t>(found - summary.classes.begin())] = weight;
  }
  return weights;
}

// The binary problems: their solver parameters and warm starts.
struct Problem {
  SolverParameters parameters;
  SolverState state;
};

std::vector<Problem> make_problems(const LabelSummary& summary, const std::vector<double>& weights,
                                   const TrainParameters& p) {
  SolverParameters base = problem_parameters(p);
  std::vector<Problem> problems;
  const std::size_t n_classes = summary.classes.size();
  if (loss_is_per_class(p.loss) && n_classes > 2) {
    // One problem whose weights are a row per class (the multinomial loss),
    // trained by the primal Newton solver, the only one that takes it.
    base.classes = summary.classes;
    base.class_weights = weights;
    problems.push_back({base, {}});
  } else if (loss_is_per_class(p.loss)) {
    // Two classes: the softmax of two scores is the sigmoid of their difference,
    // so the multinomial loss is the logistic loss (scikit-learn trains it so too).
    base.loss = LossKind::Logistic;
    base.solver = p.solver;
    base.positive_label = summary.classes[1];
    base.class_weight_positive = weights[1];
    base.class_weight_negative = weights[0];
    problems.push_back({base, {}});
  } else if (n_classes == 0) {
    problems.push_back({base, {}});
  } else if (n_classes == 2) {
    base.positive_label = summary.classes[1];
    base.class_weight_positive = weights[1];
    base.class_weight_negative = weights[0];
    problems.push_back({base, {}});
  } else {
    for (std::size_t k = 0; k < n_classes; ++k) {
      base.positive_label = summary.classes[k];
      base.class_weight_positive = weights[k];
      base.class_weight_negative = 1.0;  // LIBLINEAR's one-vs-rest: the rest cost C
      problems.push_back({base, {}});
    }
  }
  for (std::size_t k = 0; k < problems.size(); ++k) {
    if (p.on_epoch)
      problems[k].parameters.on_epoch = [on_epoch = p.on_epoch, k](const EpochRecord& record) {
        on_epoch(static_cast<int>(k), record);
      };
    if (p.on_round)
      problems[k].parameters.on_progress = [on_round = p.on_round, k](int, const std::function<SolverState()>&) {
        on_round(static_cast<int>(k));
      };
    validate(problems[k].parameters);
  }
  return problems;
}

// The fit's column j is the data's column `columns[j]`, or j itself where
// `columns` is empty (compact_columns.h).
std::int32_t data_column(const std::vector<std::int32_t>& columns, std::size_t j) {
  return columns.empty() ? static_cast<std::int32_t>(j) : columns[j];
}

void apply_warm_start(const Model& start, const LabelSummary& summary, const std::vector<std::int32_t>& columns,
                      const TrainParameters& p, const detail::TargetTransform& transform,
                      std::vector<Problem>& problems) {
  require(start.loss == p.loss, std::string("warm start: the model was trained with the ") +
                                    loss_name(start.loss) + " loss, not " + loss_name(p.loss));
  require(start.classes == summary.classes,
          "warm start: the model's classes differ from the training labels");
  require(start.n_features <= summary.n_features,
          "warm start: the model has " + std::to_string(start.n_features) +
              " features, more than the data's " + std::to_string(summary.n_features));
  start.check();
  // A NaN or infinity would start every problem there: the dual solvers'
  // start alpha(w) and the Newton solver's iterates turn NaN, and a NaN model
  // came back with only a convergence warning.
  for (std::size_t i = 0; i < start.coef.size(); ++i)
    require(std::isfinite(start.coef[i]), [&] {
      const auto width = static_cast<std::size_t>(std::max(start.n_features, 1));
      return "warm start: coefficient [" + std::to_string(i / width) + ", " + std::to_string(i % width) + "] is " +
             number_text(start.coef[i]) + "; a warm start needs finite coefficients (fit afresh)";
    });
  for (std::size_t r = 0; r < start.intercept.size(); ++r)
    require(std::isfinite(start.intercept[r]), [&] {
      return "warm start: intercept [" + std::to_string(r) + "] is " + number_text(start.intercept[r]) +
             "; a warm start needs finite coefficients (fit afresh)";
    });
  const double scaling = p.fit_intercept ? p.intercept_scaling : 0.0;
  // A problem holds one model row, or all of them (the multinomial loss).
  const std::size_t rows_each = static_cast<std::size_t>(start.n_outputs()) / problems.size();
  const std::size_t width = columns.empty() ? static_cast<std::size_t>(summary.n_features) : columns.size();
  const std::size_t stride = width + 1;
  for (std::size_t k = 0; k < problems.size(); ++k) {
    std::vector<double>& w = problems[k].state.weights;
    w.assign(stride * rows_each, 0.0);
    for (std::size_t r = 0; r < rows_each; ++r) {
      const std::size_t row = k * rows_each + r;
      // In the transformed targets' units (target_transform.h). A column the
      // data leaves empty starts (and ends) at 0, its optimum.
      const double* coef = start.coef_row(static_cast<int>(row));
      for (std::size_t j = 0; j < width; ++j) {
        const std::int32_t column = data_column(columns, j);
        if (column < start.n_features) w[r * stride + j] = coef[column] / transform.scale;
      }
      if (scaling > 0.0) w[r * stride + stride - 1] = (start.intercept[row] - transform.shift) / transform.scale / scaling;
    }
  }
}

Model assemble(const LabelSummary& summary, const std::vector<std::int32_t>& columns,
               const std::vector<double>& weights, const TrainParameters& p,
               const detail::TargetTransform& transform, const std::vector<Problem>& problems) {
  Model model;
  // Two classes under the multinomial loss train the logistic loss (make_problems).
  model.loss = problems.front().parameters.loss;
  model.penalty = p.penalty;
  model.classes = summary.classes;
  model.n_features = summary.n_features;
  model.intercept_scaling = p.fit_intercept ? p.intercept_scaling : 0.0;
  model.C = p.C;
  model.tol = p.tol;
  model.epsilon = p.epsilon;
  model.max_iter = p.max_iter;
  model.class_weight = summary.classes.empty() ? std::vector<double>{} : weights;
  const auto n_features = static_cast<std::size_t>(summary.n_features);
  const std::size_t width = columns.empty() ? n_features : columns.size();
  for (const Problem& problem : problems) {
    // The fit's width + 1 weights per model row; the multinomial problem holds them all.
    const std::vector<double>& w = problem.state.weights;
    for (std::size_t row = 0; row + width < w.size(); row += width + 1) {
      // Back from the transformed targets' units: w = s w', b = s b' + c; the
      // columns the data leaves empty 0 (compact_columns.h).
      const std::size_t first = model.coef.size();
      model.coef.resize(first + n_features, 0.0);
      for (std::size_t j = 0; j < width; ++j)
        model.coef[first + static_cast<std::size_t>(data_column(columns, j))] = w[row + j] * transform.scale;
      model.intercept.push_back(w[row + width] * model.intercept_scaling * transform.scale + transform.shift);
    }
  }
  model.check();
  return model;
}

void check_parameters(const TrainParameters& p) {
  require(!p.fit_intercept || (std::isfinite(p.intercept_scaling) && p.intercept_scaling > 0.0 &&
                                p.intercept_scaling <= kMaxInterceptScaling),
          [&] {
            return "intercept_scaling must be in (0, " + number_text(kMaxInterceptScaling) +
                   "] when fit_intercept is true, got " + number_text(p.intercept_scaling);
          });
  if (!is_classification(p.loss))
    require(p.class_weight.empty() && !p.balanced_class_weight,
            "class_weight applies to classifiers only; the squared loss is a regression");
}

LabelSummary checked_summary(ChunkSource& source, Communicator& communicator, const TrainParameters& p) {
  LabelSummary summary = summarise(source, communicator, is_classification(p.loss));
  require(summary.n_rows > 0, "the training data has no rows");
  if (is_classification(p.loss))
    require(summary.classes.size() >= 2,
            "classification needs at least two distinct labels; the data has only " +
                number_text(summary.classes.front()));
  return summary;
}

}  // namespace

SolverParameters problem_parameters(const TrainParameters& p) {
  SolverParameters base;
  copy_shared_parameters(p, base);  // the fields snapml/parameters.h marks `copied`
  base.penalise_intercept = p.penalise_intercept || !p.fit_intercept;
  base.intercept_scaling = p.fit_intercept ? p.intercept_scaling : 0.0;
  base.max_epochs = p.max_iter;
  // The multinomial loss (one joint problem over the classes) trains by the
  // primal Newton solver, the only one that takes it.
  if (loss_is_per_class(p.loss)) base.solver = SolverChoice::Primal;
  return base;
}

SolverPlan plan(const TrainParameters& parameters) {
  return plan_solver(problem_parameters(parameters), parameters.use_gpu);
}

namespace {

// Thrown into the other workers' epochs once one worker has failed, so that they
// stop within an epoch instead of finishing their problems.
struct Cancelled {};

void fit_problem(Problem& problem, ChunkSource& source, Communicator& communicator, SolverSession& session,
                 FitResult& fit, TrainCheckpoint* checkpoint, std::size_t k) {
  if (checkpoint && checkpoint->problem(k).status == ProblemCheckpoint::Status::Done) {
    // Finished before the interruption: its weights are the result.
    const ProblemCheckpoint& saved = checkpoint->problem(k);
    problem.state.weights = saved.state.weights;
    fit.epochs = saved.epochs;
    fit.converged = saved.converged;
    fit.history.push_back(saved.last);
    return;
  }
  auto solver = session.make(problem.parameters);
  fit = solver->fit(source, communicator, problem.state);
  // No fit returns a model it cannot certify: a fit with no certificate (a
  // resumed one left no epoch to run) would report a gap of 0 for weights
  // nothing checked. open_checkpoint refuses the one known way there.
  if (fit.history.empty())
    throw Error("problem " + std::to_string(k) + " returned without a certificate after " +
                std::to_string(fit.epochs) + " epochs; no model is written");
  if (checkpoint) checkpoint->finished(k, fit, problem.state.weights);
  // The model needs the weights only; dropping each problem's dual variables
  // keeps one-vs-rest at one problem's per-row state (an out-of-core budget).
  std::vector<double>().swap(problem.state.alpha);
}

// For the problems side by side: a problem's callback, unless another has failed
// (then Cancelled ends this one); a throwing callback is a failure.
template <typename Callback, typename... Arguments>
void call_unless_failed(std::atomic<bool>& failed, const Callback& callback, const Arguments&... arguments) {
  if (failed.load()) throw Cancelled{};
  if (!callback) return;
  try {
    callback(arguments...);
  } catch (...) {
    failed = true;
    throw;
  }
}

// One-vs-rest problems side by side: with T threads and P problems, min(P, T)
// workers, each taking the next problem from a shared counter and solving it with
// max(1, T / min(P, T)) threads. Worker 0 is the calling thread, so that an
// on_epoch callback that must run there (Python's Ctrl-C check) still does.
void fit_problems_in_parallel(ChunkSource& source, SolverSession& session, std::vector<Problem>& problems,
                              int threads, std::vector<FitResult>& fits, TrainCheckpoint* checkpoint) {
  const int workers = std::min(static_cast<int>(problems.size()), threads);
  const int threads_each = std::max(1, threads / workers);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  for (Problem& problem : problems) {
    problem.parameters.threads = threads_each;
    // Checked with every record and between rounds (the solvers without rounds,
    // penalty l1, certify after every iteration), so the others stop within an
    // epoch of a failure; a callback that throws raises the flag before its
    // exception unwinds the fit.
    problem.parameters.on_epoch = [&failed, on_epoch = problem.parameters.on_epoch](const EpochRecord& record) {
      call_unless_failed(failed, on_epoch, record);
    };
    problem.parameters.on_progress = [&failed, on_progress = problem.parameters.on_progress](
                                         int epochs, const std::function<SolverState()>& snapshot) {
      call_unless_failed(failed, on_progress, epochs, snapshot);
    };
  }
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(workers));
  auto work = [&](std::size_t worker) {
    try {
      ResidentReader reader(source);
      LocalCommunicator communicator;
      for (std::size_t k = next++; k < problems.size() && !failed.load(); k = next++)
        fit_problem(problems[k], reader, communicator, session, fits[k], checkpoint, k);
    } catch (const Cancelled&) {
    } catch (...) {
      failures[worker] = std::current_exception();
      failed = true;
    }
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) pool.emplace_back(work, static_cast<std::size_t>(w));
  work(0);
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

// --checkpoint: reads the file when there is one and starts each problem where
// it stopped; every problem saves its progress through it (checkpoint.h).
std::unique_ptr<TrainCheckpoint> open_checkpoint(ChunkSource& source, Communicator& communicator,
                                                 const TrainParameters& p, std::vector<Problem>& problems,
                                                 std::vector<int>& resumed_epochs) {
  resumed_epochs.assign(problems.size(), 0);
  if (p.checkpoint.empty()) return nullptr;
  require(p.penalty != Penalty::L1,
          "checkpoint: the penalty l1 solvers (newGLMNET, coordinate descent) do not save their state; train "
          "without a checkpoint, or with penalty l2 or none");
  // Several ranks would each save their partition (FILE.rank-R-of-K) and must
  // agree on where to resume; that is not built and tested yet.
  require(communicator.size() == 1,
          "checkpoint: not yet available under mpirun (" + std::to_string(communicator.size()) +
              " ranks); train in one process to checkpoint, or without a checkpoint");
  require(std::isfinite(p.checkpoint_interval) && p.checkpoint_interval >= 0.0,
          [&] { return "checkpoint_interval must be >= 0 seconds, got " + number_text(p.checkpoint_interval); });
  // A regular file in a directory that exists, found now rather than at the
  // first save (output_path.h; the tools also check it against their inputs).
  check_outputs({}, {{"checkpoint", checkpoint_path(p.checkpoint, communicator.rank(), communicator.size()), true}});
  auto checkpoint = std::make_unique<TrainCheckpoint>(
      checkpoint_path(p.checkpoint, communicator.rank(), communicator.size()), p.checkpoint_interval,
      checkpoint_fingerprint(source, communicator, p, problems.size()), problems.size());
  checkpoint->load();
  for (std::size_t k = 0; k < problems.size(); ++k) {
    const ProblemCheckpoint& saved = checkpoint->problem(k);
    resumed_epochs[k] = saved.epochs;
    // max_iter counts the epochs before the interruption too: a budget they
    // have used up leaves nothing to run and nothing to certify the saved state
    // with (it returned weights no gap had checked, and a gap of 0).
    require(saved.status != ProblemCheckpoint::Status::Running || saved.epochs < p.max_iter, [&] {
      return "the checkpoint " + checkpoint->path() + " has done " + std::to_string(saved.epochs) +
             " epochs of problem " + std::to_string(k) + " and max_iter (--max-iter) " + std::to_string(p.max_iter) +
             " (which counts them) leaves none to run: raise max_iter above " + std::to_string(saved.epochs) +
             " to resume, or remove the checkpoint to start afresh";
    });
    if (saved.status == ProblemCheckpoint::Status::Running) {
      problems[k].parameters.first_epoch = saved.epochs;
      problems[k].state = saved.state;  // a warm start from alpha (or the Newton solver's weights)
    }
    problems[k].parameters.on_progress = [raw = checkpoint.get(), k, on_round = problems[k].parameters.on_progress](
                                             int epochs, const std::function<SolverState()>& snapshot) {
      if (on_round) on_round(epochs, snapshot);
      raw->progress(k, epochs, snapshot);
    };
  }
  return checkpoint;
}

}  // namespace

void remove_checkpoint(const TrainParameters& parameters, const Communicator& communicator) {
  if (parameters.checkpoint.empty()) return;
  const std::string path = checkpoint_path(parameters.checkpoint, communicator.rank(), communicator.size());
  // The file the saves wrote, where the path's links lead (output_path.h): a
  // link given as the checkpoint stays; only a regular file is ever removed.
  const OutputTarget where = resolve_output(path);
  if (where.kind != OutputTarget::Kind::File) return;
  std::error_code ignored;  // already gone is fine
  std::filesystem::remove(where.path, ignored);
  // A save killed before its rename left its temporary file: no later save of
  // this checkpoint will remove it.
  AtomicFile::remove_leftovers(path);
}

TrainResult train(ChunkSource& source, Communicator& communicator, const TrainParameters& given) {
  check_parameters(given);
  // Threads left open (0) are chosen from the work of an epoch: every problem's
  // pass over this rank's non-zeros (resolve_fit_threads).
  TrainParameters p = given;
  check_ranks_agree(source, communicator, p);
  const LabelSummary summary = checked_summary(source, communicator, p);
  std::vector<double> ignored_class_weights;
  const std::vector<double> weights = class_weights(summary, p, ignored_class_weights);
  std::vector<Problem> problems = make_problems(summary, weights, p);
  p.threads = detail::resolve_fit_threads(p.threads, source.nnz() * static_cast<std::int64_t>(problems.size()));
  for (Problem& problem : problems) problem.parameters.threads = p.threads;
  // The fit's columns: the used ones where few enough are, or every used one by
  // its count where they outgrow a core's cache (compact_columns.h), in one
  // process on the CPU (ranks would have to agree on them; a GPU path over
  // renumbered rows no device has run).
  std::optional<detail::CompactColumns> compact;
  if (communicator.size() == 1 && !p.use_gpu) {
    std::vector<std::int32_t> used = detail::fit_columns(source, p.max_memory, p.threads);
    if (!used.empty()) compact.emplace(source, std::move(used), p.threads);
  }
  ChunkSource& columns = compact ? static_cast<ChunkSource&>(*compact) : source;
  const std::vector<std::int32_t> no_map;
  const std::vector<std::int32_t>& column_map = compact ? compact->used() : no_map;
  const std::int32_t fit_width = compact ? columns.n_features() : summary.n_features;
  TrainResult result;
  result.ignored_class_weights = std::move(ignored_class_weights);
  result.fits.resize(problems.size());
  // The problems differ in their labels and class weights only, which no plan reads.
  result.plan = plan_solver(problems.front().parameters, p.use_gpu);
  // Side by side only in one process (ranks must run the problems' collectives in
  // the same order), on the CPU (a GPU problem already fills its devices) and
  // with the data resident (streamed sources read one pass at a time).
  const int threads = detail::resolve_threads(p.threads);
  const bool side_by_side =
      communicator.size() == 1 && source.resident() && !p.use_gpu && problems.size() > 1 && threads > 1;
  const std::size_t running = side_by_side ? std::min(problems.size(), static_cast<std::size_t>(threads)) : 1;
  // Before anything sized by the feature count is allocated (feature_memory.h).
  // The multinomial problem keeps K weight vectors (and the Newton solver's few
  // vectors of that size): counted as K problems.
  const std::size_t weight_rows =
      loss_is_per_class(p.loss) && summary.classes.size() > 2 ? summary.classes.size() : problems.size();
  // The dual solver's threads may each hold a copy of w (thread_updates.h): counted
  // wherever its rule could pick them, before the solver's first pass knows the
  // columns' skew and whether the fit shrinks (taken at their worst).
  ReplicaProblem worst;
  worst.epoch_nnz = source.nnz();
  worst.n_features = fit_width;
  worst.skewed_columns = true;
  const bool replicas_possible =
      p.penalty == Penalty::L2 && !p.use_gpu && use_replicas(p.thread_updates, threads, worst);
  // The CPU dual solver's second iterate (cocoa_round.h): the hinge's average, a
  // smooth loss's best certified one.
  const bool iterate_copy = p.penalty == Penalty::L2 && !p.use_gpu;
  // The model's full width, which assemble() fills, whatever the fit's.
  check_feature_memory(summary.n_features,
                       fit_bytes_per_feature(p.penalty, weight_rows, running,
                                             replicas_possible ? static_cast<std::size_t>(threads) : 0,
                                             iterate_copy),
                       p.max_memory);
  if (p.penalty == Penalty::L1) check_l1_copy_memory(source.resident(), source.nnz(), source.n_rows(), p.max_memory);
  // Regression: the targets the solvers see (target_transform.h).
  detail::TargetTransform transform;
  std::optional<detail::TransformedTargets> transformed;
  if (!is_classification(p.loss)) {
    transform = detail::decide_target_transform(summary.targets, communicator,
                                                p.fit_intercept && !p.penalise_intercept, p.penalty != Penalty::L1);
    require(p.penalty != Penalty::L1 || transform.largest <= detail::kLargeTarget, [&] {
      return "penalty l1: targets reach " + number_text(transform.largest) + " in magnitude, whose squares the fit "
             "cannot hold past " + number_text(detail::kLargeTarget) + " (the lasso is not scale-equivariant, so "
             "they are not scaled as for penalty l2): divide the targets by a power of ten";
    });
    for (Problem& problem : problems) problem.parameters.epsilon /= transform.scale;
    if (!transform.identity()) transformed.emplace(columns, transform);
  }
  ChunkSource& rows = transformed ? static_cast<ChunkSource&>(*transformed) : columns;
  if (p.warm_start) apply_warm_start(*p.warm_start, summary, column_map, p, transform, problems);
  const std::unique_ptr<TrainCheckpoint> checkpoint =
      open_checkpoint(columns, communicator, p, problems, result.resumed_epochs);
  // One session for all problems: a GPU one keeps the rows it uploads for the
  // next, and the caller's (TrainParameters::session) for its next call too.
  require(!p.session || p.session->serves(p.use_gpu, p.device_ids),
          "TrainParameters::session was made for other devices than this call's use_gpu and device_ids; make it "
          "with make_solver_session(use_gpu, device_ids)");
  const std::shared_ptr<SolverSession> session =
      p.session ? p.session : std::shared_ptr<SolverSession>(make_solver_session(p.use_gpu, p.device_ids));
  if (side_by_side) {
    fit_problems_in_parallel(rows, *session, problems, threads, result.fits, checkpoint.get());
  } else {
    for (std::size_t k = 0; k < problems.size(); ++k)
      fit_problem(problems[k], rows, communicator, *session, result.fits[k], checkpoint.get(), k);
  }
  result.model = assemble(summary, column_map, weights, p, transform, problems);
  return result;
}

TrainResult train(const Dataset& data, const TrainParameters& p) {
  InMemorySource source(data);
  LocalCommunicator local;
  return train(source, local, p);
}

}  // namespace snapml
