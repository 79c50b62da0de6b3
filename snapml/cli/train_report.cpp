#include "train_report.h"

#include <cmath>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>

#include "snapml/atomic_file.h"
#include "snapml/metrics.h"
#include "text_format.h"

namespace snapml::cli {
namespace {

// The shortest decimal that reads back to the same double: the history keeps
// every digit the solver produced.
void append_exact(std::string& out, double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

// The class problem k separates from the rest: binary models score classes[1].
std::string problem_class(const Model& model, std::size_t problem) {
  if (!model.is_classifier()) return "";
  const double label = model.n_outputs() == 1 ? model.classes[1] : model.classes[problem];
  std::string text;
  append_exact(text, label);
  return text;
}

}  // namespace

ProgressLine::ProgressLine(bool enabled) : active_(enabled && isatty(STDERR_FILENO) == 1) {}

void ProgressLine::set_stage(const std::string& stage) {
  std::lock_guard<std::mutex> lock(mutex_);
  stage_ = stage.empty() ? "" : stage + "  ";
}

void ProgressLine::update(int problem, const EpochRecord& record) {
  if (!active_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const Clock::time_point now = Clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double relative = record.primal > 0.0 ? record.gap / record.primal : 0.0;
  const std::string line =
      stage_ + printf_string("problem %d  epoch %d  relative gap %.3e  %.1f s", problem + 1, record.epoch,
                             relative, std::chrono::duration<double>(now - start_).count());
  // Pad with blanks over the end of a longer previous line.
  std::cerr << '\r' << line << std::string(drawn_width_ > line.size() ? drawn_width_ - line.size() : 0, ' ')
            << std::flush;
  drawn_width_ = std::max(drawn_width_, line.size());
}

void ProgressLine::clear() {
  if (!active_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (drawn_width_ == 0) return;
  std::cerr << '\r' << std::string(drawn_width_, ' ') << '\r' << std::flush;
  drawn_width_ = 0;
}

double relative_gap(const FitResult& fit) {
  if (fit.history.empty()) return 0.0;
  const EpochRecord& last = fit.history.back();
  return last.primal > 0.0 ? last.gap / last.primal : 0.0;
}

// The primal Newton solver without a certificate (a free intercept, no penalty,
// the multinomial loss's free intercepts) stops on LIBLINEAR's gradient rule
// ||g|| <= tol ||g(0)|| and records NaN for the gap (docs/algorithms.md, "Primal
// Newton"): its summary names that rule and ||g||, never a gap it did not have.
bool on_gradient_rule(const FitResult& fit) {
  return !fit.history.empty() && std::isnan(fit.history.back().gap);
}

void print_summary(const TrainResult& result, const TrainParameters& parameters, double seconds,
                   const std::string& saved_to, std::ostream& out, std::ostream& warnings) {
  int most_epochs = 0;
  double largest_gap = 0.0;
  double largest_gradient = 0.0;
  std::size_t unconverged = 0;
  std::size_t stopped_early = 0;  // unconverged before --max-iter: no decrease representable
  bool gradient_rule = false;
  for (const FitResult& fit : result.fits) {
    most_epochs = std::max(most_epochs, fit.epochs);
    if (on_gradient_rule(fit)) {
      gradient_rule = true;
      largest_gradient = std::max(largest_gradient, fit.history.back().gradient_norm);
    } else {
      largest_gap = std::max(largest_gap, relative_gap(fit));
    }
    unconverged += fit.converged ? 0 : 1;
    // Only the Newton solver (the one that records ||g||) stops before max_iter unconverged.
    const bool newton = !fit.history.empty() && fit.history.back().gradient_norm > 0.0;
    stopped_early += !fit.converged && newton && fit.epochs < parameters.max_iter ? 1 : 0;
  }
  const std::size_t problems = result.fits.size();
  int resumed = 0;
  for (int epochs : result.resumed_epochs) resumed = std::max(resumed, epochs);
  if (resumed > 0)
    out << "snap-train: resumed from the checkpoint " << parameters.checkpoint << " (at most " << resumed
        << " epochs per problem were done before)\n";
  // Pure L1 stops on LIBLINEAR's sub-gradient rule, not on the gap (which it
  // reports); the elastic net also needs its gap below tol (glmnet_cpu.cpp). The
  // multinomial loss's L1 fit stops on its gap (orthant_steps.cpp).
  const bool l1 = parameters.penalty == Penalty::L1 && parameters.l1_ratio >= 1.0 && !loss_is_per_class(parameters.loss);
  const char* relation = l1 ? (unconverged == 0 ? "(sub-gradient rule met at" : "(sub-gradient rule not met at")
                            : (unconverged == 0 ? "<=" : ">");
  const char* close = l1 ? ")" : "";
  if (gradient_rule)
    out << printf_string("snap-train: %s%d epochs, gradient rule ||g|| <= tol ||g(0)|| %s (%s||g|| %.3g), tol %g, "
                         "%.3g s",
                         problems == 1 ? "" : (std::to_string(problems) + " problems, at most ").c_str(), most_epochs,
                         unconverged == 0 ? "met" : "not met", problems == 1 ? "" : "largest ", largest_gradient,
                         parameters.tol, seconds);
  else if (problems == 1)
    out << printf_string("snap-train: %d epochs, relative duality gap %.3g %s tol %g%s, %.3g s", most_epochs,
                         largest_gap, relation, parameters.tol, close, seconds);
  else
    out << printf_string("snap-train: %zu problems (one-vs-rest), at most %d epochs, largest relative duality gap "
                         "%.3g %s tol %g%s, %.3g s",
                         problems, most_epochs, largest_gap, relation, parameters.tol, close, seconds);
  out << "; model saved to " << saved_to;
  // Which way the threads shared w is a choice of Auto's (thread_updates.h) that
  // changes the epochs: said when it is not the shared w.
  int replicas = 0;
  double overlap = -1.0;
  for (const FitResult& fit : result.fits) {
    replicas = std::max(replicas, fit.replicas);
    overlap = std::max(overlap, fit.row_overlap);
  }
  if (replicas > 0) out << "; " << replicas << " threads, each on a replica of w";
  if (replicas > 0 && overlap >= 0.0) out << printf_string(" (a team sized by the rows' overlap %.2f)", overlap);
  out << "\n";
  const char* rule = l1 ? "the sub-gradient rule" : (gradient_rule ? "the gradient rule" : "the duality gap");
  const std::size_t at_max_iter = unconverged - stopped_early;
  const std::string of_problems = " of " + std::to_string(problems) + (problems == 1 ? " problem" : " problems");
  for (double label : result.ignored_class_weights)
    warnings << "snap-train: warning: class label " << number_text(label)
             << " given a weight (-w) is not in the training labels; its weight is ignored\n";
  if (at_max_iter > 0)
    warnings << "snap-train: warning: " << at_max_iter << of_problems << " stopped at --max-iter "
             << parameters.max_iter << " epochs before " << rule << " met --tol; raise --max-iter or -e\n";
  // The dual solver ends on its best certified iterate where the last one's primal
  // objective was larger (snapml/impl/cocoa_round.h): said, since the model is
  // then not the last epoch's.
  std::size_t on_best = 0;
  int best_epoch = 0;
  for (const FitResult& fit : result.fits) {
    on_best += fit.best_epoch > 0 ? 1 : 0;
    best_epoch = std::max(best_epoch, fit.best_epoch);
  }
  if (on_best == 1 && problems == 1)
    out << "snap-train: the model is epoch " << best_epoch
        << "'s iterate, whose primal objective was the smallest certified (the last epoch's was larger)\n";
  else if (on_best > 0)
    out << "snap-train: " << on_best << of_problems
        << " end on an earlier epoch's iterate, whose primal objective was the smallest certified\n";
  // The Newton solver also stops when its trust region has shrunk to nothing:
  // the fit is as precise as double precision allows (snapml/src/primal/primal_newton_solver.cpp).
  if (stopped_early > 0)
    warnings << "snap-train: warning: " << stopped_early << of_problems << " stopped before " << rule
             << " met --tol, where no further decrease of the objective is representable in double precision: "
                "the model is as precise as the data allows; a larger -e gives the same model\n";
}

void write_history(const std::string& path, const TrainResult& result) {
  AtomicFile file(path);
  file.write("problem,class,epoch,seconds,primal,dual,gap,relative_gap\n");
  std::string row;
  for (std::size_t k = 0; k < result.fits.size(); ++k) {
    const std::string label = problem_class(result.model, k);
    for (const EpochRecord& record : result.fits[k].history) {
      row = std::to_string(k) + ',' + label + ',' + std::to_string(record.epoch) + ',';
      for (double value : {record.seconds, record.primal, record.dual, record.gap}) {
        append_exact(row, value);
        row += ',';
      }
      append_exact(row, record.primal > 0.0 ? record.gap / record.primal : 0.0);
      row += '\n';
      file.write(row);
    }
  }
  file.commit();
}

void report_test(const Model& model, const Dataset& test, int threads, std::ostream& out) {
  const std::vector<double> truth = test.labels();
  const std::vector<double> predicted = model.predict(test, threads);
  const std::size_t n = truth.size();
  if (!model.is_classifier()) {
    out << printf_string("Test mean squared error = %g\n", mean_squared_error(truth.data(), predicted.data(), n));
    out << printf_string("Test R2 = %g\n", r2_score(truth.data(), predicted.data(), n));
    out << printf_string("Test squared correlation coefficient = %g\n",
                         squared_correlation(truth.data(), predicted.data(), n));
    return;
  }
  const std::size_t correct = correct_count(truth.data(), predicted.data(), n);
  out << printf_string("Test accuracy = %g%% (%zu/%zu)\n", 100.0 * static_cast<double>(correct) / static_cast<double>(n),
                       correct, n);
  // Log loss needs every test label among the model's classes; AUC needs both
  // classes in the test set. Otherwise the metric is undefined and left out.
  const bool known_labels = std::all_of(truth.begin(), truth.end(), [&](double label) {
    return std::binary_search(model.classes.begin(), model.classes.end(), label);
  });
  if (loss_has_probabilities(model.loss) && known_labels) {
    const std::vector<double> probabilities = model.predict_proba(test, threads);
    out << printf_string("Test log loss = %g\n", log_loss(truth.data(), probabilities.data(), n,
                                                          model.classes.data(), model.classes.size()));
  }
  if (model.n_outputs() == 1) {
    const double positive = model.classes[1];
    const bool both = std::any_of(truth.begin(), truth.end(), [&](double y) { return y == positive; }) &&
                      std::any_of(truth.begin(), truth.end(), [&](double y) { return y != positive; });
    if (both) {
      const std::vector<double> scores = model.decision_function(test, threads);
      out << printf_string("Test AUC = %g\n", roc_auc(truth.data(), scores.data(), n, positive));
    }
  }
}

}  // namespace snapml::cli
