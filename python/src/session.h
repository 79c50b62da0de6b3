// A training session kept by an estimator across its fits (snapml/solver_factory.h,
// SolverSession; TrainParameters::session): on a GPU it keeps the devices'
// resources and the rows it uploaded, so the one-vs-rest classes of a fit, a
// warm_start refit, and the C values of a LogisticRegressionCV fold upload the
// rows once. Python makes a new view of its arrays at every fit, so the rows'
// identity is drawn from their contents (snapml/impl/rows_identity.h): the same
// contents find the uploaded rows, changed contents (in place or in another
// array) upload again. Made for one use_gpu and device list; train() refuses it
// for others.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "snapml/impl/rows_identity.h"
#include "snapml/solver_factory.h"

namespace snapml::python {

class TrainingSession {
 public:
  // row_sets: how many row sets the devices keep (SessionOptions::row_sets).
  TrainingSession(bool use_gpu, std::vector<int> device_ids, int row_sets);

  const std::shared_ptr<SolverSession>& solvers() const { return session_; }
  bool use_gpu() const { return use_gpu_; }
  const std::vector<int>& device_ids() const { return device_ids_; }
  std::int64_t row_uploads() const { return session_->row_uploads(); }
  RowsIdentities& identities() { return identities_; }
  // Held for the whole of a train() call: a GPU session builds one solver at a
  // time (SolverSession::make), so two Python threads fitting with one session
  // take turns.
  std::mutex& in_use() { return in_use_; }

 private:
  bool use_gpu_;
  std::vector<int> device_ids_;
  std::shared_ptr<SolverSession> session_;
  RowsIdentities identities_;
  std::mutex in_use_;
};

}  // namespace snapml::python
