// Partitioned input for CoCoA+ ranks (partition.h).
#include "snapml/datasets/partition.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "line_ranges.h"
#include "snapml/error.h"
#include "text_input.h"

namespace snapml::datasets {
namespace {

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// True when [p, end) (starting at a line start) holds an example line, by the
// reader's own rule: after leading blanks, neither a line end nor a '#'.
bool has_example(const char* p, const char* end) {
  while (p < end) {
    while (p < end && is_blank(*p)) ++p;
    if (p == end) return false;
    if (*p != '\n' && *p != '#') return true;
    const void* newline = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    if (!newline) return false;
    p = static_cast<const char*>(newline) + 1;
  }
  return false;
}

void check_communicator(const Communicator& communicator) {
  require(communicator.size() >= 1 && communicator.rank() >= 0 && communicator.rank() < communicator.size(),
          "communicator: rank " + std::to_string(communicator.rank()) + " of " +
              std::to_string(communicator.size()) + " is not a valid rank");
}

// The local parse of [range.begin, range.end) with the line numbers of errors
// made global: the range starts at a line start, so only the line moves.
Dataset parse_range(const char* data, ByteRange range, const std::string& name, const SvmlightOptions& options) {
  try {
    return parse_svmlight(data + range.begin, range.end - range.begin, name, options);
  } catch (const InputError& e) {
    if (e.line() <= 0 || range.begin == 0) throw;
    const std::int64_t before = std::count(data, data + range.begin, '\n');
    throw InputError(e.file(), e.line() + before, e.column(), e.problem());
  }
}

// Rows [rows.begin, rows.end) of `whole` (svmlight rows: no sample weights),
// copied into chunks of `chunk_rows`.
Dataset slice_rows(const Dataset& whole, RowRange rows, std::int64_t chunk_rows) {
  std::vector<CsrChunk> chunks;
  for (const CsrChunk& from : whole.chunks()) {
    require(from.weights.empty(), "slice_rows: svmlight rows carry no sample weights");
    const std::int64_t begin = std::max(rows.begin, from.first_row) - from.first_row;
    const std::int64_t end = std::min(rows.end, from.first_row + from.n_rows()) - from.first_row;
    for (std::int64_t row = begin; row < end; ++row) {
      if (chunks.empty() || chunks.back().n_rows() == chunk_rows) chunks.emplace_back();
      CsrChunk& to = chunks.back();
      const auto first = static_cast<std::size_t>(from.row_offsets[static_cast<std::size_t>(row)]);
      const auto count = from.row_offsets[static_cast<std::size_t>(row) + 1] - from.row_offsets[static_cast<std::size_t>(row)];
      to.add_row(from.labels[static_cast<std::size_t>(row)], from.col_indices.data() + first,
                 from.values.data() + first, count);
    }
  }
  return Dataset(std::move(chunks), whole.n_features());
}

}  // namespace

ByteRange line_share(const char* data, std::size_t size, int rank, int ranks) {
  require(ranks >= 1 && rank >= 0 && rank < ranks,
          "line_share: rank " + std::to_string(rank) + " of " + std::to_string(ranks) + " is not a valid rank");
  // One cut per rank boundary, each moved forward to the next line start exactly
  // as cut_at_lines moves its cuts; only this rank's two cuts are computed.
  auto cut = [&](int at_rank) -> std::size_t {
    if (at_rank == 0) return 0;
    if (at_rank == ranks) return size;
    // floor(size * at_rank / ranks) without overflow: size = q * ranks + m.
    const auto k = static_cast<std::size_t>(ranks);
    const auto r = static_cast<std::size_t>(at_rank);
    std::size_t at = size / k * r + size % k * r / k;
    if (at > 0 && at < size && data[at - 1] != '\n') {
      const void* newline = std::memchr(data + at, '\n', size - at);
      at = newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - data) + 1 : size;
    }
    return at;
  };
  // Cuts never move backwards (a later rank's raw cut cannot precede an earlier
  // rank's adjusted one: both move to the first line start at or after their raw
  // offset), so the shares are disjoint and in order; a share may be empty.
  return {cut(rank), cut(rank + 1)};
}

RowRange row_share(std::int64_t n_rows, int rank, int ranks) {
  require(ranks >= 1 && rank >= 0 && rank < ranks,
          "row_share: rank " + std::to_string(rank) + " of " + std::to_string(ranks) + " is not a valid rank");
  require(n_rows >= 0, "row_share: n_rows must be >= 0, got " + std::to_string(n_rows));
  auto bound = [&](int at_rank) {
    const std::int64_t k = ranks;
    return n_rows / k * at_rank + n_rows % k * at_rank / k;  // floor(n_rows * at_rank / ranks), no overflow
  };
  return {bound(rank), bound(rank + 1)};
}

bool has_index_zero(const char* data, std::size_t size) {
  const char* const end = data + size;
  // In a well-formed line a ':' belongs to `qid:N`, to an `index:value` pair or
  // to a comment. A pair with index 0 is a ':' preceded by one or more '0's that
  // follow a blank (a pair always follows the label and a blank); the scan then
  // checks that no '#' opened a comment earlier on the line. A malformed line is
  // the parser's to reject, whatever this scan says.
  for (const char* p = data; p < end; ++p) {
    p = static_cast<const char*>(std::memchr(p, ':', static_cast<std::size_t>(end - p)));
    if (!p) return false;
    const char* digits = p;
    while (digits > data && digits[-1] == '0') --digits;
    if (digits == p || digits == data || !is_blank(digits[-1])) continue;
    const char* line_start = digits;
    while (line_start > data && line_start[-1] != '\n') --line_start;
    if (std::memchr(line_start, '#', static_cast<std::size_t>(digits - line_start))) continue;
    return true;
  }
  return false;
}

