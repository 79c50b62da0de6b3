// snap-convert: converts between svmlight text and the binary chunked format, reads
// Criteo TSV (--from criteo, hashed as in snapml/datasets/criteo.h), and summarises a
// dataset.
//
//   snap-convert [options] INPUT OUTPUT
//   snap-convert --summary [options] INPUT
//
// Formats follow from the file unless --from/--to say otherwise: the input's as
// snapml/datasets/format.h recognises it (binary for `.snap` or the binary magic,
// else svmlight, `.gz` included), the output's from its extension (`.snap` is the
// binary chunked format, anything else svmlight). Criteo TSV is never inferred: it
// takes --from criteo (input only).
// Exit codes: cli_common.h.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <limits>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <string>

#include "cli_common.h"
#include "openmp_wait.h"
#include "snapml/chunk_source.h"
#include "snapml/dataset.h"
#include "snapml/datasets/format.h"
#include "snapml/error.h"
#include "snapml/output_path.h"

namespace snapml::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string input;
  std::string output;
  std::string from;  // "" infers from the extension
  std::string to;
  std::string zero_based = "auto";
  std::int32_t n_features = 0;  // 0: from the data
  std::int64_t chunk_rows = 0;  // 0: the reader's default (svmlight) or the file's chunks (binary)
  int threads = 0;
  bool summary = false;
  // --from criteo only.
  int hash_bits = 20;
  std::uint64_t seed = 0;
  bool skip_bad_lines = false;
};

