// What a checkpoint must match to be resumed (checkpoint.h): this run's data and
// fit-defining parameters. Apart from the file's reader and writer
// (checkpoint.cpp), which the checkpoint fuzzer builds without the solvers.
#include <set>
#include <string>
#include <utility>

#include "snapml/checkpoint.h"
#include "snapml/impl/rank_agreement.h"
#include "snapml/train.h"

namespace snapml {
namespace {

std::string hex(std::uint64_t value) {
  static const char digits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4) text[static_cast<std::size_t>(i)] = digits[value & 15];
  return text;
}

}  // namespace

Fingerprint checkpoint_fingerprint(ChunkSource& source, Communicator& communicator, const TrainParameters& p,
                                   std::size_t problems) {
  Fingerprint fingerprint{
      {"rows", std::to_string(source.n_rows())},
      {"features", std::to_string(source.n_features())},
      {"rows checksum", hex(rows_checksum(source))},
      {"ranks", std::to_string(communicator.size())},
      {"problems", std::to_string(problems)},
  };
  // These change the route to the optimum, not the optimum.
  static const std::set<std::string> route{"max_iter", "local_epochs", "adaptive_sigma", "shrinking", "use_gpu",
                                         "certify_every_epoch"};
  for (auto& pair : fit_defining_parameters(p))
    if (route.count(pair.first) == 0) fingerprint.push_back(std::move(pair));
  return fingerprint;
}

}  // namespace snapml
