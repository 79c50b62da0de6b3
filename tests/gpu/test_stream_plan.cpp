// The device-memory plan of out-of-core GPU training (stream_plan.h): pure host
// arithmetic, so these tests run and must pass on every machine, GPU or not.
// They pin the byte counts to what the solver allocates, the resident/streamed
// decision, the ring and the resident chunks a budget buys, and the refusal; and
// the ring's host fill stage (copy_to_pinned), which needs no device either.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "snapml/cuda/chunk_ring.h"
#include "snapml/cuda/stream_plan.h"
#include "snapml/error.h"

namespace snapml::cuda {
namespace {

using ::testing::HasSubstr;

std::uint64_t sum(const std::vector<std::uint64_t>& values) {
  return std::accumulate(values.begin(), values.end(), std::uint64_t{0});
}

TEST(StreamPlan, ChunkBytesAreTheDeviceLayout) {
  // int64 offsets (n_rows + 1), int32 columns, float32 values.
  EXPECT_EQ(device_chunk_bytes({0, 0}), 8u);
  EXPECT_EQ(device_chunk_bytes({3, 10}), 8u * 4 + 4u * 10 + 4u * 10);
  const ChunkLayout layout = chunk_layout({1000, 12345});
  EXPECT_EQ(layout.offsets_at, 0u);
  EXPECT_EQ(layout.indices_at, 8u * 1001);
  EXPECT_EQ(layout.values_at, 8u * 1001 + 4u * 12345);
  EXPECT_EQ(layout.bytes, device_chunk_bytes({1000, 12345}));
  // Each array aligned for its type.
  EXPECT_EQ(layout.indices_at % alignof(std::int32_t), 0u);
  EXPECT_EQ(layout.values_at % alignof(float), 0u);
  EXPECT_THROW(chunk_layout({-1, 0}), InvalidArgument);
}

TEST(StreamPlan, NeedsCountWhatTheSolverAllocates) {
  const DeviceMemoryNeeds needs = device_memory_needs({{100, 900}, {50, 10}}, 7);
  EXPECT_EQ(needs.chunk_bytes, (std::vector<std::uint64_t>{8 * 101 + 8 * 900, 8 * 51 + 8 * 10}));
  EXPECT_EQ(needs.row_state_bytes, 80u * 150);  // the packed row and six doubles of the hot step
  EXPECT_EQ(needs.weight_bytes, 3u * 8 * 8);    // v, the start weights and w(alpha^v), n_features + 1 each
  EXPECT_EQ(needs.partials_bytes, 2u * 32768);  // 4 x 1024 doubles a chunk
  EXPECT_EQ(needs.fixed_bytes(), needs.row_state_bytes + needs.weight_bytes + needs.partials_bytes);
  // The totals a source reports give the same resident bytes as the chunks.
  EXPECT_EQ(resident_device_bytes(150, 910, 2, 7), needs.fixed_bytes() + sum(needs.chunk_bytes));
}

TEST(StreamPlan, NoBudgetOrEnoughIsResident) {
  const DeviceMemoryNeeds needs = device_memory_needs({{1000, 20000}, {1000, 30000}, {10, 5}}, 100);
  const std::uint64_t total = needs.fixed_bytes() + sum(needs.chunk_bytes);
  for (const std::uint64_t budget : {std::uint64_t{0}, total, total + 1, std::uint64_t{1} << 40}) {
    const DeviceMemoryPlan plan = plan_device_memory(needs, budget);
    EXPECT_FALSE(plan.streamed) << budget;
    EXPECT_EQ(plan.slots, 0u);
    EXPECT_EQ(plan.resident, std::vector<bool>(3, true));
    EXPECT_EQ(plan.resident_chunks(), 3u);
    EXPECT_EQ(plan.device_bytes, total);
    EXPECT_EQ(plan.streamed_bytes_per_pass, 0u);
  }
}

// Streaming needs more chunk bytes than two slots of the largest: seven chunks.
const std::vector<ChunkShape> kSevenChunks = {{1000, 20000}, {1000, 30000}, {10, 5},      {500, 100},
                                              {1000, 25000}, {1000, 25000}, {1000, 25000}};

TEST(StreamPlan, JustBelowTheDataStreamsThroughTwoSlotsOfTheLargestChunk) {
  const DeviceMemoryNeeds needs = device_memory_needs(kSevenChunks, 100);
  const std::uint64_t largest = *std::max_element(needs.chunk_bytes.begin(), needs.chunk_bytes.end());
  const std::uint64_t minimum = needs.fixed_bytes() + kRingSlots * largest;

  // Exactly the minimum: two slots, nothing resident, every chunk streams.
  DeviceMemoryPlan plan = plan_device_memory(needs, minimum);
  EXPECT_TRUE(plan.streamed);
  EXPECT_EQ(plan.slots, 2u);
  EXPECT_EQ(plan.slot_bytes, largest);
  EXPECT_EQ(plan.resident_chunks(), 0u);
  EXPECT_EQ(plan.device_bytes, minimum);
  EXPECT_EQ(plan.streamed_bytes_per_pass, sum(needs.chunk_bytes));

  // Room for chunks 2 and 3 (small) but not for 0: first fit in source order.
  const std::uint64_t room = needs.chunk_bytes[2] + needs.chunk_bytes[3];
  plan = plan_device_memory(needs, minimum + room);
  EXPECT_EQ(plan.resident, (std::vector<bool>{false, false, true, true, false, false, false}));
  EXPECT_EQ(plan.device_bytes, minimum + room);
  EXPECT_EQ(plan.streamed_bytes_per_pass, sum(needs.chunk_bytes) - room);

  // Room for chunks 0, 2 and 3: chunk 0 is kept first, then what still fits.
  plan = plan_device_memory(needs, minimum + needs.chunk_bytes[0] + needs.chunk_bytes[2] + needs.chunk_bytes[3]);
  EXPECT_EQ(plan.resident, (std::vector<bool>{true, false, true, true, false, false, false}));
  // One byte short of everything: streamed, with one chunk on the ring at least.
  const std::uint64_t total = needs.fixed_bytes() + sum(needs.chunk_bytes);
  plan = plan_device_memory(needs, total - 1);
  EXPECT_TRUE(plan.streamed);
  EXPECT_LT(plan.resident_chunks(), 7u);
  EXPECT_LE(plan.device_bytes, total - 1);
}

TEST(StreamPlan, ABudgetBelowTwoSlotsIsRefusedNamingTheBytes) {
  const DeviceMemoryNeeds needs =
      device_memory_needs({{1000, 20000}, {1000, 30000}, {1000, 20000}, {1000, 20000}, {1000, 20000}}, 100);
  const std::uint64_t minimum = needs.fixed_bytes() + 2 * needs.chunk_bytes[1];
  try {
    plan_device_memory(needs, minimum - 1);
    FAIL() << "a budget below the minimum was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("max_gpu_memory " + std::to_string(minimum - 1) + " bytes"));
    EXPECT_THAT(e.what(), HasSubstr("is too small"));
    EXPECT_THAT(e.what(), HasSubstr("need " + std::to_string(minimum) + " bytes"));
    EXPECT_THAT(e.what(), HasSubstr("2 ring slots of the largest chunk (" + std::to_string(needs.chunk_bytes[1])));
    EXPECT_THAT(e.what(), HasSubstr("snap-convert --chunk-rows"));
  }
}

// Random shapes and budgets: a plan never exceeds its budget, streams exactly when
// the data does not fit, and streams what is not resident.
TEST(StreamPlan, RandomPlansRespectTheBudget) {
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 2000; ++trial) {
    const int n = std::uniform_int_distribution<int>(1, 12)(rng);
    std::vector<ChunkShape> shapes;
    std::int64_t rows = 0;
    std::int64_t nnz = 0;
    for (int c = 0; c < n; ++c) {
      shapes.push_back({std::uniform_int_distribution<std::int64_t>(0, 5000)(rng),
                        std::uniform_int_distribution<std::int64_t>(0, 200000)(rng)});
      rows += shapes.back().n_rows;
      nnz += shapes.back().nnz;
    }
    const std::int32_t features = std::uniform_int_distribution<std::int32_t>(1, 100000)(rng);
    const DeviceMemoryNeeds needs = device_memory_needs(shapes, features);
    const std::uint64_t total = resident_device_bytes(rows, nnz, shapes.size(), features);
    ASSERT_EQ(total, needs.fixed_bytes() + sum(needs.chunk_bytes));
    const std::uint64_t budget = std::uniform_int_distribution<std::uint64_t>(1, total + total / 4)(rng);
    DeviceMemoryPlan plan;
    try {
      plan = plan_device_memory(needs, budget);
    } catch (const InvalidArgument&) {
      const std::uint64_t largest = *std::max_element(needs.chunk_bytes.begin(), needs.chunk_bytes.end());
      ASSERT_GT(needs.fixed_bytes() + 2 * largest, budget);
      ASSERT_GT(total, budget);
      continue;
    }
    ASSERT_EQ(plan.streamed, total > budget);
    ASSERT_LE(plan.device_bytes, budget);
    std::uint64_t streamed = 0;
    for (int c = 0; c < n; ++c)
      if (!plan.resident[static_cast<std::size_t>(c)]) streamed += needs.chunk_bytes[static_cast<std::size_t>(c)];
    ASSERT_EQ(plan.streamed_bytes_per_pass, streamed);
    if (plan.streamed) {
      ASSERT_EQ(plan.slots, kRingSlots);
      ASSERT_GT(streamed, 0u);
    }
  }
}

// The ring's fill stage (chunk_ring.h): exact copies whether it runs on one thread
// or splits into pieces, including a ragged last piece. Plain host memory serves:
// pinned memory only changes how the DMA engine reads it.
TEST(CopyToPinned, CopiesEveryByte) {
  std::mt19937_64 rng(3);
  for (const std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{4096}, (std::size_t{8} << 20) + 3,
                                  (std::size_t{21} << 20) + 4095}) {
    std::vector<unsigned char> from(bytes), to(bytes + 1, 0xAB);
    for (auto& byte : from) byte = static_cast<unsigned char>(rng());
    copy_to_pinned(to.data(), from.data(), bytes);
    EXPECT_TRUE(std::equal(from.begin(), from.end(), to.begin())) << bytes << " bytes";
    EXPECT_EQ(to[bytes], 0xAB) << "wrote past " << bytes << " bytes";
  }
}

}  // namespace
}  // namespace snapml::cuda
