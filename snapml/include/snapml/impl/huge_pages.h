// Transparent huge pages for the large arrays a pass reads at random.
//
// An SDCA epoch visits rows in a random order: every row's indices, values,
// offset, dual variable and norm, and the weights its columns pick, sit on pages
// no recent access touched. With 4 KiB pages most of those accesses also miss
// the TLB (a click log's 260 MB of rows span 64,000 pages; a core's TLB holds a
// few thousand). 2 MiB pages cut the page walks; on the click-log benchmark an
// epoch took 5 to 7 % less with them (docs/benchmarks/criteo.md). Linux backs an
// anonymous mapping with them where it was advised to (MADV_HUGEPAGE) when the
// system's setting is "madvise", the common default.
#pragma once

#include <cstddef>
#include <vector>

namespace snapml {

// Advises the kernel to back the whole 2 MiB pages inside [data, data + bytes)
// with huge pages. Advice only: it never changes results, does nothing off Linux,
// below 2 MiB or where the kernel refuses, and it only helps memory not yet
// written (pages already touched stay small until the kernel collapses them).
void advise_huge_pages(void* data, std::size_t bytes);

// Reserves room for n elements and advises huge pages on it, before the caller
// fills it (assign, resize, insert): the pages are then first touched under the
// advice. A vector that already holds the room keeps its pages.
template <typename T>
void reserve_huge_pages(std::vector<T>& values, std::size_t n) {
  if (values.capacity() >= n) return;
  values.reserve(n);
  advise_huge_pages(values.data(), n * sizeof(T));
}

}  // namespace snapml
