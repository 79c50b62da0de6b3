// Where an upload's time went: the GPU Newton solver's FitTimings carry it to the
// benchmark (bench/gpu_tron_bench.cpp prints the split).
#pragma once

#include <cstdint>

namespace snapml::cuda::primal {

// Where the time of the copies went, summed over runs (the benchmark's upload split).
struct StagingTimings {
  double wall = 0.0;       // the runs, start to end (every copy queued)
  double rings = 0.0;      // pinned rings made or grown (0 when the session had them)
  double pack = 0.0;       // the threads' packing, summed over threads
  double slot_wait = 0.0;  // the threads' waits for a slot, summed over threads
  double queue = 0.0;      // queueing the copies (and the groups' work), summed over threads
  std::int64_t bytes = 0;
  std::int64_t copies = 0;
  int threads = 0;  // of the last run
};

// Where an upload's time went (gpu_tron_bench prints it).
struct UploadTimings {
  double lengths = 0.0;     // pass 1: the row lengths read, the tiles cut, the budget checked
  double resources = 0.0;   // the master's streams and result slots
  double allocate = 0.0;    // device memory: tiles, per-row and weight-sized vectors, the sort's scratch
  StagingTimings copies;    // pass 2: offsets and entries packed and queued (the tiles' transpositions queued)
  double transposes = 0.0;  // after the last copy was queued, until every transposition was done
  double release = 0.0;     // the sort's scratch freed
  double plans = 0.0;       // the long columns' plans (transposed offsets to the host, planned, back)
  int threads = 0;          // host threads packing
};

}  // namespace snapml::cuda::primal
