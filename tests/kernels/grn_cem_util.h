// fields files written by tests (cem_file.h): nets drawn at random or made by hand, the file's
// bytes and a file of the test's own.
#ifndef MJGRANULAR_TESTS_GRN_CEM_UTIL_H_
#define MJGRANULAR_TESTS_GRN_CEM_UTIL_H_

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cem_file.h"
#include "grn_cem.h"

namespace grn_cem_test {

// a net as the file and the field array hold it
struct Net {
  std::vector<int> width;
  std::vector<float> numbers;  // per layer weights (out x in) then biases
  // layer sizes from widths, numbers drawn from rng with the spread given (0: zeros)
  static Net Random(std::vector<int> width, std::mt19937* rng, float spread) {
    Net n;
    n.width = width;
    std::normal_distribution<float> normal(0, spread > 0 ? spread : 1);
    for (size_t l = 0; l + 1 < width.size(); l++) {
      for (int k = 0; k < width[l + 1] * (width[l] + 1); k++) {
        n.numbers.push_back(spread > 0 ? normal(*rng) : 0.0f);
      }
    }
    return n;
  }
  // as the field array lays a net out
  std::vector<float> Packed() const {
    grnCemNet net = {};
    net.nlayer = (int)width.size() - 1;
    for (size_t l = 0; l < width.size(); l++) net.width[l] = width[l];
    net.numbers = const_cast<float*>(numbers.data());
    net.nnumber = (int)numbers.size();
    std::vector<float> out((size_t)grn_cem_pack_net(&net, nullptr, 0));
    grn_cem_pack_net(&net, out.data(), 0);
    return out;
  }
};

// a distance net that grows with the l1 norm of t / L (an octahedron's gauge, smoothed): hidden
// units silu(beta (+-t_i)) / beta ~ max(+-t_i, 0), summed, less c: a pair that meets when
// |t|_1 < c L, pushed apart along the gradient of the l1 norm
inline Net OctahedronNet(float beta, float c) {
  Net n;
  n.width = {GRN_CEM_INPUTS, 6, 1};
  for (int h = 0; h < 6; h++) {
    for (int k = 0; k < GRN_CEM_INPUTS; k++) {
      n.numbers.push_back(k == h / 2 ? (h % 2 ? -beta : beta) : 0.0f);
    }
  }
  for (int h = 0; h < 6; h++) n.numbers.push_back(0);  // hidden biases
  for (int h = 0; h < 6; h++) n.numbers.push_back(1 / beta);
  n.numbers.push_back(-c);
  return n;
}

// the arm net that says nothing: zero projections
inline Net ZeroArmNet() {
  std::mt19937 none;
  return Net::Random({GRN_CEM_INPUTS, 4, 2}, &none, 0);
}

// a fields file's bytes: types (name, fingerprint, bound) and pairs (a, b, L, nets)
struct FileType {
  std::string name;
  uint64_t fingerprint;
  float bound;
};
struct FilePair {
  int a, b;
  float scale;
  Net distance, arm;
};

template <typename T>
inline void Put(std::string* s, T v) {
  s->append(reinterpret_cast<const char*>(&v), sizeof(v));
}

inline std::string FileBytes(const std::vector<FileType>& types,
                             const std::vector<FilePair>& pairs) {
  std::string s = "MJGCEM02";
  Put<uint32_t>(&s, (uint32_t)types.size());
  Put<uint32_t>(&s, (uint32_t)pairs.size());
  for (const FileType& t : types) {
    std::string name = t.name;
    name.resize(GRN_CEM_NAME_SIZE, '\0');
    s += name;
    Put<uint64_t>(&s, t.fingerprint);
    Put<float>(&s, t.bound);
  }
  for (const FilePair& p : pairs) {
    Put<uint32_t>(&s, (uint32_t)p.a);
    Put<uint32_t>(&s, (uint32_t)p.b);
    Put<float>(&s, p.scale);
    for (const Net* n : {&p.distance, &p.arm}) {
      Put<uint32_t>(&s, (uint32_t)(n->width.size() - 1));
      for (int w : n->width) Put<uint32_t>(&s, (uint32_t)w);
      for (float v : n->numbers) Put<float>(&s, v);
    }
  }
  return s;
}

// bytes written to a file of the test's own (the process id in its name: tests of one tag run in
// several processes at once under ctest -j or gtest shards); returns its path
inline std::string WriteTemp(const std::string& bytes, const char* tag) {
  std::string path = ::testing::TempDir() + "cem_" + tag + "_" + std::to_string(getpid()) + ".cem";
  FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_NE(f, nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  return path;
}

}  // namespace grn_cem_test

#endif  // MJGRANULAR_TESTS_GRN_CEM_UTIL_H_
