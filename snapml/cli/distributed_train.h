// snap-train under mpirun: every process is one CoCoA+ rank (docs/distributed.md).
//
// Compiled only in a build with MPI (SNAPML_WITH_MPI); snap_train.cpp calls it
// when the process was started by an MPI launcher.
#pragma once

#include "train_options.h"

namespace snapml::cli {

// True when the process was started by mpirun (or another MPI launcher).
bool launched_as_mpi_rank();

// Trains as one rank of MPI_COMM_WORLD: reads this rank's share of the training
// file (datasets/partition.h), trains with the MPI communicator, and on rank 0
// alone writes the model and the history and prints the report and the test
// metrics; the other ranks print nothing. Returns kExitOk on every rank. Any
// error on any rank prints "snap-train: rank R: message" and ends every rank at
// once (MPI_Abort) with the error's exit code (cli_common.h), so no rank is left
// waiting in a collective.
int train_as_mpi_rank(TrainOptions& options, int* argc, char*** argv);

}  // namespace snapml::cli
