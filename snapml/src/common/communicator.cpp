#include "snapml/communicator.h"

#include "snapml/error.h"

namespace snapml {

// With no peers to stop, aborting is throwing: the caller's handler reports it.
void LocalCommunicator::abort(const std::string& message) { throw Error(message); }

}  // namespace snapml
