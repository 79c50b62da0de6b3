// The data-format seam (snapml/datasets/format.h): names, the sniffer, open(), and
// an InputFile that reads a pipe or FIFO once, whole.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "dataset_compare.h"
#include "snapml/datasets/format.h"
#include "snapml/error.h"
#include "test_data.h"

namespace snapml {
namespace {

using datasets::DataFormat;
using datasets::InputFile;

std::string svmlight_text(int rows) {
  std::string text;
  for (int i = 0; i < rows; ++i) text += std::to_string(i % 3) + " 2:0.5 9:" + std::to_string(i) + "\n";
  return text;
}

std::string write_file(const std::string& name, const std::string& bytes) {
  const std::string path = testing::scratch_dir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string gzipped(const std::string& text) {
  uLongf size = compressBound(static_cast<uLong>(text.size())) + 64;
  std::string out(size, '\0');
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // gzip wrapper
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// Writes `bytes` into a new FIFO from a thread, as a shell's `producer > fifo`.
class Fifo {
 public:
  Fifo(const std::string& name, std::string bytes) : path_(testing::scratch_dir() + "/" + name) {
    EXPECT_EQ(::mkfifo(path_.c_str(), 0600), 0);
    writer_ = std::thread([this, bytes = std::move(bytes)] { std::ofstream(path_, std::ios::binary) << bytes; });
  }
  ~Fifo() {
    writer_.join();
    ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::thread writer_;
};

TEST(DataFormatNames, RoundTripAndRefuseUnknown) {
  for (DataFormat f : {DataFormat::Auto, DataFormat::Svmlight, DataFormat::Binary, DataFormat::Criteo})
    EXPECT_EQ(datasets::data_format_from_name(datasets::data_format_name(f)), f);
  try {
    datasets::data_format_from_name("csv");
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'csv': use auto, svmlight, binary or criteo"), std::string::npos)
        << e.what();
  }
}

TEST(SniffFormat, ExtensionMagicOrForced) {
  const Dataset data = testing::parse_text(svmlight_text(10));
  const std::string snap = testing::scratch_dir() + "/data.snap";
  datasets::write_binary(data, snap);
  std::ifstream in(snap, std::ios::binary);
  const std::string binary_bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string unnamed = write_file("data.bin", binary_bytes);  // the magic alone tells
  const std::string text = write_file("data.txt", svmlight_text(10));
  EXPECT_EQ(datasets::sniff_format(InputFile(snap)), DataFormat::Binary);
  EXPECT_EQ(datasets::sniff_format(InputFile(unnamed)), DataFormat::Binary);
  EXPECT_EQ(datasets::sniff_format(InputFile(text)), DataFormat::Svmlight);
  EXPECT_EQ(datasets::sniff_format(InputFile(text), DataFormat::Criteo), DataFormat::Criteo);
  EXPECT_EQ(datasets::sniff_format(InputFile(unnamed), DataFormat::Svmlight), DataFormat::Svmlight);

  datasets::OpenOptions options;
  testing::expect_same_dataset(data, datasets::read_dataset(unnamed, options));
  options.map_binary = true;
  const datasets::OpenedData mapped = datasets::open(unnamed, options);
  EXPECT_EQ(mapped.format, DataFormat::Binary);
  ASSERT_TRUE(mapped.source);
  EXPECT_TRUE(mapped.source->resident());
  EXPECT_EQ(mapped.source->n_rows(), data.n_rows());
  EXPECT_EQ(mapped.file_bytes, binary_bytes.size());
}

TEST(InputFile, HeadOfAShortFileAndADirectory) {
  const InputFile tiny(write_file("tiny", "1 1:1\n"));
  EXPECT_EQ(tiny.head(), "1 1:1\n");
  EXPECT_EQ(tiny.size(), 6u);
  EXPECT_FALSE(tiny.spooled());
  EXPECT_THROW(InputFile(testing::scratch_dir()), IoError);
  EXPECT_THROW(InputFile(testing::scratch_dir() + "/no-such-file"), IoError);
}

// The bug this seam fixes: the sniffer read the first buffer of a stream and the
// reader opened the path again, so a pipe lost its first 8 KiB and a FIFO whose
// writer had finished blocked. Each format is read through a FIFO, once.
TEST(InputFile, FifoReadsWholeInEveryFormat) {
  const std::string text = svmlight_text(20000);  // far more than a pipe buffer
  const Dataset expected = testing::parse_text(text);
  {
    Fifo fifo("text.fifo", text);
    InputFile input(fifo.path());
    EXPECT_TRUE(input.spooled());
    EXPECT_EQ(input.size(), text.size());
    EXPECT_EQ(input.head(), text.substr(0, InputFile::kHeadBytes));
    testing::expect_same_dataset(expected, datasets::open(std::move(input), {}).dataset);
  }
  {
    Fifo fifo("gzip.fifo", gzipped(text));
    testing::expect_same_dataset(expected, datasets::read_dataset(fifo.path(), {}));
  }
  const std::string snap = testing::scratch_dir() + "/fifo-source.snap";
  datasets::write_binary(expected, snap);
  std::ifstream in(snap, std::ios::binary);
  {
    Fifo fifo("binary.fifo", std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
    datasets::OpenOptions options;
    const datasets::OpenedData opened = datasets::open(fifo.path(), options);
    EXPECT_EQ(opened.format, DataFormat::Binary);  // by its magic
    testing::expect_same_dataset(expected, opened.dataset);
  }
}

}  // namespace
}  // namespace snapml
