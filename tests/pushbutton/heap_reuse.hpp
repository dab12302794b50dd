// Shared by heap_reuse.cpp and its twin: one worker's private use of every
// allocator of the C and C++ libraries, each block filled, checked and freed.
// Small blocks come back from the C library's caches at once, so the other
// worker soon gets blocks this one freed.
#pragma once

#include <malloc.h>
#include <stdlib.h>

#include <cassert>
#include <cstring>
#include <new>

struct alignas(64) wide {
  long words[8];
};

static void fill(unsigned char* p, std::size_t n, int id) {
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>(id);
}

static void check(const unsigned char* p, std::size_t n, int id) {
  for (std::size_t i = 0; i < n; ++i) assert(p[i] == static_cast<unsigned char>(id));
}

static void churn(int id) {
  for (int round = 0; round < 3; ++round) {
    auto* m = static_cast<unsigned char*>(malloc(48));
    fill(m, 48, id);
    check(m, 48, id);
    m = static_cast<unsigned char*>(realloc(m, 96));
    fill(m, 96, id);
    free(m);
    auto* c = static_cast<unsigned char*>(calloc(6, 8));
    check(c, 48, 0);
    fill(c, 48, id);
    free(c);
    auto* a = static_cast<unsigned char*>(aligned_alloc(32, 64));
    fill(a, 64, id);
    free(a);
    void* p = nullptr;
    if (posix_memalign(&p, 64, 48) == 0) {
      fill(static_cast<unsigned char*>(p), 48, id);
      free(p);
    }
    auto* ma = static_cast<unsigned char*>(memalign(16, 48));
    fill(ma, 48, id);
    free(ma);
    auto* n = new long[6];
    fill(reinterpret_cast<unsigned char*>(n), sizeof(long) * 6, id);
    delete[] n;
    auto* one = new long(id);
    assert(*one == id);
    delete one;
    auto* w = new wide{};
    w->words[0] = id;
    delete w;
    auto* nothrow = new (std::nothrow) long[6];
    nothrow[0] = id;
    delete[] nothrow;
  }
}
