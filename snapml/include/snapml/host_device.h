// Marks functions that both the CPU solvers and the CUDA kernels call.
//
// The maths of each loss is written once, in a header, with SNAPML_HOST_DEVICE on
// every function; nvcc compiles it for the device, the host compiler sees an empty
// macro. There is never a second copy of the maths in cuda/.
#pragma once

#if defined(__CUDACC__)
#define SNAPML_HOST_DEVICE __host__ __device__
#define SNAPML_INLINE __forceinline__
#else
#define SNAPML_HOST_DEVICE
#define SNAPML_INLINE inline
#endif
