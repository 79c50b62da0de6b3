#include "train_options.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <stdexcept>
#include <type_traits>

#include "cli_common.h"
#include "snapml/datasets/streamed_binary_source.h"
#include "snapml/error.h"
#include "snapml/parameters.h"

namespace snapml::cli {
namespace {

// LIBLINEAR's -s solver types that snapml trains, by the loss they minimise. The
// primal and dual variants (0/7, 1/2, 11/12) reach the same optimum: the primal
// ones (is_primal_solver_type) train by the trust-region Newton solver, the dual
// ones by SDCA; 5 and 6 are L1-regularised (primal coordinate descent,
// is_l1_solver_type).
LossKind loss_of_solver_type(int type) {
  switch (type) {
    case 0: case 7: case 6: return LossKind::Logistic;
    case 1: case 2: case 5: return LossKind::SquaredHinge;
    case 3: return LossKind::Hinge;
    case 11: case 12: return LossKind::Squared;
    case 4:
      throw Unsupported("solver type 4 (Crammer and Singer multi-class SVM) is not available in snapml; "
                        "use -s 3 or -s 1 (one-vs-rest linear SVM)");
    case 13:
      throw Unsupported("solver type 13 (L1-loss support vector regression) is not available in snapml; "
                        "use -s 11 or -s 12 (L2-loss support vector regression)");
    default:
      throw InvalidArgument("unknown solver type " + std::to_string(type) + "; run with --help for the list");
  }
}

bool is_l1_solver_type(int type) { return type == 5 || type == 6; }

// LIBLINEAR's L2R_LR, L2R_L2LOSS_SVC and L2R_L2LOSS_SVR: its primal Newton solvers.
bool is_primal_solver_type(int type) { return type == 0 || type == 2 || type == 11; }

// "LABEL:WEIGHT" from --weight (or a rewritten -wLABEL WEIGHT).
std::pair<double, double> parse_class_weight(const std::string& text) {
  const std::size_t colon = text.rfind(':');
  auto number = [&](const std::string& part, const char* what) {
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(part.c_str(), &end);
    require(!part.empty() && end == part.c_str() + part.size() && errno == 0,
            std::string("-w") + (colon == std::string::npos ? text : text.substr(0, colon)) + ": " + what +
                " '" + part + "' is not a number; write -wLABEL WEIGHT, e.g. -w1 2 -w-1 0.5");
    return value;
  };
  require(colon != std::string::npos, "--weight expects LABEL:WEIGHT, got '" + text + "'");
  return {number(text.substr(0, colon), "label"), number(text.substr(colon + 1), "weight")};
}

// snap-train's option for each declared parameter with a `cli` flag
// (snapml/parameters.h), checked against its declared range; by name.
std::map<std::string, CLI::Option*> add_declared_options(CLI::App& app, TrainParameters& p) {
  std::map<std::string, CLI::Option*> options;
  for_each_parameter(p, [&](const ParameterInfo& info, auto& field) {
    if (*info.cli == '\0') return;
    using Field = std::decay_t<decltype(field)>;
    // The declaration's unbounded maximum, as the validators print it.
    const double high = std::min(info.range.maximum, std::numeric_limits<double>::max());
    CLI::Option* option = nullptr;
    if constexpr (std::is_same_v<Field, double>) {
      option = app.add_option(info.cli, field, info.help)
                   ->check(number_in(info.range.minimum, high, info.range.minimum_open));
    } else if constexpr (std::is_same_v<Field, int>) {
      option = app.add_option(info.cli, field, info.help)
                   ->transform(integer_in(static_cast<long long>(info.range.minimum), static_cast<long long>(high)));
    } else if constexpr (std::is_same_v<Field, std::uint64_t>) {
      option = app.add_option(info.cli, field, info.help)->check(unsigned_64_bit());
    } else if constexpr (std::is_same_v<Field, std::string>) {
      option = app.add_option(info.cli, field, info.help);
    } else {
      throw std::logic_error(std::string("snapml/parameters.h gives ") + info.name + " the flag " + info.cli +
                             ", but its type has no generated option; map it by hand in train_options.cpp");
    }
    options.emplace(info.name, option);
  });
  return options;
}

}  // namespace

std::vector<std::string> rewrite_class_weights(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i > 0 && arg.size() > 2 && arg.compare(0, 2, "-w") == 0) {
      const bool has_weight = i + 1 < argc;
      args.push_back("--weight");
      args.push_back(arg.substr(2) + ":" + (has_weight ? argv[++i] : ""));
    } else {
      args.push_back(arg);
    }
  }
  return args;
}

