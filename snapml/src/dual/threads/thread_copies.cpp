#include "thread_copies.h"

#include "../../common/omp_threads.h"

namespace snapml::detail {
namespace {

constexpr std::size_t kLineDoubles = 8;

}  // namespace

ThreadCopies::ThreadCopies(std::size_t weights, int threads)
    : weights_(weights),
      stride_((weights + kLineDoubles - 1) / kLineDoubles * kLineDoubles),
      threads_(threads),
      storage_(stride_ * static_cast<std::size_t>(threads) + kLineDoubles, 0.0) {
  // The first vector at a cache line's start (the allocation is 16-byte aligned).
  const auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
  published_ = storage_.data() + (kLineDoubles - address / sizeof(double) % kLineDoubles) % kLineDoubles;
}

ThreadCopies::Copy::Copy(ThreadCopies& copies, int thread, const double* base)
    : copies_(copies),
      published_(copies.published_ + copies.stride_ * static_cast<std::size_t>(thread)),
      local_(copies.weights_),
      snapshot_(copies.weights_) {
  refresh(base);
}

void ThreadCopies::Copy::refresh(const double* base) {
  const std::size_t size = copies_.weights_;
  for (std::size_t j = 0; j < size; ++j) local_[j] = base[j];
  for (int t = 0; t < copies_.threads_; ++t) {
    const double* published = copies_.published_ + copies_.stride_ * static_cast<std::size_t>(t);
    for (std::size_t j = 0; j < size; ++j) local_[j] += atomic_read(published[j]);
  }
  snapshot_ = local_;
}

void ThreadCopies::Copy::publish(const double* base) {
  // The other threads read this thread's published vector while it writes it
  // (whole values: atomic_write); only this thread writes it, so it reads it plainly.
  for (std::size_t j = 0; j < copies_.weights_; ++j) {
    const double change = local_[j] - snapshot_[j];
    if (change != 0.0) atomic_write(published_[j], published_[j] + change);
  }
  refresh(base);
}

void ThreadCopies::fold(double* base) {
  for (int t = 0; t < threads_; ++t) {
    double* published = published_ + stride_ * static_cast<std::size_t>(t);
    for (std::size_t j = 0; j < weights_; ++j) {
      base[j] += published[j];
      published[j] = 0.0;
    }
  }
}

}  // namespace snapml::detail
