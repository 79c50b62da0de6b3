// How many threads a parallel region of the library starts, whatever it is asked.
//
// Every thread count (TrainParameters::threads, the readers' options, the CLI's
// -n, Python's n_jobs, OMP_NUM_THREADS) passes through clamp_threads before it
// reaches an OpenMP team or a thread pool. A count far above the machine's
// hardware threads never runs faster, and tens of thousands of threads exhaust
// the kernel's thread limit or the address space for their stacks (a crash in
// the parser's region, libgomp's own error), or keep a small machine busy
// switching between them for hours. scikit-learn's estimators likewise run at
// most as many threads as there are cores whatever n_jobs asks; here the limit
// leaves room for oversubscription (a team slightly larger than the cores).
#pragma once

#include <cstdint>

namespace snapml {

// 4 times the hardware threads, and at least 64: the most threads a region uses.
int thread_limit();

// `requested` when it is at most thread_limit(), else thread_limit(); a count
// <= 0 is returned unchanged (its meaning, "all", is the caller's).
int clamp_threads(int requested);

// A fit's thread count when its caller leaves it open (threads = 0 and no
// OMP_NUM_THREADS): one thread for every kEpochNnzPerThread non-zeros an epoch
// visits (the rows of all problems solved), at least 1 and at most `available`
// (the machine's threads). Below that a second thread's share of an epoch is too
// short to pay for its start, the shared vector's cache lines moving between
// cores and the atomic updates (measured on the quiet 2-core machine,
// docs/benchmarks/threads.md: two threads 4 % slower per epoch at 280k
// non-zeros, 21 % faster on a9a's 450k; the crossover near 360k, so a second
// thread from 2 x 180k). A count the caller gives is always obeyed
// (clamp_threads only).
inline constexpr std::int64_t kEpochNnzPerThread = 180000;
int default_threads(std::int64_t epoch_nnz, int available);

// The threads this process may use: the CPUs it is bound to, and never more than
// its share of the machine's hardware threads among the ranks a launcher put on
// this node (OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS, SLURM_NTASKS_PER_NODE;
// OpenMPI binds each of up to two ranks to one core unless told otherwise). What
// snap-train's --threads 0 runs under mpirun and Python's negative n_jobs counts
// from: two ranks each asking for every CPU would run twice the cores.
int threads_per_rank();

// How long an idle OpenMP thread spins before it sleeps: libgomp's GOMP_SPINCOUNT,
// which the command-line tools (snapml/cli/openmp_wait.h: a restart with it set,
// since libgomp reads it before main) and the Python package
// (snap_ml/_openmp_wait.py, around loading _core) set when the user has set
// neither it nor OMP_WAIT_POLICY. libgomp's default spins 300,000
// times at every barrier: a waiting thread keeps its core while the thread it waits
// for may be the one without a core, so on a machine shared with other work a fit
// of many short epochs crawls (mushrooms, 20 epochs on 2 threads with the other
// core busy: 213 ms against 8 ms passive and 6 ms on one thread;
// docs/benchmarks/threads.md, "Waiting threads"). Issue "faster than IBM Snap ML
// on the CPU" asks for no busy-waiting threads.
inline constexpr const char* kOpenMPSpinCount = "1000";

}  // namespace snapml
