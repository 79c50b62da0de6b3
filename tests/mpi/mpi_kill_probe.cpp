// A rank that dies in the middle of distributed training (SIGKILL: no handler,
// no MPI_Abort, no message of its own). Every rank reads its share of the svmlight
// file in argv[1] and trains logistic regression with the MPI communicator; the
// rank named by SNAPML_PROBE_KILL_RANK kills itself after SNAPML_PROBE_KILL_EPOCH
// epochs, while the others go on into the next round's allreduce. The test that
// runs this (test_mpi_train.py killed_rank) checks that mpirun then ends every
// rank with a non-zero status, promptly, and says which rank died.
//
// The probe kills itself rather than being killed from outside because only the
// rank knows when it is inside the round loop: an outside `kill -9` of one of
// mpirun's children would race with reading the file and with startup.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "snapml/chunk_source.h"
#include "snapml/datasets/partition.h"
#include "snapml/mpi/mpi_communicator.h"
#include "snapml/train.h"

int main(int argc, char** argv) {
  snapml::mpi::MpiSession session(&argc, &argv);
  snapml::mpi::MpiCommunicator world;
  if (argc != 2) world.abort("usage: mpi_kill_probe FILE.svm");
  const char* kill_rank = std::getenv("SNAPML_PROBE_KILL_RANK");
  const char* kill_epoch = std::getenv("SNAPML_PROBE_KILL_EPOCH");
  const int victim = kill_rank ? std::atoi(kill_rank) : -1;
  const int epoch = kill_epoch ? std::atoi(kill_epoch) : 3;
  try {
    snapml::datasets::SvmlightOptions options;
    options.threads = 1;
    const snapml::Dataset share = snapml::datasets::read_svmlight_partition(argv[1], world, options);
    snapml::InMemorySource source(share);
    snapml::TrainParameters p;
    p.loss = snapml::LossKind::Logistic;
    p.tol = 1e-9;
    p.max_iter = 100000;
    p.threads = 1;
    p.on_epoch = [&](int, const snapml::EpochRecord& record) {
      if (world.rank() == victim && record.epoch >= epoch) {
        std::printf("rank %d: killing itself at its certificate after epoch %d\n", world.rank(), record.epoch);
        std::fflush(stdout);
        std::raise(SIGKILL);
      }
    };
    snapml::train(source, world, p);
  } catch (const std::exception& e) {
    world.abort(e.what());
  }
  if (world.is_root()) std::printf("training ended without the kill\n");
  return 0;
}
