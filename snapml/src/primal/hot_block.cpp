#include "hot_block.h"

#include <algorithm>
#include <numeric>

#include "packed_cholesky.h"

namespace snapml::detail {

struct HotBlock::Factor {
  Eigen::MatrixXd block;  // B, its lower triangle
  LowerCholesky llt;      // B = L L^T
};

HotBlock::HotBlock() = default;
HotBlock::~HotBlock() = default;
HotBlock::HotBlock(HotBlock&&) noexcept = default;
HotBlock& HotBlock::operator=(HotBlock&&) noexcept = default;

namespace {

// The `count` indices of largest `diagonal`, ties to the lower index, in no order.
std::vector<std::int32_t> heaviest(const std::vector<double>& diagonal, std::size_t count) {
  std::vector<std::int32_t> order(diagonal.size());
  std::iota(order.begin(), order.end(), 0);
  count = std::min(count, order.size());
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end(),
                   [&](std::int32_t a, std::int32_t b) {
                     return diagonal[a] > diagonal[b] || (diagonal[a] == diagonal[b] && a < b);
                   });
  order.resize(count);
  return order;
}

}  // namespace

int hot_block_size(const std::vector<double>& diagonal, double entries) {
  int size = 0;
  for (int candidate = kFewestHotWeights; candidate <= kMostHotWeights; candidate *= 2) {
    const auto n = static_cast<double>(candidate);
    if (n * n * n / 3.0 > entries || 2 * static_cast<std::size_t>(candidate) > diagonal.size()) break;
    size = candidate;
  }
  if (size == 0) return 0;
  double total = 0.0, inside = 0.0;
  for (const double h : diagonal) total += h;
  for (const std::int32_t j : heaviest(diagonal, static_cast<std::size_t>(size))) inside += diagonal[j];
  return total > 0.0 && inside >= kHotDiagonalShare * total ? size : 0;
}

void HotBlock::choose(const std::vector<double>& diagonal, int size) {
  const std::size_t width = diagonal.size();
  weights_ = heaviest(diagonal, static_cast<std::size_t>(std::max(size, 0)));
  std::sort(weights_.begin(), weights_.end());
  position_.assign(width, -1);
  for (std::size_t k = 0; k < weights_.size(); ++k) position_[weights_[k]] = static_cast<std::int32_t>(k);
  factor_.reset();
}

bool HotBlock::factor(const std::vector<double>& packed, const std::vector<double>& regulariser) {
  const auto n = static_cast<Eigen::Index>(weights_.size());
  auto factor = std::make_unique<Factor>();
  factor->block = lower_from_packed(packed, n, [&](Eigen::Index a) {
    return regulariser[static_cast<std::size_t>(weights_[static_cast<std::size_t>(a)])];
  });
  factor->llt.compute(factor->block);
  if (!positive_definite(factor->llt)) {
    factor_.reset();
    return false;
  }
  factor_ = std::move(factor);
  return true;
}

double HotBlock::inverse_product(const std::vector<double>& a, std::vector<double>* out) const {
  const auto n = static_cast<Eigen::Index>(weights_.size());
  Eigen::VectorXd part(n);
  for (Eigen::Index k = 0; k < n; ++k) part(k) = a[weights_[static_cast<std::size_t>(k)]];
  const Eigen::VectorXd solved = factor_->llt.solve(part);
  if (out)
    for (Eigen::Index k = 0; k < n; ++k) (*out)[weights_[static_cast<std::size_t>(k)]] = solved(k);
  return part.dot(solved);
}

double HotBlock::product(const std::vector<double>& a, const std::vector<double>& b) const {
  const auto n = static_cast<Eigen::Index>(weights_.size());
  Eigen::VectorXd left(n), right(n);
  for (Eigen::Index k = 0; k < n; ++k) {
    left(k) = a[weights_[static_cast<std::size_t>(k)]];
    right(k) = b[weights_[static_cast<std::size_t>(k)]];
  }
  return left.dot(factor_->block.selfadjointView<Eigen::Lower>() * right);
}

}  // namespace snapml::detail
