// fed-etcd-classifier: offline training and evaluation of the leader-health classifier from a
// dataset CSV (tests/bench/agent/etcdproxy/classifier_dataset_bench.cpp writes one).
//   fed-etcd-classifier evaluate --data dataset.csv [--features all|paper] [--split rows|episodes]
//                                [--splits 10] [--seed 1]
//   fed-etcd-classifier train --data dataset.csv --out model.json [--features all|paper]
// The proxy's leader+classifier policy loads the model (--classifier-model).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include "agent/etcdproxy/classifier/dataset_csv.hpp"
#include "agent/etcdproxy/classifier/evaluation.hpp"
#include "agent/etcdproxy/classifier/xgb_model.hpp"

using namespace fed;
using namespace fed::etcdproxy::classifier;

namespace {

Result<Dataset> load(const std::string& path, const std::string& features) {
  std::ifstream in(path);
  if (!in) return fail(ErrorCode::Invalid, "cannot read " + path);
  auto data = read_dataset(in);
  if (!data) return std::move(data).error().with_context(path);
  if (features == "paper") return data->first_columns(kPaperFeatureCount);
  if (features != "all") return fail(ErrorCode::Invalid, "--features: all or paper");
  if (data->x.cols != kFeatureCount) {
    return fail(ErrorCode::Invalid, path + " has " + std::to_string(data->x.cols) +
                                        " feature columns; the proxy computes " +
                                        std::to_string(kFeatureCount));
  }
  return data;
}

int report(const Error& e) {
  std::fprintf(stderr, "fed-etcd-classifier: %s\n", e.message().c_str());
  return e.code() == ErrorCode::Invalid ? 2 : 1;
}

}  // namespace

int main(int argc, char** argv) try {
  CLI::App app{"Train and evaluate the etcd leader-health classifier (XGBoost)"};
  app.require_subcommand(1);
  std::string data_path, features = "all", split = "rows", out;
  EvaluationParams params;
  auto* evaluate_cmd = app.add_subcommand("evaluate", "Per-class P/R/F1 over random splits");
  evaluate_cmd->add_option("--data", data_path, "Dataset CSV")->required();
  evaluate_cmd->add_option("--features", features, "all | paper (the thesis' five)")
      ->capture_default_str();
  evaluate_cmd->add_option("--split", split, "rows | episodes")->capture_default_str();
  evaluate_cmd->add_option("--splits", params.splits, "Number of splits")->capture_default_str();
  evaluate_cmd->add_option("--seed", params.seed, "Split seed")->capture_default_str();
  auto* train_cmd = app.add_subcommand("train", "Train on every row and save the model");
  train_cmd->add_option("--data", data_path, "Dataset CSV")->required();
  train_cmd->add_option("--out", out, "Model file (.json)")->required();
  train_cmd->add_option("--features", features, "all | paper")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  auto data = load(data_path, features);
  if (!data) return report(data.error());
  if (evaluate_cmd->parsed()) {
    if (split != "rows" && split != "episodes") {
      return report(Error(ErrorCode::Invalid, "--split: rows or episodes"));
    }
    params.split_by = split == "rows" ? SplitBy::Rows : SplitBy::Episodes;
    auto r = evaluate(*data, params);
    if (!r) return report(r.error());
    std::printf("%zu rows, %s features, %d splits by %s (%.0f %% test)\n%s", data->x.rows(),
                features.c_str(), params.splits, split.c_str(), params.test_fraction * 100,
                format_evaluation(*r).c_str());
    return 0;
  }
  auto model = XgbModel::train(data->x, data->labels, params.train);
  if (!model) return report(model.error());
  if (auto s = model->save(out); !s) return report(s.error());
  std::printf("model: %s (%zu rows, %zu features)\n", out.c_str(), data->x.rows(), data->x.cols);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "fed-etcd-classifier: %s\n", e.what());
  return 1;
}
