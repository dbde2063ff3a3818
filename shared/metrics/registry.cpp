#include "shared/metrics/registry.hpp"

#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdlib>

#include "shared/metrics/text_format.hpp"

namespace fed::metrics {
namespace detail {

void misuse(const std::string& message) {
  spdlog::critical("metrics registry misuse: {}", message);
  std::abort();
}

FamilyBase::FamilyBase(std::string name, std::string help, Type type,
                       std::vector<std::string> label_names, std::vector<double> buckets)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      label_names_(std::move(label_names)),
      buckets_(std::move(buckets)) {}

void FamilyBase::render_header(std::string& out) const {
  static constexpr const char* kTypeNames[] = {"counter", "gauge", "histogram"};
  out += "# HELP " + name_ + " " + escape_help(help_) + "\n";
  out += "# TYPE " + name_ + " " + kTypeNames[static_cast<int>(type_)] + "\n";
}

namespace {

// Appends `{a="x",b="y"}` (plus an optional trailing le label), or nothing without labels.
void append_labels(std::string& out, const std::vector<std::string>& names,
                   const std::vector<std::string>& values, const std::string* le = nullptr) {
  if (names.empty() && le == nullptr) return;
  out += '{';
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i != 0) out += ',';
    out += names[i] + "=\"" + escape_label_value(values[i]) + "\"";
  }
  if (le != nullptr) {
    if (!names.empty()) out += ',';
    out += "le=\"" + *le + "\"";
  }
  out += '}';
}

}  // namespace

void FamilyBase::render_child(std::string& out, const std::vector<std::string>& values,
                              const Counter& c) const {
  out += name_;
  append_labels(out, label_names_, values);
  out += " " + format_value(c.value()) + "\n";
}

void FamilyBase::render_child(std::string& out, const std::vector<std::string>& values,
                              const Gauge& g) const {
  out += name_;
  append_labels(out, label_names_, values);
  out += " " + format_value(g.value()) + "\n";
}

void FamilyBase::render_child(std::string& out, const std::vector<std::string>& values,
                              const Histogram& h) const {
  const Histogram::Snapshot s = h.snapshot();
  const auto& bounds = h.upper_bounds();
  for (std::size_t i = 0; i <= bounds.size(); ++i) {
    const std::string le = i < bounds.size() ? format_value(bounds[i]) : "+Inf";
    out += name_ + "_bucket";
    append_labels(out, label_names_, values, &le);
    out += " " + std::to_string(s.cumulative[i]) + "\n";
  }
  out += name_ + "_sum";
  append_labels(out, label_names_, values);
  out += " " + format_value(s.sum) + "\n";
  out += name_ + "_count";
  append_labels(out, label_names_, values);
  out += " " + std::to_string(s.count) + "\n";
}

namespace {

// A family with one unlabelled series whose value is read at render time.
class CallbackFamily final : public FamilyBase {
 public:
  CallbackFamily(std::string name, std::string help, Type type, std::function<double()> read)
      : FamilyBase(std::move(name), std::move(help), type, {}, {}), read_(std::move(read)) {}

  void render(std::string& out) const override {
    render_header(out);
    out += name() + " " + format_value(read_()) + "\n";
  }

 private:
  std::function<double()> read_;
};

}  // namespace
}  // namespace detail

namespace {

void validate(std::string_view name, Type type, const std::vector<std::string>& label_names,
              std::vector<double>& buckets) {
  const std::string n(name);
  if (!valid_metric_name(name)) detail::misuse("invalid metric name \"" + n + "\"");
  for (const auto& label : label_names) {
    if (!valid_label_name(label)) {
      detail::misuse("metric " + n + ": invalid label name \"" + label + "\"");
    }
    if (type == Type::Histogram && label == "le") {
      detail::misuse("metric " + n + ": histograms may not use the label \"le\"");
    }
  }
  if (type != Type::Histogram) return;
  if (!buckets.empty() && std::isinf(buckets.back()) && buckets.back() > 0) buckets.pop_back();
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    if (!std::isfinite(buckets[i]) || (i > 0 && buckets[i] <= buckets[i - 1])) {
      detail::misuse("metric " + n + ": buckets must be finite and strictly increasing");
    }
  }
}

}  // namespace

detail::FamilyBase* Registry::find_compatible(std::string_view name, Type type,
                                              const std::vector<std::string>& label_names,
                                              const std::vector<double>& buckets) {
  const auto it = families_.find(name);
  if (it == families_.end()) return nullptr;
  const detail::FamilyBase& f = *it->second;
  if (f.type() != type || f.label_names() != label_names || f.buckets() != buckets) {
    detail::misuse("metric " + std::string(name) +
                   " registered twice with a different kind, labels or buckets");
  }
  return it->second.get();
}

template <typename M>
Family<M>& Registry::family(std::string_view name, std::string_view help, Type type,
                            std::vector<std::string> label_names, std::vector<double> buckets) {
  validate(name, type, label_names, buckets);
  std::lock_guard lock(mu_);
  if (auto* existing = find_compatible(name, type, label_names, buckets)) {
    auto* typed = dynamic_cast<Family<M>*>(existing);
    if (typed == nullptr) detail::misuse("metric " + std::string(name) + " is a callback metric");
    return *typed;
  }
  auto owned = std::make_unique<Family<M>>(std::string(name), std::string(help), type,
                                           std::move(label_names), std::move(buckets));
  Family<M>& ref = *owned;
  families_.emplace(std::string(name), std::move(owned));
  return ref;
}

Counter& Registry::counter(std::string_view name, std::string_view help) {
  return counter_family(name, help, {}).with({});
}

Family<Counter>& Registry::counter_family(std::string_view name, std::string_view help,
                                          std::vector<std::string> label_names) {
  return family<Counter>(name, help, Type::Counter, std::move(label_names), {});
}

Gauge& Registry::gauge(std::string_view name, std::string_view help) {
  return gauge_family(name, help, {}).with({});
}

Family<Gauge>& Registry::gauge_family(std::string_view name, std::string_view help,
                                      std::vector<std::string> label_names) {
  return family<Gauge>(name, help, Type::Gauge, std::move(label_names), {});
}

Histogram& Registry::histogram(std::string_view name, std::string_view help,
                               std::vector<double> buckets) {
  return histogram_family(name, help, {}, std::move(buckets)).with({});
}

Family<Histogram>& Registry::histogram_family(std::string_view name, std::string_view help,
                                              std::vector<std::string> label_names,
                                              std::vector<double> buckets) {
  return family<Histogram>(name, help, Type::Histogram, std::move(label_names), std::move(buckets));
}

void Registry::callback(std::string_view name, std::string_view help, Type type,
                        std::function<double()> read) {
  if (type == Type::Histogram) detail::misuse("callback metrics are counters or gauges");
  std::vector<double> no_buckets;
  validate(name, type, {}, no_buckets);
  std::lock_guard lock(mu_);
  if (families_.contains(name)) {
    detail::misuse("metric " + std::string(name) + " registered twice");
  }
  families_.emplace(std::string(name),
                    std::make_unique<detail::CallbackFamily>(std::string(name), std::string(help),
                                                             type, std::move(read)));
}

std::string Registry::render() const {
  std::string out;
  std::lock_guard lock(mu_);
  for (const auto& [name, family] : families_) family->render(out);
  return out;
}

}  // namespace fed::metrics