Dataset parse_svmlight_partition(const char* data, std::size_t size, const std::string& name,
                                 Communicator& communicator, const SvmlightOptions& options, bool compressed,
                                 IndexBase* base_read) {
  check_communicator(communicator);
  require(options.chunk_rows > 0,
          "SvmlightOptions.chunk_rows must be positive, got " + std::to_string(options.chunk_rows));
  const int rank = communicator.rank();
  const int ranks = communicator.size();
  const ByteRange range = compressed ? ByteRange{0, size} : line_share(data, size, rank, ranks);

  // 1. The index base of the whole file, before any rank subtracts it.
  SvmlightOptions local_options = options;
  std::int64_t saw_zero = 0;
  if (options.index_base == IndexBase::Auto)
    saw_zero = has_index_zero(data + range.begin, range.end - range.begin) ? 1 : 0;
  communicator.allreduce_max(&saw_zero, 1);
  if (options.index_base == IndexBase::Auto) local_options.index_base = saw_zero ? IndexBase::Zero : IndexBase::One;
  if (base_read) *base_read = local_options.index_base;

  // 2. This rank's rows.
  Dataset local;
  if (has_example(data + range.begin, data + range.end)) local = parse_range(data, range, name, local_options);
  if (compressed) local = slice_rows(local, row_share(local.n_rows(), rank, ranks), options.chunk_rows);

  // 3. The feature count and the row count of the whole file.
  std::int64_t n_features = std::max<std::int64_t>(local.n_features(), options.n_features);
  communicator.allreduce_max(&n_features, 1);
  std::int64_t n_rows = local.n_rows();
  communicator.allreduce_sum(&n_rows, 1);
  if (n_rows == 0)
    throw InputError(name, 0, 0, "no examples: the input is empty or holds only blank and comment lines");
  local.set_n_features(static_cast<std::int32_t>(n_features));
  return local;
}

Dataset read_svmlight_partition(const std::string& path, Communicator& communicator, const SvmlightOptions& options,
                                IndexBase* base_read) {
  return read_svmlight_partition(InputFile(path), communicator, options, base_read);
}

Dataset read_svmlight_partition(InputFile input, Communicator& communicator, const SvmlightOptions& options,
                                IndexBase* base_read) {
  const std::string path = input.path();
  const detail::TextInput text(std::move(input));
  return parse_svmlight_partition(text.data(), text.size(), path, communicator, options, text.compressed(),
                                  base_read);
}

namespace {

// Chunk c belongs to the rank whose row share holds its first row; the chunks'
// first rows ascend, so each rank's chunks are one contiguous run.
template <typename FirstRow>
ChunkRange share_of(std::size_t n_chunks, std::int64_t n_rows, int rank, int ranks, FirstRow first_row) {
  const RowRange rows = row_share(n_rows, rank, ranks);
  auto first_at_or_after = [&](std::int64_t row) {
    std::size_t low = 0, high = n_chunks;
    while (low < high) {
      const std::size_t middle = low + (high - low) / 2;
      if (first_row(middle) < row)
        low = middle + 1;
      else
        high = middle;
    }
    return low;
  };
  const std::size_t first = rank == 0 ? 0 : first_at_or_after(rows.begin);
  const std::size_t last = rank + 1 == ranks ? n_chunks : first_at_or_after(rows.end);
  return {first, std::max(first, last)};
}

}  // namespace

ChunkRange chunk_share(const MappedBinaryFile& file, int rank, int ranks) {
  return share_of(file.n_chunks(), file.n_rows(), rank, ranks,
                  [&](std::size_t c) { return file.chunk_entry(c).first_row; });
}

ChunkRange chunk_share(const std::vector<BinaryChunkEntry>& table, std::int64_t n_rows, int rank, int ranks) {
  return share_of(table.size(), n_rows, rank, ranks, [&](std::size_t c) { return table[c].first_row; });
}

BinaryFileLayout layout_share(const BinaryFileLayout& whole, int rank, int ranks) {
  const ChunkRange range = chunk_share(whole.table, whole.header.n_rows, rank, ranks);
  BinaryFileLayout share;
  share.path = whole.path;
  share.header = whole.header;
  share.first_chunk = whole.first_chunk + range.first;
  share.table.assign(whole.table.begin() + static_cast<std::ptrdiff_t>(range.first),
                     whole.table.begin() + static_cast<std::ptrdiff_t>(range.last));
  share.header.n_rows = 0;
  share.header.nnz = 0;
  for (const BinaryChunkEntry& e : share.table) {
    share.header.n_rows += e.n_rows;
    share.header.nnz += e.nnz;
  }
  return share;
}

MappedBinaryPartition::MappedBinaryPartition(MappedBinaryFile file, int rank, int ranks)
    : file_(std::move(file)), range_(chunk_share(file_, rank, ranks)) {
  for (std::size_t c = range_.first; c < range_.last; ++c) {
    n_rows_ += file_.chunk_entry(c).n_rows;
    nnz_ += file_.chunk_entry(c).nnz;
  }
}

bool MappedBinaryPartition::next(CsrView& chunk) {
  if (!ResidentSource::next(chunk)) return false;
  // The next chunk, while the caller works on this one.
  if (position() < n_chunks()) file_.prefetch(range_.first + position());
  return true;
}

}  // namespace snapml::datasets
