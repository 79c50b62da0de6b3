// PeerTransfers (peer_transfers.h): NCCL loaded at run time, or peer copies.
#include "peer_transfers.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>

#include "snapml/cuda/check.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/error.h"

#if defined(SNAPML_HAVE_NCCL_HEADER)
#include <nccl.h>
#endif

namespace snapml::cuda {

#if defined(SNAPML_HAVE_NCCL_HEADER)

// The entry points used, from libnccl.so.2, and one communicator per distinct
// device (NCCL rank = the device's place in `devices`).
struct PeerTransfers::Nccl {
  void* library = nullptr;
  decltype(&ncclCommInitAll) comm_init_all = nullptr;
  decltype(&ncclCommDestroy) comm_destroy = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;
  decltype(&ncclSend) send = nullptr;
  decltype(&ncclRecv) recv = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
  std::vector<int> devices;
  std::vector<ncclComm_t> comms;

  ~Nccl() {
    for (ncclComm_t comm : comms)
      if (comm) comm_destroy(comm);
    if (library) dlclose(library);
  }

  int rank(int device) const {
    return static_cast<int>(std::find(devices.begin(), devices.end(), device) - devices.begin());
  }

  void check(ncclResult_t result, const char* call) const {
    if (result != ncclSuccess)
      throw Error(std::string("NCCL call ") + call + " failed: " + error_string(result) +
                  " (set SNAPML_NCCL=0 to copy between devices without NCCL)");
  }
};

namespace {

template <typename Function>
bool load_symbol(void* library, const char* name, Function& out) {
  out = reinterpret_cast<Function>(dlsym(library, name));
  return out != nullptr;
}

}  // namespace

PeerTransfers::PeerTransfers(const std::vector<int>& devices) {
  std::vector<int> distinct;
  for (const int device : devices)
    if (std::find(distinct.begin(), distinct.end(), device) == distinct.end()) distinct.push_back(device);
  if (distinct.size() < 2) {
    reason_ = "one device";
    return;
  }
  if (const char* flag = std::getenv("SNAPML_NCCL"); flag && std::string(flag) == "0") {
    reason_ = "SNAPML_NCCL=0";
    return;
  }
  auto nccl = std::make_unique<Nccl>();
  nccl->library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!nccl->library) {
    const char* why = dlerror();
    reason_ = std::string("libnccl.so.2 did not load: ") + (why ? why : "unknown");
    return;
  }
  if (!load_symbol(nccl->library, "ncclCommInitAll", nccl->comm_init_all) ||
      !load_symbol(nccl->library, "ncclCommDestroy", nccl->comm_destroy) ||
      !load_symbol(nccl->library, "ncclGroupStart", nccl->group_start) ||
      !load_symbol(nccl->library, "ncclGroupEnd", nccl->group_end) ||
      !load_symbol(nccl->library, "ncclSend", nccl->send) || !load_symbol(nccl->library, "ncclRecv", nccl->recv) ||
      !load_symbol(nccl->library, "ncclGetErrorString", nccl->error_string)) {
    reason_ = "libnccl.so.2 lacks ncclSend or ncclRecv (NCCL before 2.7)";
    return;
  }
  nccl->devices = distinct;
  nccl->comms.assign(distinct.size(), nullptr);
  const ncclResult_t result =
      nccl->comm_init_all(nccl->comms.data(), static_cast<int>(distinct.size()), distinct.data());
  if (result != ncclSuccess) {  // peer copies still give the right sums
    reason_ = std::string("ncclCommInitAll failed: ") + nccl->error_string(result);
    std::fill(nccl->comms.begin(), nccl->comms.end(), nullptr);
    return;
  }
  nccl_ = std::move(nccl);
}

#else  // no nccl.h at build time

struct PeerTransfers::Nccl {};

PeerTransfers::PeerTransfers(const std::vector<int>&) : reason_("built without NCCL's header") {}

#endif

PeerTransfers::~PeerTransfers() = default;

void PeerTransfers::run(const std::vector<PeerCopy>& copies) {
  bool grouped = false;
  for (const PeerCopy& copy : copies) {
    if (copy.count == 0) continue;
    const std::size_t bytes = copy.count * sizeof(double);
    if (copy.to_device == copy.from_device) {
      DeviceGuard guard(copy.from_device);
      SNAPML_CUDA_CHECK(cudaMemcpyAsync(copy.to, copy.from, bytes, cudaMemcpyDeviceToDevice, copy.from_stream));
    } else if (!nccl_) {
      DeviceGuard guard(copy.from_device);
      SNAPML_CUDA_CHECK(
          cudaMemcpyPeerAsync(copy.to, copy.to_device, copy.from, copy.from_device, bytes, copy.from_stream));
    } else {
      grouped = true;
    }
  }
#if defined(SNAPML_HAVE_NCCL_HEADER)
  if (!grouped) return;
  const Nccl& n = *nccl_;
  n.check(n.group_start(), "ncclGroupStart()");
  try {
    for (const PeerCopy& copy : copies) {
      if (copy.count == 0 || copy.to_device == copy.from_device) continue;
      const int from = n.rank(copy.from_device), to = n.rank(copy.to_device);
      n.check(n.send(copy.from, copy.count, ncclDouble, to, n.comms[from], copy.from_stream), "ncclSend(...)");
      n.check(n.recv(copy.to, copy.count, ncclDouble, from, n.comms[to], copy.to_stream), "ncclRecv(...)");
    }
  } catch (...) {
    n.group_end();
    throw;
  }
  n.check(n.group_end(), "ncclGroupEnd()");
#else
  (void)grouped;
#endif
}

}  // namespace snapml::cuda
