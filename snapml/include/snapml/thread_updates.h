// How the CPU dual solver's threads share the weight vector w (sdca_cpu.cpp;
// docs/algorithms.md, "Threads").
//
// Shared: every thread reads and updates the one w with atomic adds
// (PASSCoDe-Atomic, Hsieh, Yu & Dhillon, ICML 2015), keeping the columns most rows
// touch pending per thread (hot_columns.h); a w of a few hundred weights, whose
// every column is hot, through a copy per thread published every few rows
// (snapml/src/dual/threads/thread_copies.h). An epoch converges like a sequential
// one, but every update of a column that several threads touch moves its cache
// line between the cores: on a click log (dense integer fields, frequent
// categorical values) two threads were no faster than one.
//
// Atomic: the one w with atomic adds and nothing held back: every step's change
// reaches the other threads at once (PASSCoDe-Atomic as published), so T threads
// keep at most about T rows in flight on every column. Shared's pending changes
// hold the hot columns' for 128 / T rows a thread (team_staleness.h), about 120
// rows of staleness on exactly the columns every row shares. T exact steps taken
// together converge when their block's Jacobi factor (the largest eigenvalue of
// D^-1/2 G D^-1/2, G the rows' Gram matrix, D their steps' curvatures) is below 2:
// at the optimum and 16 rows, 0.40 on w8a, 0.82 on news20 binary, 1.13 on a click
// log, 4.20 on a9a; at 64 rows the click log's is 4.0 (bench/dual_parallel_eso.py;
// docs/benchmarks/threads.md, "When the shared w's unshortened steps converge").
// The host model of the GPU epoch with 16 rows in flight kept one thread's epochs
// on the first three (12 against 11 on the click log) and stalled a9a; the CPU's
// Shared at 16 real threads took 72 epochs on a 2M-row click log against one
// thread's 11. What 16 threads' atomic adds on the shared columns' cache lines
// cost an epoch is not measured: Auto never takes Atomic; it is asked for by name.
//
// Replicas: each thread works on its own copy of w, on the rows it claims in this
// round (blocks of a fresh permutation, so the partition changes every epoch),
// with plain loads and stores; after each of the epoch's rounds (two up to two
// threads, replica_rounds_per_epoch past) the copies' changes are added into w by
// the CoCoA+ round (snapml/impl/cocoa_round.h) with the thread as a worker:
// sigma' adapted to the measured overlap of the threads' changes keeps the dual
// non-decreasing and w = w(alpha), so the duality gap still certifies. This is
// SySCD's replication with dynamic re-partitioning (Ioannou, Mendler-Dunner &
// Parnell, NeurIPS 2019, arXiv 1911.07722, sections 3.2-3.3). It costs a copy of
// w per thread, the merges, and epochs where the threads' changes overlap (sigma'
// > 1 shortens every step): past two threads Auto's team is therefore sized by
// that overlap (replica_team below), and the other threads run only the passes
// over all rows.
#pragma once

#include <cstdint>
#include <string>

