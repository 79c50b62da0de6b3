// Synthetic sparse datasets with a planted linear model (see synthetic.h).
//
// Every random number is drawn from a splitmix64 stream keyed by (seed, purpose,
// index): one stream per weight and one per row. A row depends on nothing but
// its own stream and the weights, so rows are generated in parallel and the
// dataset is the same for every thread count.
#include "snapml/datasets/synthetic.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "parallel.h"
#include "snapml/error.h"

namespace snapml::datasets {

namespace {

// splitmix64's output function (Steele, Lea & Flood, OOPSLA 2014): a bijective
// mix of 64 bits, so distinct keys give distinct stream starts.
std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

constexpr double kPi = 3.14159265358979323846;

enum class Purpose : std::uint64_t { Weight = 1, Row = 2 };

class Stream {
 public:
  Stream(std::uint64_t seed, Purpose purpose, std::uint64_t index)
      : state_(mix64(mix64(seed ^ (static_cast<std::uint64_t>(purpose) << 56)) + index)) {}

  std::uint64_t next() { return mix64(state_ += 0x9E3779B97F4A7C15ull); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1], exactly representable as a float.
  float positive_float() { return static_cast<float>((next() >> 40) + 1) * 0x1.0p-24f; }
  // Uniform integer in [0, n), n > 0, without modulo bias (rejection).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t reject_under = (0 - n) % n;  // 2^64 mod n
    std::uint64_t x;
    do x = next();
    while (x < reject_under);
    return x % n;
  }
  // Standard normal (Box-Muller).
  double normal() {
    const double u1 = 1.0 - uniform();  // (0, 1]: log is finite
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
  }

 private:
  std::uint64_t state_;
};

// Writes k distinct features drawn uniformly from [0, n) into out[0..k), sorted
// (Floyd's algorithm: each j in [n-k, n) adds a uniform t <= j, or j itself if t
// is taken; every k-subset is equally likely). Insertion keeps them sorted, O(k^2)
// moves: fine for the tens to hundreds of non-zeros a row has here.
void sample_features(Stream& rng, std::int32_t n, std::int32_t k, std::int32_t* out) {
  std::int32_t count = 0;
  for (std::int32_t j = n - k; j < n; ++j) {
    auto t = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(j) + 1));
    std::int32_t* at = std::lower_bound(out, out + count, t);
    if (at != out + count && *at == t) {
      out[count++] = j;  // j exceeds every feature drawn so far: it goes last
    } else {
      std::copy_backward(at, out + count, out + count + 1);
      *at = t;
      ++count;
    }
  }
}

void validate(const SyntheticOptions& o) {
  require(o.rows > 0, "SyntheticOptions.rows must be positive, got " + std::to_string(o.rows));
  require(o.features > 0, "SyntheticOptions.features must be positive, got " + std::to_string(o.features));
  require(o.nnz_per_row > 0 && o.nnz_per_row <= o.features,
          "SyntheticOptions.nnz_per_row must be in [1, features=" + std::to_string(o.features) + "], got " +
              std::to_string(o.nnz_per_row));
  require(o.chunk_rows > 0, "SyntheticOptions.chunk_rows must be positive, got " + std::to_string(o.chunk_rows));
  require(std::isfinite(o.margin_scale), "SyntheticOptions.margin_scale must be finite");
  require(std::isfinite(o.noise) && o.noise >= 0, "SyntheticOptions.noise must be finite and >= 0");
  require(o.threads >= 0, "SyntheticOptions.threads must be 0 (all) or positive, got " + std::to_string(o.threads));
}

// The planted model: w*_j ~ N(0, 1), minus the mean of all w*_j. Values are
// positive, so an uncentred w* would shift every margin by about
// sqrt(nnz_per_row)/2 * mean(w*) and unbalance the classes.
std::vector<double> planted_weights(const SyntheticOptions& o, [[maybe_unused]] int threads) {
  std::vector<double> w(static_cast<std::size_t>(o.features));
  SNAPML_OMP(parallel for schedule(static) num_threads(threads))
  for (std::int32_t j = 0; j < o.features; ++j) {
    Stream rng(o.seed, Purpose::Weight, static_cast<std::uint64_t>(j));
    w[static_cast<std::size_t>(j)] = rng.normal();
  }
  double sum = 0;  // summed in one fixed order: the same for every thread count
  for (double v : w) sum += v;
  const double mean = sum / static_cast<double>(w.size());
  for (double& v : w) v -= mean;
  return w;
}

}  // namespace

Dataset make_synthetic(const SyntheticOptions& o) {
  validate(o);
  const int threads = detail::resolve_threads(o.threads);
  const std::vector<double> w = planted_weights(o, threads);
  const auto k = static_cast<std::size_t>(o.nnz_per_row);
  const double margin_norm = 1.0 / std::sqrt(static_cast<double>(o.nnz_per_row));

  const std::int64_t n_chunks = (o.rows + o.chunk_rows - 1) / o.chunk_rows;
  std::vector<CsrChunk> chunks(static_cast<std::size_t>(n_chunks));
  for (std::int64_t c = 0; c < n_chunks; ++c) {
    CsrChunk& chunk = chunks[static_cast<std::size_t>(c)];
    const std::int64_t first = c * o.chunk_rows;
    const auto n = static_cast<std::size_t>(std::min(o.rows - first, o.chunk_rows));
    chunk.labels.resize(n);
    chunk.row_offsets.resize(n + 1);
    chunk.col_indices.resize(n * k);
    chunk.values.resize(n * k);
    // Every row has exactly k non-zeros, so each row's place is known up front.
    SNAPML_OMP(parallel for schedule(static) num_threads(threads))
    for (std::size_t r = 0; r < n; ++r) {
      Stream rng(o.seed, Purpose::Row, static_cast<std::uint64_t>(first) + r);
      std::int32_t* columns = chunk.col_indices.data() + r * k;
      float* values = chunk.values.data() + r * k;
      sample_features(rng, o.features, o.nnz_per_row, columns);
      double margin = 0;
      for (std::size_t i = 0; i < k; ++i) {
        values[i] = rng.positive_float();
        margin += w[static_cast<std::size_t>(columns[i])] * values[i];
      }
      margin *= margin_norm;
      if (o.task == SyntheticTask::Binary) {
        const double p_positive = 1.0 / (1.0 + std::exp(-o.margin_scale * margin));
        chunk.labels[r] = rng.uniform() < p_positive ? 1.0 : -1.0;
      } else {
        chunk.labels[r] = margin + o.noise * rng.normal();
      }
      chunk.row_offsets[r + 1] = static_cast<std::int64_t>((r + 1) * k);
    }
  }
  return Dataset(std::move(chunks), o.features);
}

}  // namespace snapml::datasets
