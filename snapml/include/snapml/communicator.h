// The communicator seam: what distributed training needs from the transport.
//
// The solvers aggregate across workers only through this interface: a local one
// (size 1, every call a no-op) for one process, an MPI one (mpi/) for mpirun, and
// the same aggregation code for several GPUs in one process. With size 1 the code
// path is the single-node one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace snapml {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // In place: every rank ends with the element-wise sum over ranks.
  virtual void allreduce_sum(double* data, std::size_t count) = 0;
  virtual void allreduce_sum(std::int64_t* data, std::size_t count) = 0;
  // In place: every rank ends with the element-wise maximum over ranks.
  virtual void allreduce_max(std::int64_t* data, std::size_t count) = 0;
  // Copies `bytes` bytes from `root` to every rank.
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  virtual void barrier() = 0;
  // Ends every rank with `message` (a fault on one rank must not hang the others).
  [[noreturn]] virtual void abort(const std::string& message) = 0;
  bool is_root() const { return rank() == 0; }
};

// One process, no peers.
class LocalCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void allreduce_sum(double*, std::size_t) override {}
  void allreduce_sum(std::int64_t*, std::size_t) override {}
  void allreduce_max(std::int64_t*, std::size_t) override {}
  void broadcast(void*, std::size_t, int) override {}
  void barrier() override {}
  [[noreturn]] void abort(const std::string& message) override;
};

}  // namespace snapml
