// The communicator seam over MPI, for `mpirun -n K ...`.
//
// MpiSession owns MPI_Init/MPI_Finalize for a program that was started by
// mpirun; MpiCommunicator implements snapml::Communicator on MPI_COMM_WORLD (or a
// duplicate of any communicator). Collective calls block; a rank that fails calls
// abort(), which prints its message and ends every rank (MPI_Abort), so a fault
// on one rank never leaves the others waiting in a collective.
#pragma once

#include <mpi.h>

#include <string>

#include "snapml/communicator.h"

namespace snapml::mpi {

// True when this process was started by an MPI launcher (mpirun, srun, ...).
bool launched_by_mpi();

// Initialises MPI (thread level FUNNELED: only the thread that owns the
// communicator calls MPI) unless it already is; finalises in the destructor only
// what it initialised.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

 private:
  bool owns_ = false;
};

class MpiCommunicator final : public Communicator {
 public:
  explicit MpiCommunicator(MPI_Comm comm = MPI_COMM_WORLD);
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void allreduce_sum(double* data, std::size_t count) override;
  void allreduce_sum(std::int64_t* data, std::size_t count) override;
  void allreduce_max(std::int64_t* data, std::size_t count) override;
  void broadcast(void* data, std::size_t bytes, int root) override;
  void barrier() override;
  [[noreturn]] void abort(const std::string& message) override;

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace snapml::mpi
