// A Criteo-like generator: Criteo-schema TSV (snapml/datasets/criteo.h) with a
// planted logistic model, for scale tests and benchmarks (no large real click log
// is available offline). docs/datasets.md describes the distribution in full.
//
// The "world" is a function of `seed`:
//  - categorical column c = 0..25 has n_c = round(4 * (max_cardinality / 4)^(c / 25))
//    distinct values (log-uniform from 4 to max_cardinality); a row draws the rank
//    of its value from Zipf(zipf_exponent) over 1..n_c, and rank k is written as the
//    8 hex digits of a seeded bijection of k, so distinct ranks never share a string;
//    columns C19..C26 are missing with a per-column rate in [0.1, 0.6];
//  - integer column j = 0..12 is missing with a per-column rate in [0.2, 0.4], else
//    floor(exp(mu_j + sigma_j * z)) with z ~ N(0, 1) (heavy-tailed counts, many
//    zeros); I2 (j = 1) is shifted by -1, so it holds -1 like the real log;
//  - the planted model: logit = bias + sum_c w_c(rank) + sum_j u_j(x), with
//    w_c(rank) ~ N(0, categorical_weight_scale^2) drawn from a hash of (seed, c,
//    rank) and 0 for a missing value; u_j = a_j * log(1 + x) for x > 0, a fixed
//    weight for missing and one for negative, 0 for x == 0 (the reader's integer
//    features exactly); the bias is calibrated so the mean click probability is
//    `click_rate`. The label is 1 with probability p = sigmoid(logit).
// Row r draws from its own random stream keyed by (seed, r): the output is the same
// bytes for the same options whatever the thread count, and rows [first_row,
// first_row + rows) of one seed are disjoint examples of the same world (a test set
// is the rows after a training set's).
//
// The planted model is over the raw values. The reader hashes categorical values
// into 2^hash_bits buckets, so distinct values can share a feature and a model
// learnt from the hashed features may not reach the Bayes logloss exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace snapml::datasets {

struct CriteoGeneratorOptions {
  std::int64_t rows = 1000;
  std::uint64_t seed = 1;       // the world: vocabulary, distributions, planted model
  std::int64_t first_row = 0;   // the row stream's first row to write
  double click_rate = 0.03;     // mean click probability the bias is calibrated to
  double zipf_exponent = 1.1;   // of every categorical column's value ranks
  std::int64_t max_cardinality = 5'000'000;  // distinct values of the largest column
  double categorical_weight_scale = 0.4;     // standard deviation of the planted w_c
  int threads = 0;              // 0: all threads OpenMP offers
};

struct CriteoGeneratorStats {
  std::int64_t rows = 0;
  std::int64_t clicks = 0;
  double bias = 0;              // the calibrated intercept of the planted model
  double mean_probability = 0;  // mean of p over the rows written
  // The planted model's logloss on the rows written, mean of
  // -[y log p + (1 - y) log(1 - p)] ...
  double logloss = 0;
  // ... and its expectation over the labels, mean of the entropy H(p): the Bayes
  // logloss, the best any model of the raw fields can do on these rows.
  double bayes_logloss = 0;
  // Standard error of `logloss` around `bayes_logloss`:
  // sqrt(sum p (1 - p) logit^2) / rows (the labels are independent Bernoulli(p)).
  double logloss_standard_error = 0;

  double click_rate() const { return rows ? static_cast<double>(clicks) / static_cast<double>(rows) : 0.0; }
};

// Generates options.rows rows and hands the text to `sink` in blocks, in order
// (never the whole output at once). Throws InvalidArgument on bad options.
CriteoGeneratorStats generate_criteo(const CriteoGeneratorOptions& options,
                                     const std::function<void(const char*, std::size_t)>& sink);

// Writes to an open stream (stdout, ...). Throws IoError when a write fails.
CriteoGeneratorStats generate_criteo(const CriteoGeneratorOptions& options, std::FILE* out);

// Writes a file atomically (snapml/atomic_file.h).
CriteoGeneratorStats generate_criteo_file(const CriteoGeneratorOptions& options, const std::string& path);

}  // namespace snapml::datasets
