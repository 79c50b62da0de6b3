// libFuzzer harness for the checkpoint reader (TrainCheckpoint::load, what a
// resumed snap-train or fit(checkpoint=...) reads). Each input is read as it is
// and again with its trailing checksum rewritten to match, so that mutations
// reach the structure behind the checksum: counts, statuses, state sizes.
// Properties: every failure is a snapml::Error; an accepted checkpoint's states
// are finite and sized by the fingerprint's features and rows, its epoch counts
// non-negative, and a finished problem holds weights.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "checkpoint_probe.h"
#include "fuzz_check.h"
#include "fuzz_input.h"
#include "snapml/error.h"
#include "snapml/impl/rank_agreement.h"

namespace {

using snapml::ProblemCheckpoint;

void read_and_check(const std::uint8_t* data, std::size_t size) {
  const std::string& path = snapml::fuzz::write_input(data, size);
  snapml::TrainCheckpoint checkpoint(path, 60.0, snapml::fuzz::checkpoint_fingerprint_for_fuzzing(),
                                     snapml::fuzz::kCheckpointProblems);
  try {
    if (!checkpoint.load()) return;
  } catch (const snapml::Error&) {
    return;
  }
  for (std::size_t k = 0; k < snapml::fuzz::kCheckpointProblems; ++k) {
    const ProblemCheckpoint& problem = checkpoint.problem(k);
    snapml::fuzz::check(problem.epochs >= 0, "a negative epoch count was accepted");
    for (const std::vector<double>* values : {&problem.state.weights, &problem.state.alpha})
      for (double v : *values) snapml::fuzz::check(std::isfinite(v), "a non-finite state was accepted");
    const std::size_t width = snapml::fuzz::kCheckpointFeatures + 1;
    snapml::fuzz::check(problem.state.weights.size() % width == 0, "weights of another width were accepted");
    snapml::fuzz::check(problem.state.alpha.size() % snapml::fuzz::kCheckpointRows == 0,
                        "dual variables of another row count were accepted");
    if (problem.status == ProblemCheckpoint::Status::Done)
      snapml::fuzz::check(!problem.state.weights.empty() && problem.state.alpha.empty(),
                          "a finished problem without weights was accepted");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  read_and_check(data, size);
  if (size < 8) return 0;
  std::vector<std::uint8_t> fixed(data, data + size);
  snapml::Checksum64 sum;
  sum.add(fixed.data(), size - 8);
  const std::uint64_t value = sum.value();
  std::memcpy(fixed.data() + size - 8, &value, 8);
  read_and_check(fixed.data(), fixed.size());
  return 0;
}
