#include "snapml/mpi/mpi_communicator.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "snapml/error.h"

namespace snapml::mpi {

namespace {

void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

// MPI counts are int: large buffers go in pieces of at most 2^30 elements.
constexpr std::size_t kMaxPiece = std::size_t{1} << 30;

template <typename T>
void allreduce_in_pieces(T* data, std::size_t count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  for (std::size_t done = 0; done < count; done += kMaxPiece) {
    int piece = static_cast<int>(std::min(kMaxPiece, count - done));
    check(MPI_Allreduce(MPI_IN_PLACE, data + done, piece, type, op, comm), "MPI_Allreduce");
  }
}

}  // namespace

bool launched_by_mpi() {
  // OpenMPI, MPICH/Hydra and Slurm set one of these in every rank's environment.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_NTASKS"})
    if (std::getenv(name)) return true;
  return false;
}

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (initialised) return;
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  owns_ = true;
}

MpiSession::~MpiSession() {
  if (!owns_) return;
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (!finalised) MPI_Finalize();
}

MpiCommunicator::MpiCommunicator(MPI_Comm comm) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) throw InvalidArgument("MpiCommunicator needs MPI to be initialised (create an MpiSession first)");
  check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  // Errors come back as codes (turned into exceptions) instead of aborting inside MPI.
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
}

MpiCommunicator::~MpiCommunicator() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (!finalised) MPI_Comm_free(&comm_);
}

void MpiCommunicator::allreduce_sum(double* data, std::size_t count) {
  allreduce_in_pieces(data, count, MPI_DOUBLE, MPI_SUM, comm_);
}

void MpiCommunicator::allreduce_sum(std::int64_t* data, std::size_t count) {
  allreduce_in_pieces(data, count, MPI_INT64_T, MPI_SUM, comm_);
}

void MpiCommunicator::allreduce_max(std::int64_t* data, std::size_t count) {
  allreduce_in_pieces(data, count, MPI_INT64_T, MPI_MAX, comm_);
}

void MpiCommunicator::broadcast(void* data, std::size_t bytes, int root) {
  auto* bytes_ptr = static_cast<char*>(data);
  for (std::size_t done = 0; done < bytes; done += kMaxPiece) {
    int piece = static_cast<int>(std::min(kMaxPiece, bytes - done));
    check(MPI_Bcast(bytes_ptr + done, piece, MPI_BYTE, root, comm_), "MPI_Bcast");
  }
}

void MpiCommunicator::barrier() { check(MPI_Barrier(comm_), "MPI_Barrier"); }

void MpiCommunicator::abort(const std::string& message) {
  std::fprintf(stderr, "rank %d: %s\n", rank_, message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::abort();  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

}  // namespace snapml::mpi
