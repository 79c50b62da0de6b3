// Criteo-like generator: the world (vocabulary, distributions, planted model) is
// built once from the seed; rows are drawn in blocks on OpenMP threads, each row
// from its own random stream, and handed to the sink in row order.
#include "snapml/datasets/criteo_generator.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "parallel.h"
#include "snapml/atomic_file.h"
#include "snapml/datasets/criteo.h"
#include "snapml/error.h"

namespace snapml::datasets {

namespace {

constexpr double kPi = 3.14159265358979323846;

// splitmix64's finaliser: a bijective 64-bit mixer (Steele, Lea & Flood 2014).
constexpr std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A hash of (seed, stream, index): the key of every seeded quantity, so each is
// reproducible on its own, in any order, on any thread.
constexpr std::uint64_t key_of(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return mix64(mix64(mix64(seed ^ 0x5eed5eed5eed5eedULL) + stream) + index);
}

// Streams of key_of; distinct constants keep the quantities independent.
enum Stream : std::uint64_t {
  kRowStream = 1,
  kCalibrationStream,
  kIntegerParameters,
  kCategoricalParameters,
  kCategoricalWeights,  // + column * 2^32 (kCategoricalWeights < 2^32 keeps them apart)
};

// splitmix64: fast, small state, good enough statistics for data generation.
class Rng {
 public:
  explicit Rng(std::uint64_t state) : state_(state) {}
  std::uint64_t next() { return mix64(state_ += 0x9e3779b97f4a7c15ULL); }
  // Uniform in (0, 1): never 0, so log(u) is finite.
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
  // N(0, 1) by Box-Muller (one of the pair; simple and the same on every platform
  // whose libm rounds log, sqrt and cos the same way).
  double normal() {
    double radius = std::sqrt(-2.0 * std::log(uniform()));
    return radius * std::cos(2.0 * kPi * uniform());
  }

 private:
  std::uint64_t state_;
};

double normal_from_key(std::uint64_t key) { return Rng(key).normal(); }
double uniform_from_key(std::uint64_t key) { return Rng(key).uniform(); }

// Zipf(exponent) over 1..n by rejection-inversion (Hörmann & Derflinger 1996,
// "Rejection-inversion to generate variates from monotone discrete
// distributions"): O(1) expected time and no table, so a column may have
// millions of values. Follows the formulation of Apache Commons RNG.
class ZipfSampler {
 public:
  ZipfSampler(std::int64_t n, double exponent)
      : exponent_(exponent),
        n_(static_cast<double>(n)),
        h_integral_x1_(h_integral(1.5) - 1.0),
        h_integral_n_(h_integral(n_ + 0.5)),
        s_(2.0 - h_integral_inverse(h_integral(2.5) - h(2.0))) {}

  std::int64_t sample(Rng& rng) const {
    for (;;) {
      double u = h_integral_n_ + rng.uniform() * (h_integral_x1_ - h_integral_n_);
      double x = h_integral_inverse(u);
      double k = std::clamp(std::floor(x + 0.5), 1.0, n_);
      if (k - x <= s_ || u >= h_integral(k + 0.5) - h(k)) return static_cast<std::int64_t>(k);
    }
  }

 private:
  // h(x) = x^-exponent, the unnormalised density; H its integral, with H(1) = 0.
  double h(double x) const { return std::exp(-exponent_ * std::log(x)); }
  double h_integral(double x) const {
    double log_x = std::log(x);
    return expm1_over_x((1.0 - exponent_) * log_x) * log_x;
  }
  double h_integral_inverse(double x) const {
    double t = std::max(x * (1.0 - exponent_), -1.0);
    return std::exp(log1p_over_x(t) * x);
  }
  // log1p(x)/x and expm1(x)/x, with their series near 0 (exponent == 1).
  static double log1p_over_x(double x) {
    return std::abs(x) > 1e-8 ? std::log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
  }
  static double expm1_over_x(double x) {
    return std::abs(x) > 1e-8 ? std::expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
  }

