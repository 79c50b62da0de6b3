// Writes a synthetic binary (.snap) dataset for the out-of-core tests and
// benchmark, without a text file in between (a 150 MB file as svmlight text
// would be about 3 times larger and slow to parse):
//
//   snapml-synthetic-snap OUTPUT ROWS FEATURES NNZ_PER_ROW CHUNK_ROWS [SEED]
//
// The rows come from datasets/synthetic.h (a planted logistic model, rows i.i.d.,
// so the chunk order carries no structure).
#include <cstdlib>
#include <iostream>
#include <string>

#include "snapml/datasets/binary_format.h"
#include "snapml/datasets/synthetic.h"

int main(int argc, char** argv) {
  if (argc != 6 && argc != 7) {
    std::cerr << "usage: " << argv[0] << " OUTPUT ROWS FEATURES NNZ_PER_ROW CHUNK_ROWS [SEED]\n";
    return 1;
  }
  snapml::datasets::SyntheticOptions options;
  options.rows = std::stoll(argv[2]);
  options.features = std::stoi(argv[3]);
  options.nnz_per_row = std::stoi(argv[4]);
  options.seed = argc == 7 ? std::stoull(argv[6]) : 1;
  snapml::datasets::BinaryWriteOptions write;
  write.chunk_rows = std::stoll(argv[5]);
  snapml::datasets::write_binary(snapml::datasets::make_synthetic(options), argv[1], write);
  return 0;
}
