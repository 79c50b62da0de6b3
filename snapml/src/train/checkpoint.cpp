#include "snapml/checkpoint.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "snapml/atomic_file.h"
#include "snapml/error.h"
#include "snapml/impl/rank_agreement.h"
#include "snapml/train.h"

namespace snapml {
namespace {

constexpr char kMagic[8] = {'S', 'N', 'A', 'P', 'M', 'L', 'C', 'K'};
// 2: the rows' checksum sums row by row (rank_agreement.h), the same for any
// chunking; a version 1 file's checksum would read as other data.
constexpr std::uint32_t kVersion = 2;

template <typename T>
void put(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void put_doubles(std::string& out, const std::vector<double>& values) {
  put(out, static_cast<std::uint64_t>(values.size()));
  if (!values.empty()) out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
}

void put_text(std::string& out, const std::string& text) {
  put(out, static_cast<std::uint64_t>(text.size()));
  out += text;
}

std::uint64_t checksum(const char* data, std::size_t bytes) {
  Checksum64 sum;
  sum.add(data, bytes);
  return sum.value();
}

// Reads the payload; every shortfall is the file's fault (it passed the checksum,
// so only a writer of another version could cause one).
class Reader {
 public:
  Reader(const std::string& path, const std::string& bytes, std::size_t end) : path_(path), bytes_(bytes), end_(end) {}
  template <typename T>
  T get() {
    T value;
    std::memcpy(&value, take(sizeof value), sizeof value);
    return value;
  }
  std::vector<double> doubles() {
    const auto count = get<std::uint64_t>();
    need(count, sizeof(double));
    std::vector<double> values(count);
    const char* bytes = take(count * sizeof(double));
    // memcpy's pointers must not be null even for 0 bytes, and an empty vector's data() may be.
    if (count > 0) std::memcpy(values.data(), bytes, count * sizeof(double));
    return values;
  }
  std::string text() {
    const auto length = get<std::uint64_t>();
    need(length, 1);
    return std::string(take(length), length);
  }
  bool done() const { return at_ == end_; }

 private:
  void need(std::uint64_t count, std::size_t size) {
    if (count > (end_ - at_) / size) fail();
  }
  const char* take(std::size_t size) {
    if (size > end_ - at_) fail();
    const char* p = bytes_.data() + at_;
    at_ += size;
    return p;
  }
  [[noreturn]] void fail() const {
    throw InputError(path_, 0, 0, "checkpoint ends before its last problem's state (a damaged file)");
  }
  const std::string& path_;
  const std::string& bytes_;
  std::size_t at_ = sizeof kMagic + sizeof kVersion;
  std::size_t end_;
};

Fingerprint decoded_fingerprint(const std::string& text) {
  Fingerprint pairs;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t name_end = text.find('\n', at);
    const std::size_t value_end = name_end == std::string::npos ? name_end : text.find('\n', name_end + 1);
    if (value_end == std::string::npos) break;
    pairs.emplace_back(text.substr(at, name_end - at), text.substr(name_end + 1, value_end - name_end - 1));
    at = value_end + 1;
  }
  return pairs;
}

}  // namespace

std::string checkpoint_path(const std::string& path, int rank, int ranks) {
  if (ranks <= 1) return path;
  return path + ".rank-" + std::to_string(rank) + "-of-" + std::to_string(ranks);
}

TrainCheckpoint::TrainCheckpoint(std::string path, double interval_seconds, Fingerprint fingerprint,
                                 std::size_t problems)
    : path_(std::move(path)),
      interval_(interval_seconds),
      fingerprint_(std::move(fingerprint)),
      problems_(problems),
      last_save_(std::chrono::steady_clock::now()) {}

bool TrainCheckpoint::load() {
  std::error_code error;
  if (!std::filesystem::exists(path_, error)) return false;
  std::ifstream in(path_, std::ios::binary);
  if (!in) throw IoError("cannot read the checkpoint " + path_);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw IoError("cannot read the checkpoint " + path_);
  auto corrupt = [&](const std::string& problem) {
    return InputError(path_, 0, 0, problem + "; remove it to start the fit afresh");
  };
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw corrupt("not a snapml checkpoint (no SNAPMLCK magic)");
  const std::size_t header = sizeof kMagic + sizeof kVersion;
  if (bytes.size() < header + sizeof(std::uint64_t))
    throw corrupt("checkpoint truncated to " + std::to_string(bytes.size()) + " bytes");
  std::uint32_t version;
  std::memcpy(&version, bytes.data() + sizeof kMagic, sizeof version);
  if (version != kVersion)
    throw corrupt("checkpoint format version " + std::to_string(version) + ", this build reads version " +
                  std::to_string(kVersion));
  const std::size_t end = bytes.size() - sizeof(std::uint64_t);
  std::uint64_t stored;
  std::memcpy(&stored, bytes.data() + end, sizeof stored);
  if (stored != checksum(bytes.data(), end))
    throw corrupt("checkpoint checksum mismatch (the file is truncated or damaged)");

  Reader reader(path_, bytes, end);
  const Fingerprint theirs = decoded_fingerprint(reader.text());
  std::string differences;
  for (const auto& mine : fingerprint_) {
    // (A structured binding cannot be captured in C++17: clang, which builds the
    // fuzzers, refuses it.)
    const auto found =
        std::find_if(theirs.begin(), theirs.end(), [&](const auto& pair) { return pair.first == mine.first; });
    const std::string saved = found == theirs.end() ? "nothing" : found->second;
    if (saved != mine.second)
      differences += "; " + mine.first + ": the checkpoint has " + saved + ", this run has " + mine.second;
  }
  if (!differences.empty())
    throw InvalidArgument("the checkpoint " + path_ +
                          " was written by a fit of other data or options (resume with the same data and options, "
                          "or remove it to start afresh)" + differences);
  const auto count = reader.get<std::uint64_t>();
  if (count != problems_.size()) throw corrupt("checkpoint holds " + std::to_string(count) + " problems");
  // The states' sizes follow from this run's rows and features (equal to the
  // file's: the fingerprints matched): a weight row is features + 1 wide, the
  // dual variables one per row (K per row for the multinomial loss).
  auto number_of = [&](const char* name) -> std::uint64_t {
    for (const auto& [key, value] : fingerprint_)
      if (key == name) return std::strtoull(value.c_str(), nullptr, 10);
    return 0;
  };
  const std::uint64_t width = number_of("features") + 1, rows = number_of("rows");
  for (ProblemCheckpoint& problem : problems_) {
    const auto status = reader.get<std::uint8_t>();
    if (status > static_cast<std::uint8_t>(ProblemCheckpoint::Status::Done))
      throw corrupt("checkpoint has an unknown problem status " + std::to_string(status));
    problem.status = static_cast<ProblemCheckpoint::Status>(status);
    problem.converged = reader.get<std::uint8_t>() != 0;
    problem.epochs = reader.get<std::int32_t>();
    problem.state.weights = reader.doubles();
    problem.state.alpha = reader.doubles();
    problem.last.epoch = problem.epochs;
    problem.last.primal = reader.get<double>();
    problem.last.dual = reader.get<double>();
    problem.last.gap = reader.get<double>();
    problem.last.gradient_norm = reader.get<double>();
    if (problem.epochs < 0) throw corrupt("checkpoint has a negative epoch count");
    // A file that passed the checksum was written so (by another version, or a
    // bug): its states start a fit, so they are checked as any input is.
    for (const std::vector<double>* values : {&problem.state.weights, &problem.state.alpha})
      if (!std::all_of(values->begin(), values->end(), [](double v) { return std::isfinite(v); }))
        throw corrupt("checkpoint has a state that is not a finite number");
    if (problem.state.weights.size() % width != 0 || (rows > 0 && problem.state.alpha.size() % rows != 0))
      throw corrupt("checkpoint has a state sized for other data");
    if (problem.status == ProblemCheckpoint::Status::Done &&
        (problem.state.weights.empty() || !problem.state.alpha.empty()))
      throw corrupt("checkpoint has a finished problem without its weights");
  }
  if (!reader.done()) throw corrupt("checkpoint has bytes after its last problem");
  return true;
}

bool checkpoint_save_due(double since, double interval, double last_cost) {
  return since >= interval && since >= 9.0 * last_cost;
}

bool TrainCheckpoint::due() const {
  const std::chrono::duration<double> since = std::chrono::steady_clock::now() - last_save_;
  return checkpoint_save_due(since.count(), interval_.count(), last_cost_);
}

void TrainCheckpoint::progress(std::size_t k, int epochs, const std::function<SolverState()>& snapshot) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!due()) return;
  ProblemCheckpoint& problem = problems_[k];
  problem.status = ProblemCheckpoint::Status::Running;
  problem.epochs = epochs;
  problem.state = snapshot();
  save();
}

