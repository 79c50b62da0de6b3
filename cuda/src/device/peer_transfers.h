// Weight-sized copies between the devices of one process (the GPU Newton solver's
// fork and join, cuda/src/primal/primal_rows.cpp): by NCCL's point-to-point send
// and receive where it loads and the devices differ, else by cudaMemcpyPeerAsync.
//
// Why NCCL: without peer access enabled, CUDA stages a peer copy through host
// memory (two PCIe crossings and a host bounce); NCCL moves it over NVLink or
// PCIe peer-to-peer where the topology allows, and through its own staging where
// not. Why point-to-point and not ncclReduce / ncclAllReduce: the trust region's
// weight vectors and sweeps live on the first device only (the master), so the
// products' sums are needed there alone, and the master adds the parts' vectors in
// part order inside the sweep that reads them: the same sum, bit for bit, as two
// parts on one device ({0, 0}) or one part, whatever the topology (a ring or tree
// reduction's order depends on it). Copies between parts on one device are device
// copies; NCCL takes no rank twice on a device.
//
// NCCL is loaded at run time (dlopen of libnccl.so.2): the plugin must start on a
// machine without it (the device image's CUDA comes from wheels that may lack it),
// and a process that names one device never loads it. SNAPML_NCCL=0 forces the
// peer copies (the fallback the emulated CI runs, and a device run can compare).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace snapml::cuda {

struct PeerCopy {
  double* to = nullptr;
  int to_device = 0;
  cudaStream_t to_stream = nullptr;  // NCCL's receive runs here
  const double* from = nullptr;
  int from_device = 0;
  cudaStream_t from_stream = nullptr;  // the send, or the peer copy, runs here
  std::size_t count = 0;
};

class PeerTransfers {
 public:
  // `devices`: the process's device ids (repeats allowed). NCCL is used when at
  // least two distinct ids are named, SNAPML_NCCL is not "0" and the library loads
  // and initialises; otherwise, or without NCCL's header at build time, peer copies.
  explicit PeerTransfers(const std::vector<int>& devices);
  ~PeerTransfers();
  PeerTransfers(const PeerTransfers&) = delete;
  PeerTransfers& operator=(const PeerTransfers&) = delete;

  bool uses_nccl() const { return nccl_ != nullptr; }
  // Why NCCL is not used ("" when it is).
  const std::string& fallback_reason() const { return reason_; }

  // Queues the copies, in order: those between distinct devices as one NCCL group
  // (send on from_stream, receive on to_stream), the others as device or peer
  // copies on from_stream. Each stream's later work sees its copies done; a
  // stream that reads a copy's destination must be to_stream, or wait for it.
  void run(const std::vector<PeerCopy>& copies);

 private:
  struct Nccl;
  std::unique_ptr<Nccl> nccl_;
  std::string reason_;
};

}  // namespace snapml::cuda