  double exponent_, n_, h_integral_x1_, h_integral_n_, s_;
};

// murmur3's 32-bit finaliser, a bijection: with a per-column key it turns value
// ranks into distinct, random-looking 8-hex-digit strings.
constexpr std::uint32_t fmix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bU;
  x ^= x >> 13;
  x *= 0xc2b2ae35U;
  return x ^ (x >> 16);
}

struct IntegerColumn {
  double missing_rate, mu, sigma, shift;             // value: floor(exp(mu + sigma z)) + shift
  double weight_log, weight_missing, weight_negative;  // the planted u_j
};

struct CategoricalColumn {
  std::int64_t cardinality;
  double missing_rate;
  std::uint32_t render_key;
};

double softplus(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

class World {
 public:
  explicit World(const CriteoGeneratorOptions& options) : seed_(options.seed), weight_scale_(options.categorical_weight_scale) {
    for (int j = 0; j < kCriteoIntegerColumns; ++j) {
      auto param = [&](std::uint64_t k) { return key_of(seed_, kIntegerParameters, 16 * static_cast<std::uint64_t>(j) + k); };
      IntegerColumn& col = integers_[static_cast<std::size_t>(j)];
      col.missing_rate = 0.2 + 0.2 * uniform_from_key(param(0));
      col.mu = 3.0 * uniform_from_key(param(1));
      col.sigma = 0.5 + 1.5 * uniform_from_key(param(2));
      col.shift = j == 1 ? -1.0 : 0.0;
      col.weight_log = 0.15 * normal_from_key(param(3));
      col.weight_missing = 0.3 * normal_from_key(param(4));
      col.weight_negative = 0.3 * normal_from_key(param(5));
    }
    const double log_ratio = std::log(static_cast<double>(options.max_cardinality) / 4.0);
    for (int c = 0; c < kCriteoCategoricalColumns; ++c) {
      auto param = [&](std::uint64_t k) { return key_of(seed_, kCategoricalParameters, 16 * static_cast<std::uint64_t>(c) + k); };
      CategoricalColumn& col = categoricals_[static_cast<std::size_t>(c)];
      col.cardinality = std::llround(4.0 * std::exp(log_ratio * c / (kCriteoCategoricalColumns - 1)));
      // The real log's C19..C26 are the columns with many empty fields.
      col.missing_rate = c >= 18 ? 0.1 + 0.5 * uniform_from_key(param(0)) : 0.0;
      col.render_key = static_cast<std::uint32_t>(param(1));
      zipf_.emplace_back(col.cardinality, options.zipf_exponent);
    }
  }

  void set_bias(double bias) { bias_ = bias; }
  double bias() const { return bias_; }

  // Draws one row's fields from `rng`, appends their text (from the tab after the
  // label) when `text` is given, and returns the logit without the bias. The
  // caller draws the label from `rng` next.
  double draw(Rng& rng, std::string* text) const {
    char number[24];
    double logit = 0;
    for (const IntegerColumn& col : integers_) {
      if (text) *text += '\t';
      double missing_draw = rng.uniform();
      double z = rng.normal();
      if (missing_draw < col.missing_rate) {
        logit += col.weight_missing;
        continue;
      }
      // exp(40) is past any count of interest and keeps the value in an int64.
      auto x = static_cast<std::int64_t>(std::floor(std::exp(std::min(col.mu + col.sigma * z, 40.0))) + col.shift);
      if (x > 0)
        logit += col.weight_log * std::log1p(static_cast<double>(x));
      else if (x < 0)
        logit += col.weight_negative;
      if (text) text->append(number, std::to_chars(number, number + sizeof number, x).ptr);
    }
    for (int c = 0; c < kCriteoCategoricalColumns; ++c) {
      const CategoricalColumn& col = categoricals_[static_cast<std::size_t>(c)];
      if (text) *text += '\t';
      double missing_draw = rng.uniform();
      std::int64_t rank = zipf_[static_cast<std::size_t>(c)].sample(rng);
      if (missing_draw < col.missing_rate) continue;  // weight 0: the reader adds no feature
      logit += categorical_weight(c, rank);
      if (text) append_hex8(*text, fmix32(fmix32(static_cast<std::uint32_t>(rank - 1) ^ col.render_key) ^ 0x9e3779b9U));
    }
    return logit;
  }

  // w_c(rank), a pure function of (seed, column, rank): no table for millions of values.
  double categorical_weight(int column, std::int64_t rank) const {
    return weight_scale_ *
           normal_from_key(key_of(seed_, kCategoricalWeights + (static_cast<std::uint64_t>(column) << 32),
                                  static_cast<std::uint64_t>(rank)));
  }

 private:
  static void append_hex8(std::string& text, std::uint32_t v) {
    static constexpr char kDigits[] = "0123456789abcdef";
    char hex[8];
    for (int i = 7; i >= 0; --i, v >>= 4) hex[i] = kDigits[v & 15];
    text.append(hex, 8);
  }

  std::uint64_t seed_;
  double weight_scale_;
  double bias_ = 0;
  std::array<IntegerColumn, kCriteoIntegerColumns> integers_{};
  std::array<CategoricalColumn, kCriteoCategoricalColumns> categoricals_{};
  std::vector<ZipfSampler> zipf_;
};

// The bias that makes the mean click probability `target` over a calibration
// sample of rows (its own stream, so it does not depend on rows or first_row).
double calibrate_bias(const World& world, std::uint64_t seed, double target, int threads) {
  constexpr std::int64_t kSample = 1 << 16;
  std::vector<double> logits(kSample);
  SNAPML_OMP(parallel for schedule(static) num_threads(threads))
  for (std::int64_t i = 0; i < kSample; ++i) {
    Rng rng(key_of(seed, kCalibrationStream, static_cast<std::uint64_t>(i)));
    logits[static_cast<std::size_t>(i)] = world.draw(rng, nullptr);
  }
  // The mean probability increases with the bias: bisect.
  double low = -40, high = 40;
  for (int iteration = 0; iteration < 60; ++iteration) {
    double bias = 0.5 * (low + high), sum = 0;
    for (double l : logits) sum += sigmoid(l + bias);
    (sum / kSample < target ? low : high) = bias;
  }
  return 0.5 * (low + high);
}

struct BlockStats {
  std::int64_t rows = 0, clicks = 0;
  double probability = 0, logloss = 0, entropy = 0, variance = 0;

  void add(const BlockStats& other) {
    rows += other.rows;
    clicks += other.clicks;
    probability += other.probability;
    logloss += other.logloss;
    entropy += other.entropy;
    variance += other.variance;
  }
};

// Rows [first, last) of the row stream into `text`.
void generate_block(const World& world, std::uint64_t seed, std::int64_t first, std::int64_t last, std::string& text,
                    BlockStats& stats) {
  for (std::int64_t row = first; row < last; ++row) {
    Rng rng(key_of(seed, kRowStream, static_cast<std::uint64_t>(row)));
    const std::size_t label_at = text.size();
    text += '0';
    const double logit = world.bias() + world.draw(rng, &text);
    text += '\n';
    const double p = sigmoid(logit);
    const bool click = rng.uniform() < p;
    if (click) text[label_at] = '1';
    // -log p = softplus(-logit), -log(1 - p) = softplus(logit): stable for any logit.
    const double loss_click = softplus(-logit), loss_no_click = softplus(logit);
    stats.rows += 1;
    stats.clicks += click;
    stats.probability += p;
    stats.logloss += click ? loss_click : loss_no_click;
    stats.entropy += p * loss_click + (1 - p) * loss_no_click;
    stats.variance += p * (1 - p) * logit * logit;  // Var of the row's loss: log((1-p)/p) = -logit
  }
}

void validate(const CriteoGeneratorOptions& o) {
  require(o.rows >= 0, "CriteoGeneratorOptions.rows must be >= 0, got " + std::to_string(o.rows));
  require(o.first_row >= 0, "CriteoGeneratorOptions.first_row must be >= 0, got " + std::to_string(o.first_row));
  // Row numbers are signed 64-bit and the end of the range, first_row + rows, must be one.
  constexpr std::int64_t kMaxRow = std::numeric_limits<std::int64_t>::max();
  require(o.rows <= kMaxRow - o.first_row, [&] {
    return "CriteoGeneratorOptions.first_row + rows must be at most 2^63 - 1 = " + std::to_string(kMaxRow) +
           ", got first_row " + std::to_string(o.first_row) + " and rows " + std::to_string(o.rows) +
           ": use a first row of at most " + std::to_string(kMaxRow - o.rows);
  });
  require(o.click_rate > 0 && o.click_rate < 1,
          "CriteoGeneratorOptions.click_rate must be in (0, 1), got " + std::to_string(o.click_rate));
  require(o.zipf_exponent > 0,
          "CriteoGeneratorOptions.zipf_exponent must be positive, got " + std::to_string(o.zipf_exponent));
  require(o.max_cardinality >= 4 && o.max_cardinality <= (std::int64_t{1} << 32),
          "CriteoGeneratorOptions.max_cardinality must be in 4..2^32 (values are 8 hex digits), got " +
              std::to_string(o.max_cardinality));
  require(o.categorical_weight_scale >= 0, "CriteoGeneratorOptions.categorical_weight_scale must be >= 0, got " +
                                               std::to_string(o.categorical_weight_scale));
  require(o.threads >= 0, "CriteoGeneratorOptions.threads must be 0 (all) or positive, got " +
                              std::to_string(o.threads));
}

}  // namespace

CriteoGeneratorStats generate_criteo(const CriteoGeneratorOptions& options,
                                     const std::function<void(const char*, std::size_t)>& sink) {
  validate(options);
  const int threads = detail::resolve_threads(options.threads);
  World world(options);
  world.set_bias(calibrate_bias(world, options.seed, options.click_rate, threads));

  // Blocks of a few MiB of text; a batch of two per thread keeps the threads busy
  // while bounding the memory to the batch.
  constexpr std::int64_t kBlockRows = 8192;
  // Written so that no intermediate exceeds rows (which may be near 2^63 - 1).
  const std::int64_t n_blocks = options.rows / kBlockRows + (options.rows % kBlockRows != 0);
  const std::int64_t batch = 2 * threads;
  std::vector<std::string> texts(static_cast<std::size_t>(batch));
  std::vector<BlockStats> block_stats(static_cast<std::size_t>(batch));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(batch));
  BlockStats total;
  for (std::int64_t batch_first = 0; batch_first < n_blocks; batch_first += batch) {
    const std::int64_t count = std::min(batch, n_blocks - batch_first);
    SNAPML_OMP(parallel for schedule(dynamic, 1) num_threads(threads))
    for (std::int64_t b = 0; b < count; ++b) {
      auto i = static_cast<std::size_t>(b);
      texts[i].clear();
      block_stats[i] = {};
      const std::int64_t first = (batch_first + b) * kBlockRows;
      try {
        generate_block(world, options.seed, options.first_row + first,
                       options.first_row + first + std::min(options.rows - first, kBlockRows), texts[i], block_stats[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
    // In block order: the output and the floating-point sums do not depend on threads.
    for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
      if (errors[i]) std::rethrow_exception(errors[i]);
      sink(texts[i].data(), texts[i].size());
      total.add(block_stats[i]);
    }
  }

  CriteoGeneratorStats stats;
  stats.rows = total.rows;
  stats.clicks = total.clicks;
  stats.bias = world.bias();
  if (total.rows > 0) {
    const auto n = static_cast<double>(total.rows);
    stats.mean_probability = total.probability / n;
    stats.logloss = total.logloss / n;
    stats.bayes_logloss = total.entropy / n;
    stats.logloss_standard_error = std::sqrt(total.variance) / n;
  }
  return stats;
}

CriteoGeneratorStats generate_criteo(const CriteoGeneratorOptions& options, std::FILE* out) {
  require(out != nullptr, "generate_criteo: the output stream is null");
  return generate_criteo(options, [out](const char* data, std::size_t size) {
    if (std::fwrite(data, 1, size, out) != size) throw IoError("cannot write the generated rows: " + errno_message());
  });
}

CriteoGeneratorStats generate_criteo_file(const CriteoGeneratorOptions& options, const std::string& path) {
  AtomicFile file(path);
  CriteoGeneratorStats stats = generate_criteo(options, [&file](const char* data, std::size_t size) {
    file.write(data, size);
  });
  file.commit();
  return stats;
}

}  // namespace snapml::datasets
