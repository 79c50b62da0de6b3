#include "free_intercept.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "../common/omp_threads.h"
#include "../primal/quasi_newton.h"
#include "snapml/losses/contract.h"
#include "snapml/losses/dispatch.h"
#include "snapml/losses/primal_terms.h"

namespace snapml::detail {
namespace {

// What the rows' pass sums, per side: classification's y = +1 and y = -1 (side 0
// and 1), or every row on side 0 for regression. The sums of a block, added in
// order over the blocks: the same bits for any thread count.
struct SideSums {
  double alpha = 0.0;         // S: sum alpha_i
  double alpha_margin = 0.0;  // sum alpha_i w.x_i
  double alpha_norm = 0.0;    // sum alpha_i ||x_i||
  double dual = 0.0;          // sum dual_value(alpha_i)
  double margin = 0.0;        // sum w.x_i (regression's shift)
  double norm = 0.0;          // sum ||x_i||
  double rows = 0.0;          // rows with a cost
  void add(const SideSums& o) {
    alpha += o.alpha;
    alpha_margin += o.alpha_margin;
    alpha_norm += o.alpha_norm;
    dual += o.dual;
    margin += o.margin;
    norm += o.norm;
    rows += o.rows;
  }
};

struct BlockSums {
  double loss = 0.0;
  std::array<SideSums, 2> side;
};

// sum_i C_i loss(y_i, m_i + b) and its first two derivatives in b.
struct InterceptTerms {
  double loss = 0.0;
  double derivative = 0.0;
  double curvature = 0.0;
  void add(const InterceptTerms& o) {
    loss += o.loss;
    derivative += o.derivative;
    curvature += o.curvature;
  }
};

// Calls visit(x, row, index, y, cost) for the rows of block `block` of chunk c.
template <typename Visit>
void for_block(const ResidentRows& rows, std::size_t c, std::int64_t block, const RowTargets& targets,
               const Visit& visit) {
  const CsrView& x = rows.chunks[c];
  const std::int64_t end = std::min(x.n_rows, (block + 1) * kRowBlock);
  for (std::int64_t row = block * kRowBlock; row < end; ++row) {
    const double y = targets.target(x.labels[row]);
    const double cost = targets.cost(y, x.weight(row));
    if (!(cost > 0.0)) continue;  // absent from both problems
    visit(x, row, rows.first[c] + row, y, cost);
  }
}

// Runs body(c, block, sums) over every block of every chunk on the team and adds
// the blocks' sums in order.
template <typename Sums, typename Body>
Sums in_blocks(const ResidentRows& rows, int threads, const Body& body) {
  Sums total{};
  std::vector<Sums> sums;
  for (std::size_t c = 0; c < rows.chunks.size(); ++c) {
    const std::int64_t blocks = row_blocks(rows.chunks[c].n_rows);
    sums.assign(static_cast<std::size_t>(blocks), Sums{});
SNAPML_OMP(parallel for num_threads(threads) schedule(dynamic, 1))
    for (std::int64_t block = 0; block < blocks; ++block) body(c, block, sums[static_cast<std::size_t>(block)]);
    for (const Sums& s : sums) total.add(s);
  }
  return total;
}

// The intercept for the margins m_i = w.x_i (free_intercept.h, "The intercept
// for w"): from b = `start`, whose terms are `at`, the line b + t d through
// Newton's step d = -g / h is minimised by the primal solver's one-dimensional
// search (quasi_newton.h, minimise_along_line: Newton steps on the slope inside
// a bracket, the first at t = 1), then again from there, until Newton's
// decrement g^2 / h, about twice what one more step would save, is below 1e-3 of
// tol times the loss (a thousandth of the gap the fit is asked for). Each
// evaluation is a pass over the margins, not the rows' entries. Returns b and
// its terms in `at`.
template <typename Loss>
double intercept_for_margins(const Loss& loss, const ResidentRows& rows, const RowTargets& targets,
                             const double* margins, double start, double tol, int threads, InterceptTerms& at) {
  constexpr int kMaxLines = 4;
  auto terms_at = [&](double b) {
    return in_blocks<InterceptTerms>(rows, threads, [&](std::size_t c, std::int64_t block, InterceptTerms& t) {
      for_block(rows, c, block, targets, [&](const CsrView&, std::int64_t, std::int64_t index, double y,
                                             double cost) {
        const losses::PrimalTerms terms = losses::primal_terms(loss, y, margins[index] + b);
        t.loss += cost * terms.value;
        t.derivative += cost * terms.derivative;
        t.curvature += cost * terms.curvature;
      });
    });
  };
  double b = start;
  for (int line = 0; line < kMaxLines && at.curvature > 0.0 &&
                     at.derivative * at.derivative > 1e-3 * tol * std::fabs(at.loss) * at.curvature;
       ++line) {
    const double d = -at.derivative / at.curvature;
    double last_t = 0.0;  // the search's last evaluation, almost always the point it returns
    InterceptTerms last;
    const LineStep step = minimise_along_line(
        [&](double t) {
          last_t = t;
          last = terms_at(b + t * d);
          return LineValues{last.loss, last.derivative * d, last.curvature * d * d};
        },
        at.loss, at.derivative * d, 1.0);
    if (step.t == 0.0) break;  // no point below the start: b is as good as rounding allows
    at = step.t == last_t ? last : terms_at(b + step.t * d);
    b += step.t * d;
  }
  return b;
}

template <typename Loss>
FreeInterceptSums sums_for(const Loss& loss, const ResidentRows& rows, const RowTargets& targets,
                           const double* weights, double intercept, const double* alpha, const double* squared_norms,
                           double bias_square, double tol, int threads, double* margins) {
  struct Total {
    BlockSums b;
    InterceptTerms at;  // the loss's derivatives in b at `intercept` (b.loss its value)
    void add(const Total& o) {
      at.add(o.at);
      b.loss += o.b.loss;
      b.side[0].add(o.b.side[0]);
      b.side[1].add(o.b.side[1]);
    }
  };
  auto norm_of = [&](std::int64_t index) {
    return std::sqrt(std::max(0.0, squared_norms[index] - bias_square));
  };
  // The rows: the loss at w.x_i + b and its derivatives in b, each row's margin,
  // and each side's sums at alpha.
  const Total rows_total = in_blocks<Total>(rows, threads, [&](std::size_t c, std::int64_t block, Total& t) {
    for_block(rows, c, block, targets, [&](const CsrView& x, std::int64_t row, std::int64_t index, double y,
                                           double cost) {
      const double margin = row_dot(x, row, weights);
      if constexpr (losses::is_primal_loss<Loss>::value) {
        const losses::PrimalTerms terms = losses::primal_terms(loss, y, margin + intercept);
        t.b.loss += cost * terms.value;
        t.at.derivative += cost * terms.derivative;
        t.at.curvature += cost * terms.curvature;
        margins[index] = margin;
      } else {
        t.b.loss += cost * loss.loss(y, margin + intercept);
      }
      SideSums& side = t.b.side[targets.classification && y < 0.0 ? 1 : 0];
      const double a = alpha[index];
      const double norm = norm_of(index);
      side.alpha += a;
      side.alpha_margin += a * margin;
      side.alpha_norm += a * norm;
      side.dual += loss.dual_value(y, a, cost);
      side.margin += margin;
      side.norm += norm;
      side.rows += 1.0;
    });
  });
  const SideSums& plus = rows_total.b.side[0];
  const SideSums& minus = rows_total.b.side[1];
  FreeInterceptSums certificate;
  ObjectiveSums& result = certificate.sums;
  result.loss = rows_total.b.loss;
  certificate.intercept = intercept;
  if constexpr (losses::is_primal_loss<Loss>::value) {
    InterceptTerms at = rows_total.at;
    at.loss = rows_total.b.loss;
    certificate.intercept = intercept_for_margins(loss, rows, targets, margins, intercept, tol, threads, at);
    result.loss = at.loss;
  }
  // s = sum_i c(y_i) alpha_i, and the feasible alpha' = alpha + delta.
  double shift_term = 0.0;  // sum_i delta_i c_i w.x_i
  double move_norm = 0.0;   // sum_i |delta_i| ||x_i||, bounding ||u||
  double dual = plus.dual + minus.dual;
  // alpha' onto sum_i c_i alpha'_i = 0 by the one rule (snapml/impl/objectives.h).
  const DualRepair repair = dual_repair(targets.classification, plus.alpha, minus.alpha, plus.rows);
  if (targets.classification) {
    // The heavier side's alphas times f = 1 - shrink: still in [0, C_i].
    const int heavy = repair.heavy_side;
    const SideSums& h = heavy == 0 ? plus : minus;
    if (repair.shrink != 0.0) {
      const double shrink = repair.shrink;
      const double f = 1.0 - shrink;
      const double c = heavy == 0 ? 1.0 : -1.0;
      shift_term = -shrink * c * h.alpha_margin;
      move_norm = shrink * h.alpha_norm;
      const Total scaled = in_blocks<Total>(rows, threads, [&](std::size_t ch, std::int64_t block, Total& t) {
        for_block(rows, ch, block, targets, [&](const CsrView&, std::int64_t, std::int64_t index, double y,
                                                double cost) {
          if ((y < 0.0 ? 1 : 0) == heavy) t.b.side[0].dual += loss.dual_value(y, f * alpha[index], cost);
        });
      });
      dual = (heavy == 0 ? minus.dual : plus.dual) + scaled.b.side[0].dual;
    }
  } else if (plus.rows > 0.0) {
    // Regression: every alpha (an unbounded interval) moves by -s / n.
    const double move = repair.shift;
    shift_term = move * plus.margin;
    move_norm = std::fabs(move) * plus.norm;
    if (move != 0.0) {
      const Total moved = in_blocks<Total>(rows, threads, [&](std::size_t ch, std::int64_t block, Total& t) {
        for_block(rows, ch, block, targets, [&](const CsrView&, std::int64_t, std::int64_t index, double y,
                                                double cost) {
          t.b.side[0].dual += loss.dual_value(y, alpha[index] + move, cost);
        });
      });
      dual = moved.b.side[0].dual;
    }
  }
  result.dual = dual - shift_term - 0.5 * move_norm * move_norm;
  return certificate;
}

}  // namespace

FreeInterceptSums free_intercept_sums(const ResidentRows& rows, const SolverParameters& parameters,
                                      const double* weights, std::int32_t n_features, double intercept,
                                      const double* alpha, const double* squared_norms, int threads,
                                      double* margins) {
  (void)n_features;  // row_dot reads only the rows' columns, all below n_features
  const RowTargets targets = RowTargets::from(parameters);
  const double bias_square = parameters.intercept_scaling * parameters.intercept_scaling;
  return with_loss(parameters.loss, parameters.epsilon, 0.0, [&](const auto& loss) {
    return sums_for(loss, rows, targets, weights, intercept, alpha, squared_norms, bias_square, parameters.tol,
                    resolve_threads(threads), margins);
  });
}

}  // namespace snapml::detail
