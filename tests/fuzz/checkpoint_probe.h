// The checkpoint fuzz harness's run (fuzz_checkpoint.cpp): the fingerprint and
// problem count its seed files were written with (tests/fuzz/corpus/checkpoint/,
// made by make_checkpoint_seeds.cpp), so that mutations reach the problem states
// behind the fingerprint check.
#pragma once

#include <cstddef>

#include "snapml/checkpoint.h"

namespace snapml::fuzz {

inline constexpr std::size_t kCheckpointProblems = 2;
inline constexpr std::size_t kCheckpointRows = 6;
inline constexpr std::size_t kCheckpointFeatures = 3;

inline Fingerprint checkpoint_fingerprint_for_fuzzing() {
  return {{"rows", "6"}, {"features", "3"}, {"rows checksum", "00000000000000a1"}, {"ranks", "1"},
          {"problems", "2"}, {"loss", "logistic"}, {"C", "1"}};
}

}  // namespace snapml::fuzz
