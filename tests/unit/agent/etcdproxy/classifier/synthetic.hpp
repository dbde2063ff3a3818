#pragma once
// Four separable classes in two features (x0: delay-like, x1: load-like) plus a noise column;
// class = 1*(x0 high) + 2*(x1 high), like the leader states. For the classifier's tests.

#include <cstddef>
#include <random>
#include <vector>

#include "agent/etcdproxy/classifier/xgb_model.hpp"

namespace fed::etcdproxy::classifier::testing {

inline void synthetic(std::size_t n, unsigned seed, Matrix& x, std::vector<int>& y) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0, 0.05f);
  x.cols = 3;
  for (std::size_t i = 0; i < n; ++i) {
    const int cls = static_cast<int>(i % 4);
    x.values.push_back(((cls & 1) ? 1.0f : 0.0f) + noise(rng));
    x.values.push_back(((cls & 2) ? 1.0f : 0.0f) + noise(rng));
    x.values.push_back(noise(rng) * 10);
    y.push_back(cls);
  }
}

}  // namespace fed::etcdproxy::classifier::testing
