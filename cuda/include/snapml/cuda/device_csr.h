// A CSR chunk resident in device memory, uploaded from a host CsrView.
//
// Layout and index widths (docs/gpu.md):
//   row_offsets  int64, n_rows + 1   the host's own width: a chunk may hold more than
//                                    2^31 non-zeros, and a kernel indexing values with
//                                    an int32 offset would wrap silently there.
//   col_indices  int32, nnz          features stay below 2^31; 4 bytes, not 8, per
//                                    non-zero is a third less traffic for the kernels.
//   values       float32, nnz
//   labels       float64, n_rows     as on the host (empty if the view had none)
//   weights      float32, n_rows     only when the view has weights
//
// The device view is the same snapml::CsrView the CPU solvers read, with device
// pointers, so kernels use the same __host__ __device__ helpers (row_dot, the losses)
// and there is never a second copy of that code in cuda/. The cuSPARSE path builds its
// own 32-bit offsets per row block (spmv.h), because it does not rely on cuSPARSE
// mixing 64-bit offsets with 32-bit column indices.
#pragma once

#include <cstdint>

#include "snapml/csr_view.h"
#include "snapml/cuda/device_buffer.h"
#include "snapml/cuda/device_resources.h"

namespace snapml::cuda {

// The structural checks that keep a kernel inside a chunk's arrays, on a view of
// host memory: offsets start at 0 and never decrease, arrays are there when rows and
// non-zeros are. Throws InvalidArgument. DeviceCsr and ChunkRing call it on upload.
void validate_csr_structure(const CsrView& host);

class DeviceCsr {
 public:
  // Validates `host` (a view of host memory) and uploads it to `resources`' device
  // through its staging buffer on the copy stream. Returns when the host memory may be
  // reused; work queued afterwards on the compute stream sees the uploaded data.
  // Column indices are not re-checked here: readers and CsrChunk guarantee
  // 0 <= column < n_features.
  DeviceCsr(const CsrView& host, DeviceResources& resources);

  // The chunk with device pointers, valid while this object lives. Its methods read
  // row_offsets, so call them in device code only; on the host use n_rows(), nnz().
  const CsrView& view() const { return view_; }
  std::int64_t n_rows() const { return view_.n_rows; }
  std::int32_t n_features() const { return view_.n_features; }
  std::int64_t nnz() const { return nnz_; }
  int device_id() const { return device_id_; }
  // Device memory held by this chunk.
  std::size_t device_bytes() const;

 private:
  int device_id_;
  std::int64_t nnz_ = 0;
  DeviceBuffer<std::int64_t> row_offsets_;
  DeviceBuffer<std::int32_t> col_indices_;
  DeviceBuffer<float> values_;
  DeviceBuffer<double> labels_;
  DeviceBuffer<float> weights_;
  CsrView view_;
};

}  // namespace snapml::cuda
