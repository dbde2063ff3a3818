#include "agent/etcdproxy/classifier/xgb_model.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

#include "tests/unit/agent/etcdproxy/classifier/synthetic.hpp"

using namespace fed::etcdproxy::classifier;
using fed::etcdproxy::classifier::testing::synthetic;

TEST_CASE("XGBoost learns separable classes, saves and loads the same model") {
  Matrix train, test;
  std::vector<int> ytrain, ytest;
  synthetic(400, 1, train, ytrain);
  synthetic(200, 2, test, ytest);
  auto model = XgbModel::train(train, ytrain, {.num_class = 4, .rounds = 20, .max_depth = 3});
  REQUIRE(model);
  CHECK(model->num_class() == 4);
  CHECK(model->num_features() == 3);
  auto predicted = model->predict(test);
  REQUIRE(predicted);
  std::size_t right = 0;
  for (std::size_t i = 0; i < ytest.size(); ++i) right += (*predicted)[i] == ytest[i] ? 1 : 0;
  CHECK(right == ytest.size());

  auto proba = model->predict_proba(test);
  REQUIRE(proba);
  CHECK(proba->size() == test.rows() * 4);
  CHECK((*proba)[0] + (*proba)[1] + (*proba)[2] + (*proba)[3] == doctest::Approx(1.0));

  const auto path = std::filesystem::temp_directory_path() / "fed_xgb_model_test.json";
  REQUIRE(model->save(path.string()));
  auto loaded = XgbModel::load(path.string());
  std::filesystem::remove(path);
  REQUIRE(loaded);
  CHECK(loaded->num_class() == 4);
  CHECK(loaded->num_features() == 3);
  auto again = loaded->predict_proba(test);
  REQUIRE(again);
  for (std::size_t i = 0; i < proba->size(); ++i)
    CHECK((*again)[i] == doctest::Approx((*proba)[i]));

  // Missing values (NaN) are accepted.
  Matrix gap;
  gap.cols = 3;
  gap.values = {1.0f, std::numeric_limits<float>::quiet_NaN(), 0.0f};
  CHECK(model->predict(gap));
}

TEST_CASE("XGBoost errors are values: bad labels, shapes and files") {
  Matrix x;
  std::vector<int> y;
  synthetic(8, 3, x, y);
  y[0] = 7;
  auto bad = XgbModel::train(x, y, {});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().find("label 7") != std::string::npos);
  y.pop_back();
  CHECK_FALSE(XgbModel::train(x, y, {}));
  auto missing = XgbModel::load("/nonexistent/model.json");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message().find("/nonexistent/model.json") != std::string::npos);
  synthetic(8, 3, x, y = {});
  y.resize(x.rows());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = static_cast<int>(i % 4);
  auto model = XgbModel::train(x, y, {.rounds = 2});
  REQUIRE(model);
  Matrix wrong;
  wrong.cols = 2;
  wrong.values = {1, 2};
  CHECK_FALSE(model->predict(wrong));
}
