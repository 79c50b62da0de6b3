// One rank hits a fault and aborts; the others wait in a collective. Every rank
// must end (the test that runs this checks the exit status, message and time).
#include <cstdint>

#include "snapml/mpi/mpi_communicator.h"

int main(int argc, char** argv) {
  snapml::mpi::MpiSession session(&argc, &argv);
  snapml::mpi::MpiCommunicator comm;
  if (comm.rank() == comm.size() - 1) comm.abort("bad input on the last rank");
  std::int64_t value = 1;
  comm.allreduce_sum(&value, 1);  // would hang forever without the abort
  return 0;
}
