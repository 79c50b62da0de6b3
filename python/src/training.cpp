// train() from Python: parameters in, (model, per-problem fit results) out. The
// data is a CsrData viewed in place (no copy), or a SnapFile (snap_file.h) read
// memory-mapped or streamed under its budget; the GIL is released while the core
// trains, and re-acquired once an epoch, briefly, to let Ctrl-C interrupt the fit
// and to print the verbose progress line.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <type_traits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bindings.h"
#include "data.h"
#include "session.h"
#include "snap_file.h"
#include "snapml/communicator.h"
#include "snapml/error.h"
#include "snapml/output_path.h"
#include "snapml/parameters.h"
#include "snapml/penalty.h"
#include "snapml/solver.h"
#include "snapml/solver_factory.h"
#include "snapml/threads.h"
#include "snapml/train.h"

namespace py = pybind11;

namespace snapml::python {
namespace {

// The whole CsrData as one chunk: what train() reads, with no copy.
// With a kept session, the identity its rows were given (session.h): equal
// contents, in this call's fresh view or a later one, find the rows uploaded.
class ViewSource final : public ResidentSource {
 public:
  explicit ViewSource(const CsrView& view) : view_(view) {}
  ViewSource(const CsrView& view, std::uint64_t identity) : view_(view), identity_(identity) {}
  std::uint64_t identity() const override { return identity_ ? *identity_ : ResidentSource::identity(); }
  std::int32_t n_features() const override { return view_.n_features; }
  std::int64_t n_rows() const override { return view_.n_rows; }
  std::int64_t nnz() const override { return view_.nnz(); }
  std::size_t n_chunks() const override { return 1; }
  CsrView chunk(std::size_t) const override { return view_; }

