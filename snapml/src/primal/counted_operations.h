// A MatrixOperations that forwards to another and counts the passes over the rows
// its products make (FitResult::data_passes): the primal solver's work in a unit
// that does not depend on the machine's load, comparable with other solvers'
// function and gradient evaluations (one pass for X w, one for X^T d).
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>

#include "snapml/impl/matrix_operations.h"

namespace snapml::detail {

class CountedOperations final : public MatrixOperations {
 public:
  explicit CountedOperations(std::unique_ptr<MatrixOperations> inner) : inner_(std::move(inner)) {}

  // Passes so far: one per product, a block product over K columns included.
  std::int64_t passes() const { return passes_; }

  std::int64_t n_rows() const override { return inner_->n_rows(); }
  std::size_t n_weights() const override { return inner_->n_weights(); }
  void rows(double* labels, double* sample_weights) override { inner_->rows(labels, sample_weights); }
  void margins(const double* w, double* out) override {
    ++passes_;
    inner_->margins(w, out);
  }
  void transpose_times(const double* d, double* out) override {
    ++passes_;
    inner_->transpose_times(d, out);
  }
  void hessian_product(const double* curvature, const double* v, double* out) override {
    ++passes_;  // x_i . v and the sum over x_i in one visit of each row
    inner_->hessian_product(curvature, v, out);
  }
  void hessian_diagonal(const double* curvature, double* out) override {
    ++passes_;
    inner_->hessian_diagonal(curvature, out);
  }
  void hessian_matrix(const double* curvature, double* out) override {
    // The column-by-column default makes a pass per weight.
    passes_ += std::isfinite(inner_->hessian_matrix_pairs()) ? 1 : static_cast<std::int64_t>(n_weights());
    inner_->hessian_matrix(curvature, out);
  }
  bool forms_hessian_block() const override { return inner_->forms_hessian_block(); }
  void hessian_block(const double* curvature, const std::int32_t* position, int size, double* out) override {
    ++passes_;
    inner_->hessian_block(curvature, position, size, out);
  }
  double hessian_matrix_pairs() const override { return inner_->hessian_matrix_pairs(); }
  double row_entries() const override { return inner_->row_entries(); }
  void margins_block(const double* w, int columns, double* out) override {
    ++passes_;
    inner_->margins_block(w, columns, out);
  }
  void transpose_times_block(const double* d, int columns, double* out) override {
    ++passes_;
    inner_->transpose_times_block(d, columns, out);
  }
  void hessian_diagonal_block(const double* curvature, int columns, double* out) override {
    ++passes_;
    inner_->hessian_diagonal_block(curvature, columns, out);
  }

 private:
  std::unique_ptr<MatrixOperations> inner_;
  std::int64_t passes_ = 0;
};

}  // namespace snapml::detail
