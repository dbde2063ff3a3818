#include "agent/etcdproxy/classifier/xgb_model.hpp"

#include <xgboost/c_api.h>

#include <cmath>
#include <limits>
#include <string>

#include "shared/raii/c_handle.hpp"

namespace fed::etcdproxy::classifier {
namespace {

// DMatrixHandle and BoosterHandle are both void*.
using DMatrix = CHandle<void, XGDMatrixFree>;
using BoosterPtr = CHandle<void, XGBoosterFree>;

Error xgb_error(std::string_view what) {
  return Error(ErrorCode::Internal, "xgboost " + std::string(what) + ": " + XGBGetLastError());
}

Result<DMatrix> make_dmatrix(const Matrix& x) {
  if (x.cols == 0 || x.values.size() % x.cols != 0) {
    return fail(ErrorCode::Invalid, "feature matrix: " + std::to_string(x.values.size()) +
                                        " values do not make rows of " + std::to_string(x.cols));
  }
  DMatrixHandle h = nullptr;
  if (XGDMatrixCreateFromMat(x.values.data(), x.rows(), x.cols,
                             std::numeric_limits<float>::quiet_NaN(), &h) != 0) {
    return xgb_error("XGDMatrixCreateFromMat");
  }
  return DMatrix(h);
}

Status set_param(void* booster, const char* key, const std::string& value) {
  if (XGBoosterSetParam(booster, key, value.c_str()) != 0) {
    return xgb_error(std::string("XGBoosterSetParam ") + key);
  }
  return ok();
}

Result<BoosterPtr> make_booster(DMatrixHandle* cache, bst_ulong n) {
  BoosterHandle h = nullptr;
  if (XGBoosterCreate(cache, n, &h) != 0) return xgb_error("XGBoosterCreate");
  return BoosterPtr(h);
}

}  // namespace

struct XgbModel::Booster {
  BoosterPtr handle;
};

XgbModel::XgbModel(std::unique_ptr<Booster> booster, int num_class, std::size_t num_features)
    : booster_(std::move(booster)), num_class_(num_class), num_features_(num_features) {}
XgbModel::XgbModel(XgbModel&&) noexcept = default;
XgbModel& XgbModel::operator=(XgbModel&&) noexcept = default;
XgbModel::~XgbModel() = default;

Result<XgbModel> XgbModel::train(const Matrix& x, std::span<const int> labels,
                                 const TrainParams& params) {
  if (labels.size() != x.rows() || x.rows() == 0) {
    return fail(ErrorCode::Invalid, "training set: " + std::to_string(x.rows()) + " rows but " +
                                        std::to_string(labels.size()) + " labels");
  }
  std::vector<float> y;
  y.reserve(labels.size());
  for (const int l : labels) {
    if (l < 0 || l >= params.num_class) {
      return fail(ErrorCode::Invalid, "label " + std::to_string(l) + " outside 0.." +
                                          std::to_string(params.num_class - 1));
    }
    y.push_back(static_cast<float>(l));
  }
  FED_ASSIGN_OR_RETURN(auto dtrain, make_dmatrix(x));
  if (XGDMatrixSetFloatInfo(dtrain.get(), "label", y.data(), y.size()) != 0) {
    return xgb_error("XGDMatrixSetFloatInfo label");
  }
  DMatrixHandle cache[] = {dtrain.get()};
  FED_ASSIGN_OR_RETURN(auto booster, make_booster(cache, 1));
  FED_TRY(set_param(booster.get(), "objective", "multi:softprob"));
  FED_TRY(set_param(booster.get(), "num_class", std::to_string(params.num_class)));
  FED_TRY(set_param(booster.get(), "max_depth", std::to_string(params.max_depth)));
  FED_TRY(set_param(booster.get(), "eta", std::to_string(params.eta)));
  FED_TRY(set_param(booster.get(), "subsample", std::to_string(params.subsample)));
  FED_TRY(set_param(booster.get(), "nthread", std::to_string(params.threads)));
  FED_TRY(set_param(booster.get(), "seed", std::to_string(params.seed)));
  // exact splits halfway between neighbouring values (hist splits on a sample value), which
  // generalises better on the few thousand rows a dataset run gives.
  FED_TRY(set_param(booster.get(), "tree_method", "exact"));
  FED_TRY(set_param(booster.get(), "verbosity", "0"));
  for (int i = 0; i < params.rounds; ++i) {
    if (XGBoosterUpdateOneIter(booster.get(), i, dtrain.get()) != 0) {
      return xgb_error("XGBoosterUpdateOneIter");
    }
  }
  auto b = std::make_unique<Booster>();
  b->handle = std::move(booster);
  return XgbModel(std::move(b), params.num_class, x.cols);
}

Result<XgbModel> XgbModel::load(const std::string& path, int threads) {
  FED_ASSIGN_OR_RETURN(auto booster, make_booster(nullptr, 0));
  if (XGBoosterLoadModel(booster.get(), path.c_str()) != 0) {
    return Error(ErrorCode::Invalid, "cannot load the classifier model " + path + ": " +
                                         XGBGetLastError() +
                                         " (train one with fed-etcd-classifier)");
  }
  FED_TRY(set_param(booster.get(), "nthread", std::to_string(threads)));
  bst_ulong features = 0;
  if (XGBoosterGetNumFeature(booster.get(), &features) != 0) {
    return xgb_error("XGBoosterGetNumFeature");
  }
  // num_class is in the learner's JSON config; probing with one empty row is simpler.
  Matrix probe;
  probe.cols = static_cast<std::size_t>(features);
  probe.values.assign(probe.cols, std::numeric_limits<float>::quiet_NaN());
  auto b = std::make_unique<Booster>();
  b->handle = std::move(booster);
  XgbModel model(std::move(b), 1, probe.cols);
  FED_ASSIGN_OR_RETURN(auto p, model.predict_proba(probe));
  model.num_class_ = static_cast<int>(p.size());
  return model;
}

Status XgbModel::save(const std::string& path) const {
  if (XGBoosterSaveModel(booster_->handle.get(), path.c_str()) != 0) {
    return Error(ErrorCode::Internal,
                 "cannot save the classifier model to " + path + ": " + XGBGetLastError());
  }
  return ok();
}

Result<std::vector<float>> XgbModel::predict_proba(const Matrix& x) const {
  if (x.cols != num_features_) {
    return fail(ErrorCode::Invalid, "the model takes " + std::to_string(num_features_) +
                                        " features, the rows have " + std::to_string(x.cols));
  }
  FED_ASSIGN_OR_RETURN(auto d, make_dmatrix(x));
  bst_ulong len = 0;
  const float* out = nullptr;  // owned by the booster until its next call
  if (XGBoosterPredict(booster_->handle.get(), d.get(), 0, 0, 0, &len, &out) != 0) {
    return xgb_error("XGBoosterPredict");
  }
  if (x.rows() == 0 || len % x.rows() != 0) {
    return fail(ErrorCode::Internal, "xgboost returned " + std::to_string(len) + " values for " +
                                         std::to_string(x.rows()) + " rows");
  }
  return std::vector<float>(out, out + len);
}

Result<std::vector<int>> XgbModel::predict(const Matrix& x) const {
  FED_ASSIGN_OR_RETURN(auto p, predict_proba(x));
  const std::size_t k = static_cast<std::size_t>(num_class_);
  std::vector<int> out;
  out.reserve(x.rows());
  for (std::size_t r = 0; r < x.rows(); ++r) {
    std::size_t best = 0;
    for (std::size_t c = 1; c < k; ++c) {
      if (p[r * k + c] > p[r * k + best]) best = c;
    }
    out.push_back(static_cast<int>(best));
  }
  return out;
}

}  // namespace fed::etcdproxy::classifier
