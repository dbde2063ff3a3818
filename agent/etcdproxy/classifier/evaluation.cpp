#include "agent/etcdproxy/classifier/evaluation.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>

namespace fed::etcdproxy::classifier {

void Confusion::add(int truth, int predicted) {
  ++counts.at(static_cast<std::size_t>(truth)).at(static_cast<std::size_t>(predicted));
}

ClassScores Confusion::scores(int cls) const {
  const auto c = static_cast<std::size_t>(cls);
  std::size_t tp = counts[c][c], fp = 0, fn = 0;
  for (std::size_t o = 0; o < kClassCount; ++o) {
    if (o == c) continue;
    fp += counts[o][c];
    fn += counts[c][o];
  }
  ClassScores s;
  s.support = tp + fn;
  s.precision = tp + fp == 0 ? 0 : 100.0 * static_cast<double>(tp) / static_cast<double>(tp + fp);
  s.recall = tp + fn == 0 ? 0 : 100.0 * static_cast<double>(tp) / static_cast<double>(tp + fn);
  s.f1 = s.precision + s.recall == 0 ? 0 : 2 * s.precision * s.recall / (s.precision + s.recall);
  return s;
}

double Confusion::accuracy() const {
  std::size_t right = 0, all = 0;
  for (std::size_t t = 0; t < kClassCount; ++t) {
    for (std::size_t p = 0; p < kClassCount; ++p) {
      all += counts[t][p];
      if (t == p) right += counts[t][p];
    }
  }
  return all == 0 ? 0 : 100.0 * static_cast<double>(right) / static_cast<double>(all);
}

std::vector<std::size_t> test_indices(const Dataset& data, const EvaluationParams& params, int k) {
  std::mt19937_64 rng(params.seed * 1000003ULL + static_cast<unsigned>(k));
  std::vector<std::size_t> out;
  if (params.split_by == SplitBy::Rows) {
    std::array<std::vector<std::size_t>, kClassCount> by_class;
    for (std::size_t i = 0; i < data.labels.size(); ++i) {
      by_class[static_cast<std::size_t>(data.labels[i])].push_back(i);
    }
    for (auto& rows : by_class) {
      std::shuffle(rows.begin(), rows.end(), rng);
      const auto n =
          static_cast<std::size_t>(params.test_fraction * static_cast<double>(rows.size()) + 0.5);
      out.insert(out.end(), rows.begin(), rows.begin() + static_cast<long>(n));
    }
  } else {
    // Episodes of each class, shuffled; take whole episodes until the class' share is reached.
    std::map<int, std::pair<int, std::vector<std::size_t>>> episodes;  // id -> (label, rows)
    for (std::size_t i = 0; i < data.labels.size(); ++i) {
      auto& e = episodes[data.episodes[i]];
      e.first = data.labels[i];
      e.second.push_back(i);
    }
    std::array<std::vector<const std::vector<std::size_t>*>, kClassCount> by_class;
    std::array<std::size_t, kClassCount> rows_of{};
    for (const auto& [id, e] : episodes) {
      by_class[static_cast<std::size_t>(e.first)].push_back(&e.second);
      rows_of[static_cast<std::size_t>(e.first)] += e.second.size();
    }
    for (std::size_t c = 0; c < kClassCount; ++c) {
      auto& eps = by_class[c];
      std::shuffle(eps.begin(), eps.end(), rng);
      const double want = params.test_fraction * static_cast<double>(rows_of[c]);
      std::size_t taken = 0;
      for (std::size_t j = 0; j < eps.size(); ++j) {
        // Always leave at least one episode of the class for training.
        if (taken >= want || j + 1 == eps.size()) break;
        out.insert(out.end(), eps[j]->begin(), eps[j]->end());
        taken += eps[j]->size();
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<EvaluationResult> evaluate(const Dataset& data, const EvaluationParams& params) {
  if (data.x.rows() != data.labels.size() || data.labels.empty()) {
    return fail(ErrorCode::Invalid, "evaluate: empty dataset or rows and labels differ");
  }
  EvaluationResult result;
  for (auto& f : result.f1_min) f = 100;
  for (int k = 0; k < params.splits; ++k) {
    const auto test = test_indices(data, params, k);
    const std::set<std::size_t> in_test(test.begin(), test.end());
    Matrix train_x, test_x;
    train_x.cols = test_x.cols = data.x.cols;
    std::vector<int> train_y, test_y;
    for (std::size_t i = 0; i < data.labels.size(); ++i) {
      const auto row = data.x.row(i);
      auto& x = in_test.count(i) ? test_x : train_x;
      auto& y = in_test.count(i) ? test_y : train_y;
      x.values.insert(x.values.end(), row.begin(), row.end());
      y.push_back(data.labels[i]);
    }
    if (test_y.empty() || train_y.empty()) {
      return fail(ErrorCode::Invalid, "evaluate: a split left no test or no training rows");
    }
    TrainParams tp = params.train;
    tp.seed = params.seed + static_cast<unsigned>(k);
    FED_ASSIGN_OR_RETURN(auto model, XgbModel::train(train_x, train_y, tp));
    FED_ASSIGN_OR_RETURN(auto predicted, model.predict(test_x));
    Confusion split;
    for (std::size_t i = 0; i < test_y.size(); ++i) {
      split.add(test_y[i], predicted[i]);
      result.total.add(test_y[i], predicted[i]);
    }
    for (int c = 0; c < kClassCount; ++c) {
      const auto s = split.scores(c);
      auto& m = result.mean[static_cast<std::size_t>(c)];
      m.precision += s.precision / params.splits;
      m.recall += s.recall / params.splits;
      m.f1 += s.f1 / params.splits;
      m.support += s.support;
      auto& lo = result.f1_min[static_cast<std::size_t>(c)];
      lo = std::min(lo, s.f1);
    }
    result.accuracy += split.accuracy() / params.splits;
    result.train_rows = train_y.size();
    result.test_rows = test_y.size();
  }
  return result;
}

std::string format_evaluation(const EvaluationResult& result) {
  std::string out =
      "| class | precision % | recall % | F1 % (mean) | F1 % (worst split) | test rows |\n"
      "|---|---:|---:|---:|---:|---:|\n";
  char line[200];
  for (int c = 0; c < kClassCount; ++c) {
    const auto& m = result.mean[static_cast<std::size_t>(c)];
    std::snprintf(line, sizeof(line), "| %d %s | %.2f | %.2f | %.2f | %.2f | %zu |\n", c,
                  std::string(to_string(static_cast<LeaderState>(c))).c_str(), m.precision,
                  m.recall, m.f1, result.f1_min[static_cast<std::size_t>(c)], m.support);
    out += line;
  }
  std::snprintf(line, sizeof(line), "accuracy %.2f %% (mean over the splits)\n", result.accuracy);
  out += line;
  return out;
}

}  // namespace fed::etcdproxy::classifier
