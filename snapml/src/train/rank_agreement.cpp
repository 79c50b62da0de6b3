#include "snapml/impl/rank_agreement.h"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../common/random.h"
#include "snapml/error.h"
#include "snapml/losses/dispatch.h"
#include "snapml/penalty.h"
#include "snapml/solver.h"

namespace snapml {
namespace {

// The shortest text that reads back to the same double (0.1, not 0.1000...01).
std::string exact(double value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  return std::string(text, end);
}

std::string yes_no(bool value) { return value ? "true" : "false"; }

// Every rank's text, in rank order, on every rank (one broadcast per rank).
std::vector<std::string> all_texts(Communicator& communicator, const std::string& mine) {
  std::vector<std::string> texts(static_cast<std::size_t>(communicator.size()));
  for (int root = 0; root < communicator.size(); ++root) {
    std::string text = root == communicator.rank() ? mine : std::string();
    auto length = static_cast<std::int64_t>(text.size());
    communicator.broadcast(&length, sizeof length, root);
    text.resize(static_cast<std::size_t>(length));
    if (length > 0) communicator.broadcast(text.data(), text.size(), root);
    texts[static_cast<std::size_t>(root)] = std::move(text);
  }
  return texts;
}

std::string encoded(const std::vector<std::pair<std::string, std::string>>& parameters) {
  std::string text;
  for (const auto& [name, value] : parameters) text += name + '\n' + value + '\n';
  return text;
}

std::vector<std::pair<std::string, std::string>> decoded(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> parameters;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t name_end = text.find('\n', at);
    const std::size_t value_end = text.find('\n', name_end + 1);
    parameters.emplace_back(text.substr(at, name_end - at), text.substr(name_end + 1, value_end - name_end - 1));
    at = value_end + 1;
  }
  return parameters;
}

void check_parameters_agree(Communicator& communicator, const TrainParameters& p) {
  const std::vector<std::string> texts = all_texts(communicator, encoded(fit_defining_parameters(p)));
  const auto reference = decoded(texts[0]);
  std::string differences;
  for (std::size_t rank = 1; rank < texts.size(); ++rank) {
    const auto theirs = decoded(texts[rank]);
    for (std::size_t i = 0; i < reference.size() && i < theirs.size(); ++i)
      if (reference[i].second != theirs[i].second)
        differences += "; " + reference[i].first + ": rank 0 has " + reference[i].second + ", rank " +
                       std::to_string(rank) + " has " + theirs[i].second;
  }
  if (!differences.empty())
    throw RanksDisagree("the ranks disagree on the training parameters (start every rank with the same options)" +
                          differences);
}

void check_rows_differ(ChunkSource& source, Communicator& communicator) {
  const auto ranks = static_cast<std::size_t>(communicator.size());
  const auto me = static_cast<std::size_t>(communicator.rank());
  std::vector<std::int64_t> sums(ranks, 0), rows(ranks, 0);
  if (source.resident() && source.n_rows() > 0) {
    const std::uint64_t sum = rows_multiset_checksum(source);
    std::memcpy(&sums[me], &sum, sizeof sum);
    rows[me] = source.n_rows();
  }
  communicator.allreduce_sum(sums.data(), ranks);  // one non-zero entry per slot: exact
  communicator.allreduce_sum(rows.data(), ranks);
  for (std::size_t a = 0; a < ranks; ++a)
    for (std::size_t b = a + 1; b < ranks; ++b)
      if (sums[a] != 0 && sums[a] == sums[b] && rows[a] == rows[b])
        throw RanksDisagree(
            "ranks " + std::to_string(a) + " and " + std::to_string(b) + " hold the same " + std::to_string(rows[a]) +
            " rows (equal checksums, in any order): under mpirun each rank trains on its own share of the rows, so K ranks "
            "holding all of them would train on K copies (a fit at C*K). Give each rank its share: in Python "
            "`rank, size = snap_ml.mpi_world()` then `X[rank::size], y[rank::size]`; snap-train reads its share of "
            "the file by itself. Or train in one process (distributed=False, or without mpirun)");
}

}  // namespace

