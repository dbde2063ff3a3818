#pragma once
// A multi-class XGBoost model (objective multi:softprob) over dense float rows, trained and
// evaluated through XGBoost's C API. The C handles live only in xgb_model.cpp, each owned by
// an RAII holder; no XGBoost header leaks out of it. Missing values are NaN.
//
//   auto m = XgbModel::train(rows, labels, params);  m->predict(rows);  m->save("leader.json");

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "shared/result/result.hpp"

namespace fed::etcdproxy::classifier {

// Row-major samples: rows() x cols() floats.
struct Matrix {
  std::size_t cols = 0;
  std::vector<float> values;
  std::size_t rows() const { return cols == 0 ? 0 : values.size() / cols; }
  std::span<const float> row(std::size_t i) const { return {values.data() + i * cols, cols}; }
};

struct TrainParams {
  int num_class = 4;
  int rounds = 60;  // boosting iterations
  int max_depth = 6;
  double eta = 0.3;
  double subsample = 1.0;
  int threads = 1;  // the machine is shared; inference needs one
  unsigned seed = 0;
};

class XgbModel final {
 public:
  // Trains on `x` with class labels 0..num_class-1 (one per row).
  static Result<XgbModel> train(const Matrix& x, std::span<const int> labels,
                                const TrainParams& params);
  // Loads a model saved by save() (XGBoost's JSON or binary format, by extension).
  static Result<XgbModel> load(const std::string& path, int threads = 1);

  XgbModel(XgbModel&&) noexcept;
  XgbModel& operator=(XgbModel&&) noexcept;
  ~XgbModel();  // frees the booster

  Status save(const std::string& path) const;
  // Class probabilities, rows() x num_class, row-major.
  Result<std::vector<float>> predict_proba(const Matrix& x) const;
  // The most probable class per row.
  Result<std::vector<int>> predict(const Matrix& x) const;
  int num_class() const { return num_class_; }
  std::size_t num_features() const { return num_features_; }

 private:
  struct Booster;
  XgbModel(std::unique_ptr<Booster> booster, int num_class, std::size_t num_features);
  std::unique_ptr<Booster> booster_;
  int num_class_ = 0;
  std::size_t num_features_ = 0;
};

}  // namespace fed::etcdproxy::classifier