TrainOptions parse_train_options(int argc, char** argv) {
  TrainOptions o;
  TrainParameters& p = o.parameters;
  p.fit_intercept = false;  // LIBLINEAR's default -B -1: no bias
  int solver_type = 1;      // LIBLINEAR's default -s 1
  std::string loss_name_option;
  double bias = -1.0;
  double epsilon = 0.1;  // LIBLINEAR's -p default
  std::vector<std::string> weights;
  std::string class_weight;
  std::string format = "auto";
  std::string model_format = "snapml";
  std::string max_memory, max_gpu_memory;

  CLI::App app{"Trains a linear model by SDCA (stochastic dual coordinate ascent; L1: primal coordinate "
               "descent), as LIBLINEAR's train does; LIBLINEAR's option letters mean the same here.",
               "snap-train"};
  app.add_option("training_file", o.training_file, "training data (svmlight text, .gz, or .snap binary)")
      ->required();
  app.add_option("model_file", o.model_file,
                 "where to save the model (default: the training file's name + .model, in the current directory)");
  // The declared parameters with a flag (snapml/parameters.h): their help and range from there.
  p.local_epochs = kDefaultLocalEpochs;
  const std::map<std::string, CLI::Option*> declared = add_declared_options(app, p);
  CLI::Option* const l1_ratio_option = declared.at("l1_ratio");
  CLI::Option* const c_option = declared.at("C");
  CLI::Option* const checkpoint_option = declared.at("checkpoint");
  declared.at("checkpoint_interval")->needs(checkpoint_option);

  auto* type_option = app.add_option(
      "-s", solver_type,
      "LIBLINEAR solver type (default 1): 0, 7 L2 logistic regression; 1, 2 L2-loss (squared hinge) SVM; "
      "3 L1-loss (hinge) SVM; 11, 12 L2-loss support vector regression; 5 L1-regularised L2-loss SVM, "
      "6 L1-regularised logistic regression. 0, 2 and 11 train by the primal Newton solver, the other L2 "
      "types by SDCA. 4 and 13 are not available");
  auto* loss_option = app.add_option("--loss", loss_name_option,
                                     "the loss by name instead of -s; multinomial: softmax logistic regression over "
                                     "all classes jointly (scikit-learn's default for more than two; the primal "
                                     "solver by L-BFGS, the intercepts of -B free)")
                          ->check(CLI::IsMember(loss_names()))
                          ->excludes(type_option);
  std::string penalty_name = "l2";
  auto* penalty_option =
      app.add_option("--penalty", penalty_name,
                     "l2 (default) or l1 (with --loss " +
                         loss_names_text([](LossKind k) { return l1_penalty_supports(k) || loss_is_per_class(k); }) +
                         "; squared: the lasso; multinomial: by orthant-wise L-BFGS); -s 5 and -s 6 imply l1")
          ->check(CLI::IsMember({"l1", "l2"}));
  std::string solver_name;
  auto* solver_option =
      app.add_option("--solver", solver_name,
                     "L2: dual (SDCA), primal (trust-region Newton; logistic, squared hinge, squared) or auto "
                     "(the Newton solver where only it trains the problem or its Cholesky step pays, else SDCA, handing "
                     "over to the Newton solver from its point where its certificates predict many epochs; "
                     "docs/algorithms.md); default: primal for -s 0, 2, 11, else dual. "
                     "L1: newGLMNET (logistic, squared) whatever the choice, except cd: plain coordinate descent")
          ->check(CLI::IsMember({"dual", "primal", "auto", "cd"}));
  auto* epsilon_option =
      app.add_option("-p", epsilon, "epsilon of the regression loss's insensitive zone (default 0.1)")
          ->check(non_negative_number());
  app.add_option("-B", bias,
                 "bias: > 0 adds a constant feature of this value (the intercept, at most 1e100); <= 0 none "
                 "(default -1)")
      ->check(number_in(-std::numeric_limits<double>::max(), kMaxInterceptScaling));
  app.add_option("--weight", weights,
                 "LABEL:WEIGHT, multiplies C for that class; LIBLINEAR's -wLABEL WEIGHT (e.g. -w1 2 -w-1 0.5) "
                 "is the same")
      ->allow_extra_args(false);  // one LABEL:WEIGHT per --weight, never the training file
  auto* balanced_option = app.add_option("--class-weight", class_weight,
                                         "balanced: weigh each class by n_rows / (n_classes * its rows)")
                              ->check(CLI::IsMember({"balanced"}));
  auto* folds_option =
      app.add_option("-v", o.folds, "n-fold cross validation: print its accuracy (or MSE); saves no model")
          ->check(CLI::Range(2, 1 << 30));
  std::string cocoa_sigma = "adaptive";
  app.add_option("--cocoa-sigma", cocoa_sigma,
                 "under mpirun: CoCoA+'s sigma', 'adaptive' (default: measured overlap of the ranks' changes, "
                 "never less safe) or 'K' (the paper's fixed sigma' = number of ranks); docs/distributed.md")
      ->check(CLI::IsMember({"adaptive", "K"}));
  std::string thread_updates = "auto";
  auto* thread_updates_option = app.add_option("--thread-updates", thread_updates,
                 "SDCA with several threads: 'shared' (one weight vector, atomic updates), 'replicas' (a copy per "
                 "thread, merged two or more times an epoch as CoCoA+ workers), 'atomic' (one weight vector, every "
                 "step's change published at once: no pending changes, no per-thread copies) or 'auto' (default, never "
                 "atomic: replicas for a column "
                 "besides the intercept in 5 % of the rows or more and at least " +
                 std::to_string(kReplicaNnzPerWeight) +
                 " non-zeros an epoch per weight of all copies, with " + std::to_string(kSharedSkewedMaxThreads) +
                 " threads only past the per-thread copies' size and for a fit that does not shrink); "
                 "docs/algorithms.md")
      ->check(CLI::IsMember({"auto", "shared", "replicas", "atomic"}));
  bool no_shrinking = false;
  app.add_flag("--no-shrinking", no_shrinking,
               "hinge and squared hinge (-s 1, 3): visit every row in every epoch instead of leaving out the "
               "rows likely to stay at a bound (LIBLINEAR's shrinking, on by default; docs/algorithms.md)");
  app.add_flag("-q", o.quiet, "quiet: no progress line, summary or warnings");
  auto* test_option = app.add_option("--test", o.test_file,
                                     "after training, report accuracy, log loss (logistic) and AUC (two classes), "
                                     "or MSE and R2 (regression) on this file");
  auto* history_option = app.add_option(
      "--history", o.history_file,
      "write a CSV row per epoch (Newton iteration) of every problem: problem, class, epoch, seconds, primal, dual, "
      "gap, relative_gap. SDCA then computes the duality gap after every epoch, not only on its schedule: one more "
      "pass over the rows an epoch; the fit's path and stop, and the model, are those without --history");
  app.add_option("--format", format, "input format of the training and test files (default auto: binary for "
                                     ".snap or the binary magic, else svmlight)")
      ->check(CLI::IsMember(data_file_format_names()));
  auto* model_format_option =
      app.add_option("--model-format", model_format,
                     "snapml (default) or liblinear (LIBLINEAR's text format, which liblinear-predict reads)")
          ->check(CLI::IsMember({"snapml", "liblinear"}));
  auto* gpu_option = app.add_flag("--gpu", p.use_gpu, "train on a GPU; fails when none can be used");
  app.add_option("--devices", p.device_ids, "GPU device ids, comma-separated (default 0); needs --gpu")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(non_negative_number())
      ->needs(gpu_option);
  auto* max_memory_option = app.add_option(
      "--max-memory", max_memory,
      "host memory budget for the data and the solver's state (bytes, or 512MB, 4GB, 1.5G; units are powers of "
      "1024): a binary (.snap) file larger than the budget streams from disk (docs/out-of-core.md); the per-feature "
      "state (set by the largest feature index) must fit it, or the memory available without a budget");
  app.add_flag("--report-memory", o.report_memory,
               "print the process's peak resident memory (VmHWM) to stderr at exit");
  auto* max_gpu_memory_option = app.add_option(
      "--max-gpu-memory", max_gpu_memory,
      "with --gpu: device memory budget per GPU for the data and the solver's state (bytes, or 512MB, 4GB, 1.5G; "
      "units are powers of 1024): data larger than the budget streams to one GPU chunk by chunk "
      "(docs/out-of-core.md)")
      ->needs(gpu_option);
  auto* find_c_option =
      app.add_flag("-C", o.find_C,
                   "find the best C by cross-validation (-v folds, default 5), LIBLINEAR's train -C: C doubles from "
                   "-c (default: LIBLINEAR's automatic start) up to 1024, each fold warm-started from its model at the "
                   "previous C; prints each C's CV accuracy (MSE for regression) and the best; saves no model");
  find_c_option->excludes(test_option)->excludes(history_option)->excludes(model_format_option)->excludes(
      checkpoint_option);
  folds_option->excludes(test_option)->excludes(history_option)->excludes(model_format_option)->excludes(
      checkpoint_option);
  app.footer("Exit codes: 0 ok, 1 usage, 2 bad input, 3 I/O error. docs/cli.md has the details.");

  const std::vector<std::string> args = rewrite_class_weights(argc, argv);
  std::vector<char*> pointers;
  for (const std::string& arg : args) pointers.push_back(const_cast<char*>(arg.c_str()));
  parse_command_line(app, static_cast<int>(pointers.size()), pointers.data());

  if (max_gpu_memory_option->count() > 0) {
    try {
      p.max_gpu_memory = datasets::parse_memory_size(max_gpu_memory);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(max_gpu_memory_option->get_name() + ": " + e.what());
    }
  }
  if (max_memory_option->count() > 0) o.max_memory = datasets::parse_memory_size(max_memory);
  p.max_memory = o.max_memory;  // the per-feature state's budget too (feature_memory.h)

  p.loss = loss_option->count() > 0 ? loss_from_name(loss_name_option) : loss_of_solver_type(solver_type);
  if (loss_option->count() == 0 && type_option->count() > 0 && penalty_option->count() > 0)
    require(is_l1_solver_type(solver_type) == (penalty_name == "l1"),
            "-s " + std::to_string(solver_type) + " is " + (is_l1_solver_type(solver_type) ? "L1" : "L2") +
                "-regularised but --penalty says " + penalty_name +
                "; drop --penalty, or use -s 5 / -s 6 (L1) or --loss NAME --penalty l1");
  // --penalty alone keeps the default loss (-s 1's squared hinge; with l1 that is -s 5).
  const bool l1 = penalty_option->count() > 0 ? penalty_name == "l1" : is_l1_solver_type(solver_type);
  p.penalty = l1 ? Penalty::L1 : Penalty::L2;
  require(l1 || l1_ratio_option->count() == 0,
          "--l1-ratio mixes in an L2 part into the L1 penalty; use it with -s 6 or --penalty l1");
  if (solver_option->count() > 0)
    p.solver = solver_choice_from_name(solver_name);
  else if (loss_option->count() == 0 && is_primal_solver_type(solver_type))
    p.solver = SolverChoice::Primal;
  if (is_classification(p.loss)) {
    require(epsilon_option->count() == 0,
            "-p sets the insensitive zone of regression (-s 11, 12, --loss squared); this is a classifier");
  } else {
    p.epsilon = epsilon;
  }
  // Options the chosen solver would ignore, silently: refused.
  if (loss_is_per_class(p.loss))
    require(!(solver_option->count() > 0 && p.solver != SolverChoice::Primal),
            "--solver " + solver_name + ": the multinomial loss trains by the primal solver only; drop --solver or "
            "pass --solver primal");
  const bool sdca_possible = p.penalty == Penalty::L2 && !loss_is_per_class(p.loss) && p.solver != SolverChoice::Primal;
  require(thread_updates_option->count() == 0 || sdca_possible,
          "--thread-updates chooses how SDCA's threads share w, and this fit does not run SDCA (" +
              std::string(p.penalty == Penalty::L1 ? "penalty l1: newGLMNET or coordinate descent"
                                                   : "the primal Newton solver") +
              "); drop --thread-updates, or train by SDCA (-s 1, 3, 7, 12 or --solver dual)");
  p.adaptive_sigma = cocoa_sigma == "adaptive";
  p.shrinking = !no_shrinking;
  // --history: a row per epoch, as snapml 1.x's full training history (solver.h).
  p.certify_every_epoch = !o.history_file.empty();
  p.thread_updates = thread_updates_from_name(thread_updates);
  p.fit_intercept = bias > 0.0;
  if (p.fit_intercept) p.intercept_scaling = bias;
  // The multinomial loss takes scikit-learn's parameterisation: free intercepts.
  if (loss_is_per_class(p.loss)) p.penalise_intercept = false;
  for (const std::string& weight : weights) {
    const auto [label, value] = parse_class_weight(weight);
    // A map keeps the first: `--weight 1:2 -w1 3` trained with 2.
    const auto [at, inserted] = p.class_weight.emplace(label, value);
    require(inserted, "class " + number_text(label) + "'s weight is given twice (" + number_text(at->second) +
                          " and " + number_text(value) + ", by -w or --weight); give it once");
  }
  p.balanced_class_weight = balanced_option->count() > 0;
  // LIBLINEAR's -wi for a label the data lacks: a warning, and the fit goes on (a
  // -v fold may lack a rare class the file has).
  p.ignore_absent_class_weights = true;
  p.threads = usable_threads("snap-train", p.threads, o.quiet);
  o.format = datasets::data_format_from_name(format);
  o.liblinear_model = model_format == "liblinear";
  if (o.find_C) {
    if (o.folds == 0) o.folds = 5;  // LIBLINEAR's default for -C without -v
    if (c_option->count() > 0) o.start_C = p.C;
  }
  if (o.folds > 0)
    require(o.model_file.empty(), std::string(o.find_C ? "-C" : "-v") +
                                      " cross-validates and saves no model; drop model_file " + o.model_file);
  if (o.model_file.empty())
    o.model_file = std::filesystem::path(o.training_file).filename().string() + ".model";
  return o;
}

}  // namespace snapml::cli
