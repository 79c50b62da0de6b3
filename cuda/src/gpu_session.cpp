#include "snapml/cuda/gpu_session.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "device/gpu_devices.h"
#include "dual/sdca_gpu_solver.h"
#include "primal/primal_rows_cache.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/error.h"

namespace snapml::cuda {
namespace {

// Every problem's solver shares the session's devices and the rows uploaded to
// them; the primal Newton solver's rows (tiles with a transposed copy: not the
// dual solver's chunks) are kept apart, in primal_rows_.
class GpuSolverSession final : public SolverSession {
 public:
  GpuSolverSession(std::shared_ptr<detail::GpuDevices> devices, int row_sets)
      : devices_(std::move(devices)),
        primal_rows_(std::make_shared<detail::PrimalRowsCache>(static_cast<std::size_t>(std::max(row_sets, 1)))) {}
  std::int64_t row_uploads() const override { return devices_->uploads() + primal_rows_->uploads(); }
  std::unique_ptr<Solver> make(const SolverParameters& parameters) override {
    if (parameters.solver == SolverChoice::Primal)
      return detail::make_tron_gpu_solver(parameters, devices_->device_ids(), primal_rows_);
    require(parameters.penalty == Penalty::L2,
            "the GPU SDCA solver solves penalty L2 problems only; train penalty L1 on the CPU");
    return detail::make_sdca_gpu_solver(parameters, devices_);
  }

 private:
  std::shared_ptr<detail::GpuDevices> devices_;
  std::shared_ptr<detail::PrimalRowsCache> primal_rows_;
};

}  // namespace

std::unique_ptr<SolverSession> make_gpu_session(const std::vector<int>& device_ids, int row_sets) {
  std::vector<int> devices = device_ids.empty() ? std::vector<int>{0} : device_ids;
  for (const int device : devices) require_gpu(device);
  return std::make_unique<GpuSolverSession>(std::make_shared<detail::GpuDevices>(std::move(devices)), row_sets);
}

}  // namespace snapml::cuda