void TrainCheckpoint::finished(std::size_t k, const FitResult& fit, const std::vector<double>& weights) {
  std::lock_guard<std::mutex> lock(mutex_);
  ProblemCheckpoint& problem = problems_[k];
  problem.status = ProblemCheckpoint::Status::Done;
  problem.converged = fit.converged;
  problem.epochs = fit.epochs;
  problem.state.weights = weights;
  std::vector<double>().swap(problem.state.alpha);
  if (!fit.history.empty()) problem.last = fit.history.back();
  if (due()) save();
}

std::string TrainCheckpoint::encoded() const {
  std::string out(kMagic, sizeof kMagic);
  put(out, kVersion);
  std::string fingerprint;
  for (const auto& [name, value] : fingerprint_) fingerprint += name + '\n' + value + '\n';
  put_text(out, fingerprint);
  put(out, static_cast<std::uint64_t>(problems_.size()));
  for (const ProblemCheckpoint& problem : problems_) {
    put(out, static_cast<std::uint8_t>(problem.status));
    put(out, static_cast<std::uint8_t>(problem.converged ? 1 : 0));
    put(out, static_cast<std::int32_t>(problem.epochs));
    put_doubles(out, problem.state.weights);
    put_doubles(out, problem.state.alpha);
    for (double value : {problem.last.primal, problem.last.dual, problem.last.gap, problem.last.gradient_norm})
      put(out, value);
  }
  put(out, checksum(out.data(), out.size()));
  return out;
}

void TrainCheckpoint::save() {
  const auto started = std::chrono::steady_clock::now();
  AtomicFile file(path_);
  file.write(encoded());
  file.commit();
  last_save_ = std::chrono::steady_clock::now();
  last_cost_ = std::chrono::duration<double>(last_save_ - started).count();
}

}  // namespace snapml
