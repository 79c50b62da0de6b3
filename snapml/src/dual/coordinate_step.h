// The innermost work of the CPU SDCA solver (sdca_cpu.cpp): one exact coordinate
// step on a row, the rows of a block of the epoch's order, and the blocks the
// threads claim in turn; shared by the resident and streamed epochs.
//
// Invariant kept by every step: w = sum_i alpha_i coefficient(y_i) x_i (the
// intercept the constant feature at n_features); with several threads the adds
// are atomic (PASSCoDe-Atomic, Hsieh, Yu & Dhillon 2015), or go to a thread's own
// replica (CoCoA+ workers), or to its pending hot-column changes (hot_columns.h).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "threads/hot_columns.h"
#include "../common/prefetch.h"
#include "rows/resident_rows.h"
#include "threads/thread_copies.h"
#include "../common/omp_threads.h"
#include "snapml/csr_view.h"
#include "snapml/impl/objectives.h"
#include "snapml/losses/common.h"

namespace snapml::detail {


// How a step reads and moves the weights it steps on (sdca_cpu.cpp says which
// path takes which).
enum class WeightAccess {
  Plain,    // one thread, or a thread's copy of a small w: plain loads and stores
  Atomic,   // the shared w (PASSCoDe-Atomic): atomic adds, hot columns pending
  Replica,  // a CoCoA+ worker: margins on w + its change, w read-only during the round
};

template <bool kAtomic>
inline double load_weight(const double& value) {
  if constexpr (kAtomic) return detail::atomic_read(value);
  return value;
}

template <bool kAtomic>
inline void add_weight(double& target, double increment) {
  if constexpr (kAtomic) {
#if defined(_OPENMP)
#pragma omp atomic update
#endif
    target += increment;
  } else {
    target += increment;
  }
}

// What every coordinate step of one chunk needs besides the row.
struct StepContext {
  RowTargets targets;
  // What steps move: w itself (one worker), or with several workers (replicas,
  // ranks) the worker's change sigma' * dw_k, its margins on w + sigma' * dw_k.
  double* local_weights;
  std::int32_t bias_index;  // n_features: the intercept's weight
  double bias_value;        // intercept_scaling, 0 without intercept
  double sigma;             // CoCoA+'s sigma'
  // PASSCoDe threads: the columns whose changes each thread keeps pending
  // (hot_columns.h); null with one thread.
  const detail::HotColumns* hot;
  // Shrinking (losses/common.h, svc_shrinks): the previous pass's projected
  // gradient range; null when rows are not shrunk.
  const struct ShrinkBounds* shrink = nullptr;
  // local_weights when the epoch prefetches a row's weights, else null (prefetch.h).
  const double* prefetched_weights = nullptr;
  // A free intercept (free_intercept.h): the part of the intercept moved out of
  // w's intercept weight at the last recentring, added to every margin.
  double margin_offset = 0.0;
  // WeightAccess::Replica: w at the round's start, and the columns whose change
  // leaves 0 (each listed when it does: the round's merge visits these only,
  // replica_merge.h).
  const double* round_weights = nullptr;
  std::vector<std::int32_t>* touched = nullptr;
};

struct ShrinkBounds {
  double pg_max_old;
  double pg_min_old;
};

// What one thread gathers over its rows of an epoch: its pending changes to the
// hot columns and, when shrinking, the range of the projected gradients it saw.
struct ThreadPass {
  explicit ThreadPass(const detail::HotColumns* hot) : pending(hot) {}
  detail::PendingUpdates pending;
  double pg_max = -HUGE_VAL;
  double pg_min = HUGE_VAL;
};

// Publishes a thread's pending changes to the hot columns (hot_columns.h).
inline void flush(detail::PendingUpdates& pending, double* v) {
  for (std::size_t s = 0; s < pending.values.size(); ++s) {
    if (pending.values[s] == 0.0) continue;
    add_weight<true>(v[pending.hot->column(s)], pending.values[s]);
    pending.values[s] = 0.0;
  }
  pending.rows = 0;
}

// One exact coordinate step on row `row` of chunk x: the innermost work.
template <typename Loss, WeightAccess kAccess>
inline bool step_row(const Loss& loss, const CsrView& x, std::int64_t row, double& alpha,
                     double squared_norm, const StepContext& context, ThreadPass& pass) {
  constexpr bool kAtomic = kAccess == WeightAccess::Atomic;
  detail::PendingUpdates& pending = pass.pending;
  double* v = context.local_weights;
  const std::int32_t* columns = x.col_indices;
  const float* values = x.values;
  const std::int64_t begin = x.row_offsets[row];
  const std::int64_t end = x.row_offsets[row + 1];
  const double y = context.targets.target(x.labels[row]);
  const double cost = context.targets.cost(y, x.weight(row));
  if (!(cost > 0.0)) return false;
  // With threads, a hot column's weight is the shared value plus this thread's
  // pending change to it.
  auto weight = [&](std::int32_t j) {
    double value = load_weight<kAtomic>(v[j]);
    if constexpr (kAccess == WeightAccess::Replica) value += context.round_weights[j];
    if constexpr (kAtomic) {
      if (pending.hot != nullptr) {
        const std::int32_t slot = pending.hot->slot(j);
        if (slot >= 0) value += pending.values[static_cast<std::size_t>(slot)];
      }
    }
    return value;
  };
  auto move = [&](std::int32_t j, double change) {
    if constexpr (kAtomic) {
      if (pending.hot != nullptr) {
        const std::int32_t slot = pending.hot->slot(j);
        if (slot >= 0) {
          pending.values[static_cast<std::size_t>(slot)] += change;
          return;
        }
      }
    }
    if constexpr (kAccess == WeightAccess::Replica) {
      if (v[j] == 0.0) context.touched->push_back(j);
    }
    add_weight<kAtomic>(v[j], change);
  };
  double margin = row_dot_with<double>(x, row, weight);
  if (context.bias_value != 0.0) margin += context.bias_value * weight(context.bias_index);
  margin += context.margin_offset;
  const double old_alpha = alpha;
  if constexpr (losses::is_shrinkable<Loss>::value) {
    if (context.shrink != nullptr) {
      double projected = 0.0;
      if (losses::svc_shrinks(losses::svc_gradient(y, old_alpha, margin, Loss::diag(cost)), old_alpha,
                              Loss::upper_bound(cost), context.shrink->pg_max_old, context.shrink->pg_min_old,
                              projected))
        return true;
      pass.pg_max = std::max(pass.pg_max, projected);
      pass.pg_min = std::min(pass.pg_min, projected);
    }
  }
  const double new_alpha = loss.step(y, old_alpha, margin, squared_norm, cost, context.sigma);
  if (new_alpha == old_alpha) return false;
  alpha = new_alpha;
  const double scale = context.sigma * (new_alpha - old_alpha) * Loss::coefficient(y);
  for (std::int64_t k = begin; k < end; ++k) move(columns[k], scale * static_cast<double>(values[k]));
  // Without an intercept the slot stays 0 and is never written.
  if (context.bias_value != 0.0) move(context.bias_index, scale * context.bias_value);
  if constexpr (kAtomic) {
    if (pending.hot != nullptr && ++pending.rows == pending.hot->flush_rows()) flush(pending, v);
  }
  return false;
}

// The rows order[begin, end) of a resident source (one permutation over all
// chunks), or of a streamed epoch's window of chunks (indices of their rows among
// all rows; `rows` then lists only the window's chunks, by their first row).
// `left_out` is written only when shrinking, which streamed epochs do not.
template <typename Loss, WeightAccess kAccess>
void update_resident_rows(const Loss& loss, const ResidentRows& rows, const std::int64_t* order,
                          std::int64_t order_size, std::int64_t begin, std::int64_t end, double* alpha,
                          const double* squared_norms, const StepContext& context, ThreadPass& pass,
                          std::uint8_t* left_out) {
  auto locate = [&](std::int64_t index) {
    const std::size_t c = rows.chunk_of(index);
    return std::pair<const CsrView&, std::int64_t>(rows.chunks[c], index - rows.first[c]);
  };
  for (std::int64_t position = begin; position < end; ++position) {
    detail::prefetch_ahead(order, position, order_size, locate, alpha, squared_norms, context.prefetched_weights);
    const std::int64_t index = order[position];
    const auto [x, row] = locate(index);
    if (step_row<Loss, kAccess>(loss, x, row, alpha[index], squared_norms[index], context, pass))
      left_out[index] = 1;  // only with shrinking: step_row returns false otherwise
  }
}

// With several threads: the positions [0, n) of the epoch's order in blocks
// claimed one at a time (omp_threads.h, kRowBlock), so that a thread that loses
// its core for a while does fewer blocks instead of keeping the others waiting;
// `update(begin, end, pass)` does one block. Each thread's pending changes to the
// hot columns are published when it runs out of blocks, and its projected
// gradient range joins `total`. Called inside a parallel region. With replicas
// (two threads, or ranks; past two threads one process deals each round's rows
// instead: sdca_team_rounds.cpp) the blocks a thread claims are its CoCoA+
// partition of this round: a fresh one
// every epoch (SySCD's dynamic re-partitioning), each row in exactly one.
template <typename Update>
void update_in_blocks(std::int64_t n, const StepContext& context, ThreadPass& total, const Update& update) {
  ThreadPass pass(context.hot);
  const std::int64_t blocks = detail::row_blocks(n);
SNAPML_OMP(for schedule(dynamic, 1) nowait)
  for (std::int64_t block = 0; block < blocks; ++block)
    update(block * detail::kRowBlock, std::min(n, (block + 1) * detail::kRowBlock), pass);
  flush(pass.pending, context.local_weights);
SNAPML_OMP(critical(snapml_thread_pass))
  {
    total.pg_max = std::max(total.pg_max, pass.pg_max);
    total.pg_min = std::min(total.pg_min, pass.pg_min);
  }
}

}  // namespace snapml::detail
