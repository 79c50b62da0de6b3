#include "snapml/cuda/device_csr.h"

#include <string>

#include "snapml/error.h"

namespace snapml::cuda {

// O(n_rows), small next to the O(nnz) upload.
void validate_csr_structure(const CsrView& host) {
  require(host.n_rows >= 0, "CSR chunk has a negative row count " + std::to_string(host.n_rows));
  require(host.n_features >= 0,
          "CSR chunk has a negative feature count " + std::to_string(host.n_features));
  if (host.n_rows == 0) return;
  require(host.row_offsets != nullptr, "CSR chunk has rows but no row offsets");
  require(host.row_offsets[0] == 0, "CSR chunk's row offsets start at " +
                                        std::to_string(host.row_offsets[0]) + ", not 0");
  for (std::int64_t row = 0; row < host.n_rows; ++row)
    if (host.row_offsets[row + 1] < host.row_offsets[row])
      throw InvalidArgument("CSR chunk's row offsets decrease at row " + std::to_string(row));
  if (host.nnz() > 0) {
    require(host.col_indices != nullptr && host.values != nullptr,
            "CSR chunk has non-zeros but no column indices or values");
    require(host.n_features > 0, "CSR chunk has non-zeros but n_features is 0");
  }
}

namespace {

template <typename T>
DeviceBuffer<T> upload_array(const T* host, std::int64_t count, DeviceResources& resources) {
  DeviceBuffer<T> device(static_cast<std::size_t>(count));
  resources.upload(device.data(), host, device.bytes());
  return device;
}

}  // namespace

DeviceCsr::DeviceCsr(const CsrView& host, DeviceResources& resources)
    : device_id_(resources.device_id()) {
  validate_csr_structure(host);
  DeviceGuard guard(device_id_);
  nnz_ = host.nnz();
  const std::int64_t zero = 0;
  // An empty chunk still gets its single offset 0, so a kernel's x.nnz() reads a real entry.
  row_offsets_ = upload_array(host.n_rows > 0 ? host.row_offsets : &zero, host.n_rows + 1, resources);
  col_indices_ = upload_array(host.col_indices, nnz_, resources);
  values_ = upload_array(host.values, nnz_, resources);
  if (host.labels != nullptr) labels_ = upload_array(host.labels, host.n_rows, resources);
  if (host.weights != nullptr) weights_ = upload_array(host.weights, host.n_rows, resources);

  view_.n_rows = host.n_rows;
  view_.n_features = host.n_features;
  view_.row_offsets = row_offsets_.data();
  view_.col_indices = col_indices_.data();
  view_.values = values_.data();
  view_.labels = host.labels != nullptr ? labels_.data() : nullptr;
  view_.weights = host.weights != nullptr ? weights_.data() : nullptr;
  view_.first_row = host.first_row;
}

std::size_t DeviceCsr::device_bytes() const {
  return row_offsets_.bytes() + col_indices_.bytes() + values_.bytes() + labels_.bytes() +
         weights_.bytes();
}

}  // namespace snapml::cuda