 private:
  CsrView view_;
  std::optional<std::uint64_t> identity_;
};

// Lets a pending Ctrl-C raise KeyboardInterrupt (the exception unwinds train() and
// reaches Python); with the GIL held.
void throw_if_interrupted() {
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

// Called between rounds (TrainParameters::on_round: after every epoch, every
// Newton step) on a training thread, outside any parallel region: takes the GIL
// for a moment to check for Ctrl-C.
void check_interrupt(int) {
  py::gil_scoped_acquire acquire;
  throw_if_interrupted();
}

// Called with every certificate (TrainParameters::on_epoch; newGLMNET, which has
// no rounds, certifies after every iteration): the same check, and the progress
// line when verbose.
std::function<void(int, const EpochRecord&)> interruptible_progress(bool verbose) {
  return [verbose](int problem, const EpochRecord& record) {
    py::gil_scoped_acquire acquire;
    throw_if_interrupted();
    if (verbose)
      py::print("problem", problem, "epoch", record.epoch, "primal", record.primal, "dual", record.dual, "gap",
                record.gap, "seconds", record.seconds, py::arg("flush") = true);
  };
}

py::dict history_dict(const FitResult& fit) {
  const auto n = static_cast<py::ssize_t>(fit.history.size());
  py::array_t<std::int64_t> epoch(n);
  py::array_t<double> seconds(n), primal(n), dual(n), gap(n), gradient_norm(n);
  for (py::ssize_t i = 0; i < n; ++i) {
    const EpochRecord& r = fit.history[static_cast<std::size_t>(i)];
    epoch.mutable_at(i) = r.epoch;
    seconds.mutable_at(i) = r.seconds;
    primal.mutable_at(i) = r.primal;
    dual.mutable_at(i) = r.dual;
    gap.mutable_at(i) = r.gap;
    gradient_norm.mutable_at(i) = r.gradient_norm;
  }
  py::dict out;
  out["epoch"] = epoch;
  out["time"] = seconds;
  out["primal"] = primal;
  out["dual"] = dual;
  out["gap"] = gap;
  // The Newton solver's ||grad P(w)|| a record (0 from the others): the drop-in
  // checks the user's own tol with it where the core's was tighter.
  out["gradient_norm"] = gradient_norm;
  out["n_iter"] = fit.epochs;
  out["converged"] = fit.converged;
  out["data_passes"] = fit.data_passes;
  return out;
}

// Whether a warm-start model matches a file's data: the same feature count and
// (classification) the same classes. The estimator cannot know the file's classes
// before training, so a mismatch starts cold, as with arrays, instead of failing.
// Costs one pass over the labels.
bool warm_start_fits(const Model& start, ChunkSource& source, LossKind loss) {
  if (start.n_features != source.n_features()) return false;
  if (!is_classification(loss)) return true;
  std::set<double> classes;
  CsrView chunk;
  source.reset();
  while (source.next(chunk)) classes.insert(chunk.labels, chunk.labels + chunk.n_rows);
  return std::equal(classes.begin(), classes.end(), start.classes.begin(), start.classes.end());
}

// The declared parameters (snapml/parameters.h) from keywords named as there:
// an enumerated one by its name ("logistic", "l2", "primal"), the others as
// their C++ type. An unknown keyword or a value of the wrong type is an
// InvalidArgument (ValueError) naming it.
TrainParameters declared_parameters(const py::kwargs& keywords) {
  TrainParameters parameters;
  std::set<std::string> names;
  for_each_parameter(parameters, [&](const ParameterInfo& info, auto& field) {
    names.insert(info.name);
    if (!keywords.contains(info.name)) return;
    const py::handle value = keywords[info.name];
    using Field = std::decay_t<decltype(field)>;
    try {
      if constexpr (std::is_enum_v<Field>)
        value_from_name(value.cast<std::string>(), field);
      else
        field = value.cast<Field>();
    } catch (const py::cast_error&) {
      throw InvalidArgument(std::string("training parameter ") + info.name + " cannot be " +
                            py::repr(value).cast<std::string>());
    }
  });
  for (const auto& item : keywords) {
    const auto name = item.first.cast<std::string>();
    if (names.count(name) == 0) {
      std::string known;
      for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
      throw InvalidArgument("unknown training parameter '" + name + "'; the parameters are " + known +
                            " (snapml/parameters.h)");
    }
  }
  return parameters;
}

// A declared parameter's value as Python sees it: an enumerated one by name.
template <typename Field>
py::object python_value(const Field& field) {
  if constexpr (std::is_enum_v<Field>)
    return py::str(value_name(field));
  else
    return py::cast(field);
}

// The declaration (snapml/parameters.h) for the estimators and the tests: one
// dict per parameter, in declaration order.
py::list parameter_table() {
  py::list table;
  const TrainParameters defaults;
  for_each_parameter(defaults, [&](const ParameterInfo& info, const auto& field) {
    py::dict entry;
    entry["name"] = info.name;
    entry["group"] = parameter_group_name(info.group);
    entry["default"] = python_value(field);
    entry["minimum"] = info.range.minimum;
    entry["maximum"] = info.range.maximum;
    entry["minimum_open"] = info.range.minimum_open;
    entry["copied"] = info.copied;
    entry["cli"] = info.cli;
    entry["help"] = info.help;
    table.append(entry);
  });
  return table;
}

// The core's plan for these parameters (snapml/train.h, plan): which solver,
// on which device, and why.
py::dict plan_dict(const SolverPlan& chosen) {
  py::dict out;
  out["algorithm"] = algorithm_name(chosen.algorithm);
  out["device"] = chosen.gpu ? "gpu" : "cpu";
  out["reason"] = chosen.reason;
  return out;
}

py::dict plan_of(const py::kwargs& keywords) { return plan_dict(plan(declared_parameters(keywords))); }

py::tuple train_any(const py::object& x, const Model* warm_start, bool verbose, bool distributed,
                    TrainingSession* session, const py::kwargs& keywords) {
  TrainParameters parameters = declared_parameters(keywords);
  // Held while this call trains (the GIL released): one train() at a time a session.
  std::unique_lock<std::mutex> session_in_use;
  if (session != nullptr) {
    require(session->solvers()->serves(parameters.use_gpu, parameters.device_ids),
            "the session was made for other devices than this fit's use_gpu and device_ids; make one for them");
    parameters.session = session->solvers();
    py::gil_scoped_release release;
    session_in_use = std::unique_lock<std::mutex>(session->in_use());
  }
  const std::string& checkpoint = parameters.checkpoint;
  parameters.warm_start = warm_start;
  parameters.on_epoch = interruptible_progress(verbose);
  parameters.on_round = check_interrupt;

  // distributed: one CoCoA+ rank of MPI_COMM_WORLD holding this process's rows.
  // MPI is initialised here (on this, the main, thread) before the GIL is released.
  LocalCommunicator local;
  Communicator& communicator = distributed ? mpi_world() : local;
  TrainResult result;
  if (py::isinstance<SnapFile>(x)) {
    const SnapFile& file = x.cast<const SnapFile&>();
    // A checkpoint that is the training file would be read as one and then
    // replaced (output_path.h); train() checks it against the other files.
    if (!checkpoint.empty()) check_outputs({{"training file", file.layout().path}}, {{"checkpoint", checkpoint, true}});
    // L1 coordinate descent keeps a column-major copy of all the data, which a
    // file too large for the budget cannot have.
    require(!(file.plan().stream && parameters.penalty == Penalty::L1),
            "penalty='l1' keeps a column-major copy of the whole data in memory, so it cannot train on " +
                file.layout().path + " streamed under max_memory=" + std::to_string(file.max_memory()) +
                " bytes; raise max_memory above the file size plus " + std::to_string(file.plan().state_bytes) +
                " bytes, or use penalty='l2'");
    parameters.max_memory = file.max_memory();  // the per-feature state's budget too
    py::gil_scoped_release release;
    // Declared after `release`, so the source (and a streaming reader thread) is
    // closed before the GIL is taken back, also when training throws.
    // Distributed: the SnapFile is this rank's share of the chunks (snap_file.h).
    const std::unique_ptr<ChunkSource> source = file.open();
    if (warm_start) {
      // Every rank decides alike (a rank whose share lacks a class votes no), so
      // that all of them start from the same point.
      std::int64_t refused = warm_start_fits(*warm_start, *source, parameters.loss) ? 0 : 1;
      communicator.allreduce_max(&refused, 1);
      if (refused != 0) parameters.warm_start = nullptr;
    }
    result = train(*source, communicator, parameters);
  } else {
    const CsrData& data = x.cast<const CsrData&>();
    require(data.view().labels != nullptr, "training needs labels");
    py::gil_scoped_release release;
    // A kept session keys the rows by their contents (one pass over them): its
    // identity of these rows, or a new one.
    const int threads =
        parameters.threads > 0 ? parameters.threads : static_cast<int>(std::thread::hardware_concurrency());
    ViewSource source = session != nullptr
                            ? ViewSource(data.view(), session->identities().identity_of(data.view(), threads))
                            : ViewSource(data.view());
    result = train(source, communicator, parameters);
  }
  // The model is in memory: a later fit with this checkpoint starts afresh.
  remove_checkpoint(parameters, communicator);
  py::list fits;
  for (const FitResult& fit : result.fits) {
    py::dict history = history_dict(fit);
    history["plan"] = plan_dict(result.plan);
    fits.append(history);
  }
  return py::make_tuple(std::move(result.model), fits);
}

}  // namespace

void bind_training(py::module_& m) {
  m.def("thread_limit", &thread_limit, "the most threads a parallel region uses (snapml/threads.h)");
  m.def("threads_per_rank", &threads_per_rank,
        "the CPUs this process may use, its share of the machine under mpirun (snapml/threads.h)");
  m.attr("MAX_COST") = kMaxCost;  // the largest C times a class weight (snapml/solver.h)
  m.def("train", &train_any,
        "Trains on a CsrData with labels or a SnapFile; returns (Model, [history dict per problem, with the "
        "plan that trained it under 'plan']). The "
        "keywords are the parameters of snapml/parameters.h (parameters() lists them) named as there. "
        "loss='multinomial': one joint softmax problem (one history, one model row per class) by the primal "
        "Newton solver; penalise_intercept=False leaves the intercepts free (scikit-learn's parameterisation). "
        "session: a Session kept across fits (made for this call's use_gpu and device_ids), whose GPU rows "
        "serve later fits over the same row contents",
        py::arg("x"), py::kw_only(), py::arg("warm_start") = nullptr, py::arg("verbose") = false,
        py::arg("distributed") = false, py::arg("session") = nullptr);
  m.def("plan", &plan_of,
        "The core's plan for these keywords (as train's): {'algorithm': 'sdca', 'newton', 'auto', 'glmnet' or "
        "'cd', 'device': 'cpu' or 'gpu', 'reason': why} (snapml/solver_factory.h, plan_solver); raises "
        "ValueError for a problem no solver trains");
  m.def("parameters", &parameter_table,
        "The declared training parameters (snapml/parameters.h): name, group, default, range, CLI flag, help");
}

}  // namespace snapml::python
