// Identities drawn from row contents (snapml/impl/rows_identity.h), which the
// Python binding gives the fresh view of every fit so that a kept GPU session
// recognises rows it uploaded before: equal contents, in another buffer, get the
// same identity; a change of one value, one column index or one row boundary, or
// another feature count, a new one; labels and weights do not count.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "snapml/dataset.h"
#include "snapml/impl/rows_identity.h"

namespace snapml {
namespace {

struct Rows {
  std::vector<std::int64_t> offsets{0, 2, 3, 5};
  std::vector<std::int32_t> indices{0, 3, 1, 2, 3};
  std::vector<float> values{1.0f, -2.0f, 0.5f, 4.0f, 3.0f};
  std::vector<double> labels{0, 1, 0};
  std::int32_t n_features = 4;
  CsrView view() const {
    CsrView v;
    v.n_rows = static_cast<std::int64_t>(offsets.size()) - 1;
    v.n_features = n_features;
    v.row_offsets = offsets.data();
    v.col_indices = indices.data();
    v.values = values.data();
    v.labels = labels.data();
    return v;
  }
};

TEST(RowsIdentity, EqualContentsInAnotherBufferGetTheSameIdentity) {
  RowsIdentities identities;
  const Rows a;
  const Rows copy = a;  // other buffers, same contents
  EXPECT_EQ(identities.identity_of(a.view()), identities.identity_of(copy.view()));
}

TEST(RowsIdentity, AnyChangeOfTheRowsGetsANewIdentity) {
  RowsIdentities identities;
  const Rows a;
  const std::uint64_t first = identities.identity_of(a.view());
  std::set<std::uint64_t> seen{first};
  Rows value = a;
  value.values[4] = 3.0000002f;  // one ulp
  Rows column = a;
  column.indices[0] = 1;
  Rows boundary = a;
  boundary.offsets[1] = 1;  // same entries, cut into other rows
  Rows width = a;
  width.n_features = 5;
  for (const Rows* changed : {&value, &column, &boundary, &width})
    EXPECT_TRUE(seen.insert(identities.identity_of(changed->view())).second);
  // The first contents are still remembered.
  EXPECT_EQ(identities.identity_of(a.view()), first);
}

TEST(RowsIdentity, LabelsAndWeightsDoNotCount) {
  RowsIdentities identities;
  const Rows a;
  Rows relabelled = a;
  relabelled.labels = {1, 1, 1};
  const std::vector<float> weights{2.0f, 0.0f, 1.0f};
  CsrView weighted = relabelled.view();
  weighted.weights = weights.data();
  EXPECT_EQ(identities.identity_of(a.view()), identities.identity_of(weighted));
}

TEST(RowsIdentity, ARowRangeOfALargerArrayKeysAsTheRowsCopiedOut) {
  const Rows a;
  CsrView tail = a.view();  // rows 1 and 2, offsets starting at 2
  tail.n_rows = 2;
  tail.row_offsets = a.offsets.data() + 1;
  Rows copied;
  copied.offsets = {0, 1, 3};
  copied.indices = {1, 2, 3};
  copied.values = {0.5f, 4.0f, 3.0f};
  copied.labels = {0, 0};
  EXPECT_EQ(rows_content_key(tail), rows_content_key(copied.view()));
}

TEST(RowsIdentity, ForgottenContentsGetANewIdentityNeverAnOldOne) {
  RowsIdentities identities(2);
  Rows a, b = a, c = a;
  b.values[0] = 7.0f;
  c.values[0] = 8.0f;
  const std::uint64_t first = identities.identity_of(a.view());
  const std::uint64_t second = identities.identity_of(b.view());
  const std::uint64_t third = identities.identity_of(c.view());  // forgets a's
  const std::uint64_t again = identities.identity_of(a.view());
  EXPECT_NE(again, first);
  EXPECT_EQ(std::set<std::uint64_t>({first, second, third, again}).size(), 4u);
  // Drawn like every other source's: never a Dataset's.
  const Dataset data({}, 1);
  EXPECT_NE(data.identity(), again);
}

// Rows over several 1 MiB blocks of each array: the key is the same on any
// number of threads, and a change of one value in a later block changes it.
TEST(RowsIdentity, ManyBlocksKeyAlikeOnAnyThreadsAndSeeOneValue) {
  Rows big;
  const std::int64_t n_rows = 300000, per_row = 3;  // 2.4 MB of offsets, 3.6 MB of each array
  big.offsets.resize(static_cast<std::size_t>(n_rows) + 1);
  big.indices.clear();
  big.values.clear();
  big.labels.assign(static_cast<std::size_t>(n_rows), 0.0);
  for (std::int64_t r = 0; r <= n_rows; ++r) big.offsets[static_cast<std::size_t>(r)] = r * per_row;
  for (std::int64_t k = 0; k < n_rows * per_row; ++k) {
    big.indices.push_back(static_cast<std::int32_t>(k % 4));
    big.values.push_back(static_cast<float>(k % 1000) * 0.5f);
  }
  const RowsContentKey one = rows_content_key(big.view(), 1);
  EXPECT_EQ(rows_content_key(big.view(), 3), one);
  EXPECT_EQ(rows_content_key(big.view(), 8), one);
  Rows changed = big;
  changed.values[changed.values.size() - 5] += 1.0f;
  EXPECT_FALSE(rows_content_key(changed.view(), 2) == one);
  changed = big;
  changed.offsets[200000] += 1;  // one row boundary moved, in the offsets' third block
  EXPECT_FALSE(rows_content_key(changed.view(), 2) == one);
}

TEST(RowsIdentity, EmptyRowsHaveAKey) {
  RowsIdentities identities;
  const std::vector<std::int64_t> offsets{0};
  CsrView empty;
  empty.n_features = 3;
  empty.row_offsets = offsets.data();
  EXPECT_EQ(identities.identity_of(empty), identities.identity_of(empty));
}

}  // namespace
}  // namespace snapml
