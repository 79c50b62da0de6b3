// A real Communicator for tests: K "ranks" as threads of one process, exchanging
// through shared memory. It exercises the distributed (CoCoA+) code path without
// MPI; the MPI communicator (mpi/) is a drop-in for it.
//
// Every collective is two barriers: publish the buffer pointer, let each rank
// read what it needs (sums in rank order, so every rank computes bit-identical
// results), then let each rank write its own buffer. A rank that fails or aborts
// releases the others, whose next collective throws instead of hanging.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "snapml/communicator.h"
#include "snapml/error.h"

namespace snapml::testing {

class ThreadGroup {
 public:
  explicit ThreadGroup(int size) : size_(size), slots_(static_cast<std::size_t>(size), nullptr) {}
  int size() const { return size_; }

  // Waits until all ranks arrive (generation counting, as std::barrier in C++20).
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (aborted_) throw Error("thread group aborted: " + reason_);
    const std::uint64_t generation = generation_;
    if (++waiting_ == size_) {
      waiting_ = 0;
      ++generation_;
      released_.notify_all();
      return;
    }
    released_.wait(lock, [&] { return generation_ != generation || aborted_; });
    if (generation_ == generation) throw Error("thread group aborted: " + reason_);
  }
  void abort(const std::string& reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!aborted_) reason_ = reason;
    aborted_ = true;
    released_.notify_all();
  }
  void publish(int rank, void* data) { slots_[static_cast<std::size_t>(rank)] = data; }
  void* slot(int rank) const { return slots_[static_cast<std::size_t>(rank)]; }

 private:
  int size_;
  std::vector<void*> slots_;
  std::mutex mutex_;
  std::condition_variable released_;
  int waiting_ = 0;
  std::uint64_t generation_ = 0;
  bool aborted_ = false;
  std::string reason_;
};

class ThreadCommunicator final : public Communicator {
 public:
  ThreadCommunicator(ThreadGroup& group, int rank) : group_(group), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return group_.size(); }
  void allreduce_sum(double* data, std::size_t count) override {
    reduce(data, count, [](double a, double b) { return a + b; });
  }
  void allreduce_sum(std::int64_t* data, std::size_t count) override {
    reduce(data, count, [](std::int64_t a, std::int64_t b) { return a + b; });
  }
  void allreduce_max(std::int64_t* data, std::size_t count) override {
    reduce(data, count, [](std::int64_t a, std::int64_t b) { return a > b ? a : b; });
  }
  void broadcast(void* data, std::size_t bytes, int root) override {
    group_.publish(rank_, data);
    group_.arrive_and_wait();
    if (rank_ != root) std::memcpy(data, group_.slot(root), bytes);
    group_.arrive_and_wait();
  }
  void barrier() override { group_.arrive_and_wait(); }
  [[noreturn]] void abort(const std::string& message) override {
    group_.abort("rank " + std::to_string(rank_) + ": " + message);
    throw Error(message);
  }

 private:
  template <typename T, typename Combine>
  void reduce(T* data, std::size_t count, Combine combine) {
    group_.publish(rank_, data);
    group_.arrive_and_wait();
    std::vector<T> result(static_cast<const T*>(group_.slot(0)), static_cast<const T*>(group_.slot(0)) + count);
    for (int r = 1; r < group_.size(); ++r) {
      const T* other = static_cast<const T*>(group_.slot(r));
      for (std::size_t i = 0; i < count; ++i) result[i] = combine(result[i], other[i]);
    }
    group_.arrive_and_wait();  // everyone has read every buffer
    std::copy(result.begin(), result.end(), data);
  }

  ThreadGroup& group_;
  int rank_;
};

// Runs body(communicator) on `size` threads, one rank each; after every thread
// has ended, rethrows the first failure (not the aborts it caused elsewhere).
inline void run_ranks(int size, const std::function<void(Communicator&)>& body) {
  ThreadGroup group(size);
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(size));
  std::atomic<int> first_failure{-1};  // the original fault, not the aborts it caused
  std::vector<std::thread> threads;
  for (int rank = 0; rank < size; ++rank) {
    threads.emplace_back([&, rank] {
      ThreadCommunicator communicator(group, rank);
      try {
        body(communicator);
      } catch (...) {
        failures[static_cast<std::size_t>(rank)] = std::current_exception();
        int none = -1;
        first_failure.compare_exchange_strong(none, rank);
        group.abort("rank " + std::to_string(rank) + " failed");
      }
    });
  }
  for (std::thread& t : threads) t.join();
  if (first_failure >= 0) std::rethrow_exception(failures[static_cast<std::size_t>(first_failure.load())]);
}

}  // namespace snapml::testing
