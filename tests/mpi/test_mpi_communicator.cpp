// Runs under `mpirun -n K`: every rank runs every test; collectives must agree.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "snapml/mpi/mpi_communicator.h"

namespace snapml::mpi {
namespace {

TEST(MpiCommunicator, RankAndSize) {
  MpiCommunicator comm;
  EXPECT_GE(comm.size(), 1);
  EXPECT_LT(comm.rank(), comm.size());
  EXPECT_EQ(comm.is_root(), comm.rank() == 0);
}

TEST(MpiCommunicator, AllreduceSumOfDoublesAndIntegers) {
  MpiCommunicator comm;
  const int k = comm.size();
  std::vector<double> v = {1.0, static_cast<double>(comm.rank()), 0.5};
  comm.allreduce_sum(v.data(), v.size());
  EXPECT_DOUBLE_EQ(v[0], k);
  EXPECT_DOUBLE_EQ(v[1], k * (k - 1) / 2.0);
  EXPECT_DOUBLE_EQ(v[2], 0.5 * k);
  std::int64_t big[2] = {std::int64_t{1} << 40, comm.rank()};
  comm.allreduce_sum(big, 2);
  EXPECT_EQ(big[0], (std::int64_t{1} << 40) * k);
  EXPECT_EQ(big[1], std::int64_t{k} * (k - 1) / 2);
}

TEST(MpiCommunicator, AllreduceMax) {
  MpiCommunicator comm;
  std::int64_t v[2] = {comm.rank(), -comm.rank()};
  comm.allreduce_max(v, 2);
  EXPECT_EQ(v[0], comm.size() - 1);
  EXPECT_EQ(v[1], 0);
}

TEST(MpiCommunicator, BroadcastFromLastRank) {
  MpiCommunicator comm;
  const int root = comm.size() - 1;
  std::vector<std::int32_t> payload(1000);
  if (comm.rank() == root) std::iota(payload.begin(), payload.end(), 7);
  comm.broadcast(payload.data(), payload.size() * sizeof(std::int32_t), root);
  EXPECT_EQ(payload[0], 7);
  EXPECT_EQ(payload[999], 1006);
  comm.barrier();
}

}  // namespace
}  // namespace snapml::mpi

int main(int argc, char** argv) {
  snapml::mpi::MpiSession session(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  snapml::mpi::MpiCommunicator world;
  // Only rank 0 prints gtest's report; every rank's result decides the exit code.
  if (world.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  std::int64_t failed = RUN_ALL_TESTS() != 0;
  world.allreduce_sum(&failed, 1);
  return failed ? 1 : 0;
}
