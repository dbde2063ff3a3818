#include "agent/etcdproxy/classifier/evaluation.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <sstream>

#include "agent/etcdproxy/classifier/dataset_csv.hpp"
#include "tests/unit/agent/etcdproxy/classifier/synthetic.hpp"

using namespace fed::etcdproxy::classifier;
using fed::etcdproxy::classifier::testing::synthetic;

TEST_CASE("evaluation over splits: per-class scores, row and episode splits, CSV round trip") {
  Dataset d;
  std::vector<int> y;
  synthetic(400, 4, d.x, y);
  d.labels = y;
  for (std::size_t i = 0; i < y.size(); ++i)
    d.episodes.push_back(static_cast<int>(i / 4 % 10) * 4 + y[i]);
  d.feature_columns = {"a", "b", "noise"};
  EvaluationParams p;
  p.splits = 3;
  p.train.rounds = 10;
  auto rows = evaluate(d, p);
  REQUIRE(rows);
  for (int c = 0; c < kClassCount; ++c) CHECK(rows->mean[static_cast<std::size_t>(c)].f1 > 99.0);
  CHECK(rows->test_rows == 100);
  p.split_by = SplitBy::Episodes;
  const auto test = test_indices(d, p, 0);
  std::set<int> test_episodes, train_episodes;
  for (std::size_t i = 0; i < d.labels.size(); ++i) {
    (std::binary_search(test.begin(), test.end(), i) ? test_episodes : train_episodes)
        .insert(d.episodes[i]);
  }
  for (const int e : test_episodes) CHECK(train_episodes.count(e) == 0);
  CHECK_FALSE(test_episodes.empty());
  CHECK(evaluate(d, p));

  Confusion c;
  c.add(0, 0);
  c.add(0, 1);
  c.add(1, 1);
  const auto s1 = c.scores(1);
  CHECK(s1.precision == doctest::Approx(50));
  CHECK(s1.recall == doctest::Approx(100));
  CHECK(s1.f1 == doctest::Approx(66.6667));
  CHECK(c.accuracy() == doctest::Approx(66.6667));

  DatasetRow row;
  row.episode = 3;
  row.second = 1.5;
  row.label = 2;
  row.features.fill(0.25f);
  row.features[1] = std::numeric_limits<float>::quiet_NaN();
  std::stringstream csv(csv_header() + "\n" + csv_row(row) + "\n");
  auto back = read_dataset(csv);
  REQUIRE(back);
  CHECK(back->x.cols == kFeatureCount);
  CHECK(back->labels == std::vector<int>{2});
  CHECK(back->episodes == std::vector<int>{3});
  CHECK(std::isnan(back->x.values[1]));
  CHECK(back->first_columns(kPaperFeatureCount).x.cols == 5);
  std::stringstream broken(csv_header() + "\n1,0,9,0,0\n");
  auto err = read_dataset(broken);
  REQUIRE_FALSE(err);
  CHECK(err.error().message().find("line 2") != std::string::npos);
}