// The output's format: --to, else from the extension.
std::string output_format(const std::string& path, const std::string& forced) {
  if (!forced.empty()) return forced;
  return std::filesystem::path(path).extension() == datasets::kBinaryExtension ? "binary" : "svmlight";
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The shortest decimal form that reads back to the same double.
std::string shortest(double value) {
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

// Opens the input through the format seam; `map_binary` leaves a binary input
// in its map (a source) instead of copying it into a dataset.
datasets::OpenedData open_input(const Options& o, bool map_binary) {
  datasets::OpenOptions open;
  open.format = o.from.empty() ? datasets::DataFormat::Auto : datasets::data_format_from_name(o.from);
  open.map_binary = map_binary;
  open.binary.verify_all = true;  // a summary's load time then includes the checksums
  open.criteo.hash_bits = o.hash_bits;
  open.criteo.seed = o.seed;
  open.criteo.skip_bad_lines = o.skip_bad_lines;
  open.criteo.threads = o.threads;
  open.svmlight.index_base = o.zero_based == "yes"  ? datasets::IndexBase::Zero
                             : o.zero_based == "no" ? datasets::IndexBase::One
                                                    : datasets::IndexBase::Auto;
  open.svmlight.n_features = o.n_features;
  open.svmlight.threads = o.threads;
  if (o.chunk_rows) open.svmlight.chunk_rows = open.criteo.chunk_rows = o.chunk_rows;
  datasets::OpenedData opened = datasets::open(o.input, open);
  // svmlight takes the count while parsing (an index past it is an error); the
  // others are widened after.
  if (o.n_features && opened.format != datasets::DataFormat::Svmlight && !opened.source)
    opened.dataset.set_n_features(o.n_features);
  return opened;
}

// Label counts, nnz and weights through the chunk-source seam, so a binary file
// is summarised straight from its map and svmlight from memory.
int print_summary(ChunkSource& source, const std::string& path, const datasets::OpenedData& opened,
                  double load_seconds) {
  std::map<double, std::int64_t> label_counts;
  bool weighted = false;
  CsrView chunk;
  for (source.reset(); source.next(chunk);) {
    for (std::int64_t r = 0; r < chunk.n_rows; ++r) ++label_counts[chunk.labels[r]];
    weighted = weighted || (chunk.weights && chunk.n_rows > 0);
  }
  const double cells = static_cast<double>(source.n_rows()) * static_cast<double>(source.n_features());
  const int width = 11;
  auto line = [&](const std::string& key) -> std::ostream& {
    return std::cout << std::left << std::setw(width) << (key + ":");
  };
  line("input") << path << " (" << datasets::data_format_name(opened.format) << ")\n";
  line("rows") << source.n_rows() << "\n";
  line("features") << source.n_features() << "\n";
  line("nnz") << source.nnz() << "\n";
  line("density") << (cells > 0 ? static_cast<double>(source.nnz()) / cells : 0.0) << "\n";
  line("labels") << label_counts.size() << " distinct\n";
  // A regression target has as many distinct values as rows: show the first few.
  const std::size_t shown = 20;
  std::size_t i = 0;
  for (const auto& [label, count] : label_counts) {
    if (i++ == shown) {
      std::cout << "  ... " << label_counts.size() - shown << " more\n";
      break;
    }
    std::cout << "  label " << shortest(label) << ": " << count << "\n";
  }
  line("weights") << (weighted ? "yes" : "no") << "\n";
  line("chunks") << source.n_chunks() << "\n";
  line("bytes") << opened.file_bytes << "\n";
  line("load time") << std::setprecision(3) << load_seconds << " s\n";
  return kExitOk;
}

void print_skipped(const datasets::OpenedData& opened) {
  std::cout << "skipped " << opened.skipped_lines << " bad line" << (opened.skipped_lines == 1 ? "" : "s");
  if (opened.skipped_lines) std::cout << " (first: " << opened.first_skipped << ")";
  std::cout << "\n";
}

int summarize(const Options& o) {
  const Clock::time_point start = Clock::now();
  // A binary file is summarised straight from its map, with no copy, unless
  // --n-features changes it.
  const datasets::OpenedData opened = open_input(o, o.n_features == 0);
  if (o.skip_bad_lines) print_skipped(opened);
  if (opened.source) return print_summary(*opened.source, o.input, opened, seconds_since(start));
  InMemorySource source(opened.dataset);
  return print_summary(source, o.input, opened, seconds_since(start));
}

int convert(const Options& o) {
  const std::string to = output_format(o.output, o.to);
  const Clock::time_point start = Clock::now();
  const datasets::OpenedData opened = open_input(o, false);
  const Dataset& data = opened.dataset;
  const std::string from = datasets::data_format_name(opened.format);
  const double read_seconds = seconds_since(start);

  const Clock::time_point write_start = Clock::now();
  if (to == "binary") {
    datasets::BinaryWriteOptions write;
    write.chunk_rows = o.chunk_rows;  // svmlight input is already cut at chunk_rows
    datasets::write_binary(data, o.output, write);
  } else {
    const bool weighted = std::any_of(data.chunks().begin(), data.chunks().end(),
                                      [](const CsrChunk& c) { return !c.weights.empty(); });
    if (weighted) std::cerr << "snap-convert: warning: svmlight has no per-example weights; they are not written\n";
    datasets::write_svmlight(data, o.output, o.zero_based == "yes");
  }
  std::cout << "snap-convert: " << o.input << " (" << from << ") -> " << o.output << " (" << to
            << "): " << data.n_rows() << " rows, " << data.n_features() << " features, " << data.nnz()
            << " non-zeros; read " << std::setprecision(3) << read_seconds << " s, write "
            << seconds_since(write_start) << " s\n";
  if (o.skip_bad_lines) {
    std::cout << "snap-convert: ";
    print_skipped(opened);
  }
  return kExitOk;
}

int snap_convert(int argc, char** argv) {
  Options o;
  CLI::App app{"Converts datasets between svmlight text and the binary chunked format (.snap), "
               "or summarises one (--summary).",
               "snap-convert"};
  app.add_option("INPUT", o.input, "input file (svmlight, .snap, or Criteo TSV with --from criteo; .gz text too)")
      ->required();
  app.add_option("OUTPUT", o.output, "output file; .snap writes the binary format, anything else svmlight");
  app.add_flag("--summary", o.summary,
               "print rows, features, nnz, density, labels and their counts, chunks, bytes and load time; "
               "no OUTPUT");
  app.add_option("--from", o.from,
                 "input format (default: binary for .snap or the binary magic, else svmlight; criteo: Criteo TSV)")
      ->check(CLI::IsMember({"svmlight", "binary", "criteo"}));
  app.add_option("--to", o.to, "output format (default: binary for .snap, else svmlight)")
      ->check(CLI::IsMember({"svmlight", "binary"}));
  app.add_option("--zero-based", o.zero_based,
                 "svmlight input indices: auto-detected, zero-based (yes) or one-based (no); "
                 "svmlight output is zero-based only with yes")
      ->check(CLI::IsMember({"auto", "yes", "no"}))
      ->capture_default_str();
  app.add_option("--n-features", o.n_features, "feature count (default: one more than the largest index)")
      ->transform(integer_in(1, std::numeric_limits<std::int32_t>::max()));
  app.add_option("--chunk-rows", o.chunk_rows,
                 "rows per chunk of the binary output (default: 65536 from svmlight, the input's chunks from binary)")
      ->transform(integer_in(1, std::numeric_limits<std::int64_t>::max()));
  app.add_option("--threads", o.threads, "parser threads (default 0: all)")
      ->transform(integer_in(0, std::numeric_limits<int>::max()));
  auto* hash_bits = app.add_option("--hash-bits", o.hash_bits,
                                   "--from criteo: categorical values hash into 2^BITS features (1..30)")
                        ->check(CLI::Range(1, 30))
                        ->capture_default_str();
  auto* seed = app.add_option("--seed", o.seed, "--from criteo: seed of the categorical hash")
                   ->check(unsigned_64_bit())
                   ->capture_default_str();
  auto* skip = app.add_flag("--skip-bad-lines", o.skip_bad_lines,
                            "--from criteo: drop malformed lines and print how many (default: the first one is an "
                            "error, exit 2)");
  app.footer("Exit codes: 0 ok, 1 usage, 2 bad input, 3 I/O error.");
  parse_command_line(app, argc, argv);
  o.threads = usable_threads("snap-convert", o.threads, false);
  for (const CLI::Option* criteo_only : {hash_bits, seed, skip})
    require(o.from == "criteo" || criteo_only->count() == 0, criteo_only->get_name() + " needs --from criteo");

  if (o.summary) {
    require(o.output.empty(), "--summary takes no OUTPUT (got " + o.output + ")");
    return summarize(o);
  }
  require(!o.output.empty(), "missing OUTPUT (or pass --summary); run with --help for more information");
  check_outputs({{"input", o.input}}, {{"output", o.output}});  // before reading (output_path.h)
  return convert(o);
}

}  // namespace
}  // namespace snapml::cli

int main(int argc, char** argv) {
  snapml::cli::sleep_idle_openmp_threads(argv);
  return snapml::cli::run_tool("snap-convert", [&] { return snapml::cli::snap_convert(argc, argv); });
}