namespace {

// Row r of x (label, weight, length, columns, values) into `sum`.
void add_row(Checksum64& sum, const CsrView& x, std::int64_t r) {
  const std::int64_t begin = x.row_offsets[r];
  const auto count = static_cast<std::size_t>(x.row_offsets[r + 1] - begin);
  double head[3] = {x.labels[r], x.weights ? static_cast<double>(x.weights[r]) : 1.0, 0.0};
  const auto length = static_cast<std::uint64_t>(count);
  std::memcpy(&head[2], &length, sizeof length);
  sum.add(head, sizeof head);
  sum.add(x.col_indices + begin, sizeof(std::int32_t) * count);
  sum.add(x.values + begin, sizeof(float) * count);
}

// Every row of the source, resident or read once.
template <typename Visit>
void for_each_chunk(ChunkSource& source, Visit&& visit) {
  if (source.resident()) {
    for (std::size_t c = 0; c < source.n_chunks(); ++c) visit(source.chunk(c));
  } else {
    CsrView x;
    source.reset();
    while (source.next(x)) visit(x);
  }
}

}  // namespace

std::uint64_t rows_checksum(ChunkSource& source) {
  Checksum64 sum;
  // Row by row, so that the same rows cut into other chunks sum alike: a .snap
  // file re-chunked (as docs/out-of-core.md advises) resumes its checkpoint.
  for_each_chunk(source, [&sum](const CsrView& x) {
    for (std::int64_t r = 0; r < x.n_rows; ++r) add_row(sum, x, r);
  });
  return sum.value() | 1;  // never 0, which stands for "not checked"
}

std::uint64_t rows_multiset_checksum(ChunkSource& source) {
  std::uint64_t total = 0;
  for_each_chunk(source, [&total](const CsrView& x) {
    for (std::int64_t r = 0; r < x.n_rows; ++r) {
      Checksum64 row;
      add_row(row, x, r);
      // Mixed, so that sums of rows do not cancel as the raw states might; added
      // mod 2^64: the order of the rows does not count.
      total += detail::splitmix64_mix(row.value());
    }
  });
  return total | 1;  // never 0, which stands for "not checked"
}

std::vector<std::pair<std::string, std::string>> fit_defining_parameters(const TrainParameters& p) {
  std::string class_weight;
  for (const auto& [label, weight] : p.class_weight)
    class_weight += (class_weight.empty() ? "" : ",") + exact(label) + ":" + exact(weight);
  return {
      {"loss", loss_name(p.loss)},
      {"penalty", penalty_name(p.penalty)},
      {"l1_ratio", exact(p.l1_ratio)},
      {"solver", solver_choice_name(p.solver)},
      {"C", exact(p.C)},
      {"tol", exact(p.tol)},
      {"max_iter", std::to_string(p.max_iter)},
      {"fit_intercept", yes_no(p.fit_intercept)},
      {"intercept_scaling", exact(p.intercept_scaling)},
      {"penalise_intercept", yes_no(p.penalise_intercept)},
      {"class_weight", class_weight.empty() ? "none" : class_weight},
      {"balanced_class_weight", yes_no(p.balanced_class_weight)},
      {"epsilon", exact(p.epsilon)},
      {"local_epochs", std::to_string(p.local_epochs)},
      {"adaptive_sigma", yes_no(p.adaptive_sigma)},
      {"shrinking", yes_no(p.shrinking)},
      {"certify_every_epoch", yes_no(p.certify_every_epoch)},  // the certificates are collective
      {"use_gpu", yes_no(p.use_gpu)},
      {"warm_start", p.warm_start ? "a model" : "none"},
  };
}

void check_same_on_every_rank(Communicator& communicator, const std::string& what, const std::string& mine,
                              const std::string& shown, const std::string& fix) {
  if (communicator.size() == 1) return;
  const std::vector<std::string> texts = all_texts(communicator, mine);
  const std::vector<std::string> names = all_texts(communicator, shown);
  std::string differences;
  for (std::size_t rank = 1; rank < texts.size(); ++rank)
    if (texts[rank] != texts[0])
      differences += "; rank 0 has " + names[0] + " (" + texts[0] + "), rank " + std::to_string(rank) + " has " +
                     names[rank] + " (" + texts[rank] + ")";
  if (!differences.empty()) throw RanksDisagree("the ranks disagree on " + what + differences + ": " + fix);
}

void check_ranks_agree(ChunkSource& source, Communicator& communicator, const TrainParameters& p) {
  if (communicator.size() == 1) return;
  check_parameters_agree(communicator, p);
  check_rows_differ(source, communicator);
}

}  // namespace snapml
