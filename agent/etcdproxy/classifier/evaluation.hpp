#pragma once
// Classifier evaluation as the thesis reports it: per-class precision, recall and F1, averaged
// over repeated random train/test splits. Two ways to split:
//   Rows     - shuffle rows (what a plain train_test_split does; neighbouring periods of one
//              episode land on both sides, which flatters any classifier on time series);
//   Episodes - whole episodes go to one side (the honest estimate for unseen conditions).

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "agent/etcdproxy/classifier/dataset_csv.hpp"
#include "agent/etcdproxy/classifier/xgb_model.hpp"
#include "shared/result/result.hpp"

namespace fed::etcdproxy::classifier {

struct ClassScores {
  double precision = 0;
  double recall = 0;
  double f1 = 0;
  std::size_t support = 0;  // true rows of the class in the test set(s)
};

// A confusion matrix: counts[truth][predicted].
struct Confusion {
  std::array<std::array<std::size_t, kClassCount>, kClassCount> counts{};
  void add(int truth, int predicted);
  ClassScores scores(int cls) const;
  double accuracy() const;
};

enum class SplitBy { Rows, Episodes };

struct EvaluationParams {
  int splits = 10;
  double test_fraction = 0.25;
  SplitBy split_by = SplitBy::Rows;
  unsigned seed = 1;
  TrainParams train;
};

struct EvaluationResult {
  std::array<ClassScores, kClassCount> mean;  // per-class means over the splits (%)
  std::array<double, kClassCount> f1_min{};   // worst split per class (%)
  double accuracy = 0;                        // mean (%)
  Confusion total;                            // summed over the splits
  std::size_t train_rows = 0, test_rows = 0;  // of the last split
};

// Test-set row indices of split `k` (deterministic in seed and k). Stratified by class for
// Rows; for Episodes, whole episodes of each class are drawn until test_fraction is reached.
std::vector<std::size_t> test_indices(const Dataset& data, const EvaluationParams& params, int k);

// Trains and tests params.splits times and averages the per-class scores.
Result<EvaluationResult> evaluate(const Dataset& data, const EvaluationParams& params);

// A markdown table: per class precision / recall / F1 (mean and worst split), then accuracy.
std::string format_evaluation(const EvaluationResult& result);

}  // namespace fed::etcdproxy::classifier
