// A Communicator that forwards to another and counts what passes: calls, bytes
// reduced and wall time spent inside collectives.
//
// The time inside a collective is the transfer plus the wait for the slowest rank
// to arrive, so on a rank that finishes its local epochs early it also measures
// load imbalance. snap-train under mpirun reports these numbers (docs/distributed.md,
// "Scaling"); bench/mpi_bench.py reads them. Header-only and free of MPI: it wraps
// any Communicator.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "snapml/communicator.h"

namespace snapml::mpi {

struct CommunicationStats {
  std::int64_t allreduce_calls = 0;
  std::int64_t allreduce_bytes = 0;  // payload per rank: count * element size
  std::int64_t broadcast_calls = 0;
  std::int64_t broadcast_bytes = 0;
  std::int64_t barrier_calls = 0;
  double seconds = 0.0;  // wall time inside every collective
};

class TimedCommunicator final : public Communicator {
 public:
  explicit TimedCommunicator(Communicator& inner) : inner_(inner) {}

  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  void allreduce_sum(double* data, std::size_t count) override {
    timed([&] { inner_.allreduce_sum(data, count); }, count * sizeof(double));
  }
  void allreduce_sum(std::int64_t* data, std::size_t count) override {
    timed([&] { inner_.allreduce_sum(data, count); }, count * sizeof(std::int64_t));
  }
  void allreduce_max(std::int64_t* data, std::size_t count) override {
    timed([&] { inner_.allreduce_max(data, count); }, count * sizeof(std::int64_t));
  }
  void broadcast(void* data, std::size_t bytes, int root) override {
    const auto start = Clock::now();
    inner_.broadcast(data, bytes, root);
    stats_.seconds += elapsed(start);
    ++stats_.broadcast_calls;
    stats_.broadcast_bytes += static_cast<std::int64_t>(bytes);
  }
  void barrier() override {
    const auto start = Clock::now();
    inner_.barrier();
    stats_.seconds += elapsed(start);
    ++stats_.barrier_calls;
  }
  [[noreturn]] void abort(const std::string& message) override {
    inner_.abort(message);
    std::abort();  // not reached: keeps [[noreturn]] honest for the compiler
  }

  const CommunicationStats& stats() const { return stats_; }

 private:
  using Clock = std::chrono::steady_clock;
  static double elapsed(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }
  template <typename Call>
  void timed(Call call, std::size_t bytes) {
    const auto start = Clock::now();
    call();
    stats_.seconds += elapsed(start);
    ++stats_.allreduce_calls;
    stats_.allreduce_bytes += static_cast<std::int64_t>(bytes);
  }

  Communicator& inner_;
  CommunicationStats stats_;
};

}  // namespace snapml::mpi