namespace snapml {

enum class ThreadUpdates { Auto, Shared, Replicas, Atomic };

const char* thread_updates_name(ThreadUpdates updates);
// "auto", "shared", "replicas" or "atomic"; throws InvalidArgument otherwise.
ThreadUpdates thread_updates_from_name(const std::string& name);

// Auto takes replicas where the shared w was measured to lose and the replicas to
// win (docs/benchmarks/threads.md, "Shared or replicas" and "A mid-sized w"; two
// threads, logistic regression), and wherever more than two threads would share
// a skewed w.
//
// Two threads: a replica epoch was faster than a shared one on every set (1.2x to
// 3x), but the fit needed up to 1.5 times the epochs (each step shortened by
// sigma'); the shared w lost wherever its columns are skewed and w is past the
// copies' size: every column in a few per cent of the rows and not among the hot
// ones is written by both threads with atomic adds, its cache line moving between
// the cores (news20 binary, 62k weights, 1,518 columns in 1 % of the rows or
// more: two threads 0.55x one thread shared, 1.32x on replicas; the click log
// hashed to 2^12 to 2^20 columns: shared 0.81-0.93x, replicas 1.16-1.34x). So
// at two threads, all of:
//  - a w the per-thread copies do not serve (ThreadCopies::fits,
//    snapml/src/dual/threads/thread_copies.h: a few hundred weights, every column
//    hot; a9a, w8a, mushrooms were even or better there);
//  - a column besides the intercept in at least 5 % of the rows (HotColumns'
//    share): without such columns two threads rarely write the same line (a
//    uniform 1M x 1M set: shared 1.54x, replicas 1.35x);
//  - an epoch of at least kReplicaNnzPerWeight non-zeros per weight of all copies
//    (threads x (n_features + 1)): the copies and the two merges, sequential
//    passes over them, then cost less than the epoch's random accesses, and the
//    copies' memory is at most a third of the data's 12 bytes a non-zero (a
//    21k-row click log, 2.8 non-zeros per weight of two copies: replicas 1.2x the
//    shared w's speed);
//  - a fit that does not shrink (hinge and squared hinge, whose shrunk epochs
//    visit few rows, gain more from shrinking).
// More than kSharedSkewedMaxThreads threads: replicas for any skewed w whose
// copies the epoch affords (the third rule), shrinking or not. PASSCoDe's steps
// read w up to the other threads' pending rows late, and a column in many rows
// then takes that many stale exact steps at once (the ESO factor 1 + (tau - 1)
// (n_j - 1) / (n - 1) of Richtarik & Takac 2016 that the GPU's hot columns bound,
// docs/gpu.md): on a 16-core machine a9a's shared w (hot columns flushed every 32
// or 8 rows) and its per-thread copies (every 32 rows) kept the relative gap
// near 1 at 4, 8 and 16 threads each on its own core (60 epochs; 1,000 at 16),
// converging at two
// (device run of 2026-11-27, docs/benchmarks/threads.md, "16 cores"). CoCoA+'s
// merge keeps the dual from falling whatever the team (Lemma 3); its sigma'
// follows the measured overlap of the threads' changes, so its epochs grow with
// the team instead (the 2M-row click log: 11 epochs on one thread, 21-26, 35 and
// 55 on 4, 8 and 16 replicas). Where the copies do not fit the epoch, the threads
// share w and the divergence guard halves the team if the gap stalls
// (divergence_guard.h).
inline constexpr int kSharedSkewedMaxThreads = 2;
inline constexpr std::int64_t kReplicaNnzPerWeight = 2;

// Replicas merge twice an epoch (one rank, rows in memory): the epoch's
// permutation is cut in two halves, each a CoCoA+ round. On the click log at two
// threads an epoch's first round measured rho 1.33-1.41 against 1.10-1.16 for the
// later rounds of the same permutation, and the adaptive sigma' (cocoa.h) follows
// the last rho: merged once an epoch, every round is a first round. Two rounds an
// epoch took the relative gap after 8 epochs from 1.2-1.5e-3 to 0.72-0.79e-3 (3
// and 4 rounds: 0.72 and 0.65-0.68e-3, for one and two more merges an epoch; each
// merge a few passes over w and its copies, up to 0.009 s an epoch there:
// docs/benchmarks/criteo.md, "2026-11-24 (third)").
inline constexpr int kReplicaRoundsPerEpoch = 2;

// Past two threads, many merges an epoch: a round of kReplicaRowsPerRound rows a
// worker (two of the blocks the threads claim), or, where more, as many rounds as
// threads while rounds x T x weights stay within the epoch's non-zeros (a narrow
// w: a9a at 16 threads 16 rounds, at 64 threads 56), never fewer than
// kReplicaRoundsPerEpoch. A thread's steps between two merges miss the other
// threads' (CoCoA+'s local subproblem): the more rows a worker steps alone, the
// more the workers' changes align and the smaller each step must be. Epochs to
// 1e-4 at 16 threads time-sliced on 2 cores (-s 7 -B 1; one thread's in
// brackets; docs/benchmarks/threads.md, "Rounds without the copies"): the 2M-row
// click log (2^20 columns, -c 0.1; 11) 55-56 at 4 rounds an epoch, 27 at 64, 18
// at 128, 16 at 256, 15 at 488; a 200k-row click log (2^16 columns; 7) 19-23 at
// 2 rounds, 8-9 at 16 to 48. Those were the epochs of the few threads that held
// a core and claimed most blocks. With each round's rows dealt to 16 workers
// (one process now runs them so: snapml/src/dual/sdca_team_rounds.cpp), 16
// threads on 2 cores take the epochs of 16 workers, and more rounds save few
// of them (docs/benchmarks/threads.md, "Replicas in one region"): the 2M log 70
// epochs at this rule's 244 rounds, 71 at 977, 58 at 3,906; the 200k log 45 at
// 24, 40 at 97, 33 at 390; a9a 124 at 16, 131 at 63. Such
// rounds are affordable only because past two threads the replicas keep their
// changes only and a merge costs the columns the round touched
// (replica_changes.h); full copies cost T x weights a merge. At two threads 2 to
// 16 rounds took the same epochs (9 and 8-11 on two click logs), and the full
// copies' steps are the cheaper (news20 binary: an epoch 3.8 ms on two threads
// against 9.8 ms keeping changes only, whose steps read w and the change).
inline constexpr std::int64_t kReplicaRowsPerRound = 512;
inline constexpr std::int64_t kMostReplicaRounds = std::int64_t{1} << 16;
int replica_rounds_per_epoch(int threads, std::int64_t rows, std::int64_t epoch_nnz, std::int64_t weights);

// Under mpirun (rows in memory, one local epoch a round): a rank's rows are its
// own for the whole fit, and the ranks' changes, made apart, then merge in the
// same fixed blocks round after round. On correlated data that costs rounds, not
// epochs: two ranks on a9a (-s 7 -c 1 -e 1e-4, one thread each) took about 640
// rounds whatever the rows a round, 639 epochs at one round an epoch, 43 at 16,
// 27 at 64 (one process: 18; docs/distributed.md, "Rounds an epoch"). So a rank
// merges every kReplicaRowsPerRound rows a worker (its replicas' rule where that
// asks for more), while each round's dense work on w (the change, its allreduce
// and its application: about kRoundPassesOverWeights passes over the weights
// and a barrier) stays within the epoch's non-zeros on the rank: news20 binary,
// whose epochs its rounds do not bound (rho near 1: the ranks' changes barely
// overlap), gets 2.
// `workers`: this rank's CoCoA+ workers; `replica_rounds`: replica_rounds_per_epoch
// for them, or 1. The ranks take the largest of their answers (SdcaCpuSolver).
inline constexpr std::int64_t kRoundPassesOverWeights = 4;
int distributed_rounds_per_epoch(int workers, int replica_rounds, std::int64_t rows, std::int64_t epoch_nnz,
                                 std::int64_t weights);

// What the rule looks at, from the solver's first pass.
struct ReplicaProblem {
  std::int64_t epoch_nnz = 0;
  std::int64_t n_features = 0;
  bool skewed_columns = false;  // a column besides the intercept in >= 5 % of the rows
  bool shrinks = false;
};

// Whether a dual fit with `threads` threads uses replicas: never with one thread,
// Shared or Atomic; Replicas always otherwise (the fit then does not shrink: a
// CoCoA+ round moves w after the pass whose projected gradients shrinking
// trusts); Auto by the rule above.
bool use_replicas(ThreadUpdates updates, int threads, const ReplicaProblem& problem);

// How many of `threads` threads step as replica workers, past two (Auto only;
// replicas asked for by name are every thread). T workers take about beta(T) =
// 1 + (T - 1) rho times one thread's epochs (rho the rows' overlap,
// snapml/src/dual/threads/row_overlap.h), and an epoch of T workers takes
// (1 + kReplicaWorkerCost (T - 1)) / T of one thread's time, so the fit's time is
// about f(T) = beta(T) (1 + kReplicaWorkerCost (T - 1)) / T of one thread's; the
// team is the T in [kSharedSkewedMaxThreads, threads] where f is least (the
// smaller on a tie). The other threads run the passes over all rows (the
// certificate, the merges). kReplicaWorkerCost fits the 2M-row click log's epochs
// on the lent 16-core machine (0.244, 0.155, 0.112 s at 4, 8, 16 replicas, one
// thread 0.742: 3.0x, 4.8x, 6.6x; the model gives 3.1x, 4.8x, 6.6x), where
// its fits took 5.12, 5.44 and 6.17 s (one thread 8.16 s; device run of
// 2026-11-27, docs/benchmarks/threads.md, "16 cores"): the smallest of those
// teams was the fastest, as f says (rho 0.41: f 0.71, 0.80, 1.07). The team
// for rho 0.41 is 4, a9a's 0.49 3, w8a's 0.26 5, news20 binary's 0.04 16.
inline constexpr double kReplicaWorkerCost = 0.095;
int replica_team(int threads, double overlap);

// The divergence guard's remedy for threads sharing w (RoundBackend::
// reduce_concurrency, snapml/src/dual/divergence_guard.h): their reads are stale
// (PASSCoDe), which may lower the dual; half as many threads (at least one, whose
// exact steps never lower it). Replicas are merged by CoCoA+'s rule, which keeps
// the dual from falling (Lemma 3): nothing of theirs to lower. Returns whether
// `threads` was lowered.
bool reduce_shared_threads(int& threads, bool replicas);

}  // namespace snapml
