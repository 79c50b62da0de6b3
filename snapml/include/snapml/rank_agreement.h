// Before a distributed fit (more than one rank): the ranks must train the same
// problem on different rows, or the job is wrong without a sign of it. Two ways
// that happened (docs/distributed.md, "Nothing silent"):
//  - an MPMD launch, or a script reading its options per rank, with different
//    parameters: the ranks ran one CoCoA+ fit and rank 0 reported its own C, or
//    ran different numbers of rounds and the job hung in a collective;
//  - an unmodified script in which every rank loads all the data: K copies of the
//    rows train as one fit at C*K.
// Both are checked here, collectively, so that every rank throws the same
// InvalidArgument naming the difference.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/train.h"

namespace snapml {

// The parameters that define the fit, as (name, value) pairs; resources a rank
// may choose for itself (threads, memory budgets, devices) are left out, and so
// is the seed: it orders a rank's own coordinates only, and the ranks reach the
// same optimum whatever their seeds (scikit-learn's random_state=None draws one
// per process).
std::vector<std::pair<std::string, std::string>> fit_defining_parameters(const TrainParameters& p);

// Throws InvalidArgument on every rank when the ranks' fit-defining parameters
// differ (each difference named, with the ranks' values) or when two ranks hold
// the same non-empty rows (a checksum of a resident source's rows; a streamed
// source is not read for it). A no-op in one process.
void check_ranks_agree(ChunkSource& source, Communicator& communicator, const TrainParameters& p);

}  // namespace snapml
