#pragma once
// A Prometheus registry: named metric families with optional labels, rendered for /metrics
// in the text exposition format 0.0.4. One Registry per process, created in main and passed
// by reference to whatever records metrics (no global default registry).
//
//   auto& requests = registry.counter_family("fed_http_requests_total", "HTTP requests served.",
//                                            {"path", "code"});
//   requests.with({"/healthz", "200"}).inc();

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "shared/metrics/metric.hpp"

namespace fed::metrics {

enum class Type { Counter, Gauge, Histogram };

namespace detail {

// Registry misuse (bad names, label count mismatch, conflicting re-registration) is a bug in
// the caller: logs the message and aborts.
[[noreturn]] void misuse(const std::string& message);

// What every family shares; the Registry renders families through this.
class FamilyBase {
 public:
  FamilyBase(std::string name, std::string help, Type type, std::vector<std::string> label_names,
             std::vector<double> buckets);
  virtual ~FamilyBase() = default;
  FamilyBase(const FamilyBase&) = delete;
  FamilyBase& operator=(const FamilyBase&) = delete;

  // Appends the HELP and TYPE lines and every sample; nothing when there are no samples.
  virtual void render(std::string& out) const = 0;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  Type type() const { return type_; }
  const std::vector<std::string>& label_names() const { return label_names_; }
  const std::vector<double>& buckets() const { return buckets_; }

 protected:
  void render_header(std::string& out) const;
  void render_child(std::string& out, const std::vector<std::string>& values,
                    const Counter& c) const;
  void render_child(std::string& out, const std::vector<std::string>& values, const Gauge& g) const;
  void render_child(std::string& out, const std::vector<std::string>& values,
                    const Histogram& h) const;

 private:
  std::string name_;
  std::string help_;
  Type type_;
  std::vector<std::string> label_names_;
  std::vector<double> buckets_;
};

}  // namespace detail

// All series of one metric name: one child per distinct tuple of label values.
template <typename M>
class Family final : public detail::FamilyBase {
 public:
  Family(std::string name, std::string help, Type type, std::vector<std::string> label_names,
         std::vector<double> buckets)
      : FamilyBase(std::move(name), std::move(help), type, std::move(label_names),
                   std::move(buckets)) {}

  // The child for `label_values` (one per label name, in order), created at zero on first use.
  // The reference stays valid until remove() of the same values or the Registry's end.
  M& with(const std::vector<std::string>& label_values) {
    if (label_values.size() != label_names().size()) {
      detail::misuse("metric " + name() + " has " + std::to_string(label_names().size()) +
                     " labels but was given " + std::to_string(label_values.size()) + " values");
    }
    std::lock_guard lock(mu_);
    auto& slot = children_[label_values];
    if (!slot) slot = make();
    return *slot;
  }

  // Drops a series (for example of a peer that was removed) so it is no longer exported.
  void remove(const std::vector<std::string>& label_values) {
    std::lock_guard lock(mu_);
    children_.erase(label_values);
  }

  void render(std::string& out) const override {
    std::lock_guard lock(mu_);
    if (children_.empty()) return;
    render_header(out);
    for (const auto& [values, child] : children_) render_child(out, values, *child);
  }

 private:
  std::unique_ptr<M> make() const {
    if constexpr (std::is_same_v<M, Histogram>) {
      return std::make_unique<Histogram>(buckets());
    } else {
      return std::make_unique<M>();
    }
  }

  mutable std::mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<M>> children_;  // sorted: stable output
};

class Registry final {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Each accessor registers on first use and returns the existing family when called again
  // with the same name, kind, labels and buckets; any other reuse of a name is misuse.
  Counter& counter(std::string_view name, std::string_view help);
  Family<Counter>& counter_family(std::string_view name, std::string_view help,
                                  std::vector<std::string> label_names);
  Gauge& gauge(std::string_view name, std::string_view help);
  Family<Gauge>& gauge_family(std::string_view name, std::string_view help,
                              std::vector<std::string> label_names);
  // `buckets` are finite, strictly increasing upper bounds; a trailing +Inf is dropped.
  Histogram& histogram(std::string_view name, std::string_view help, std::vector<double> buckets);
  Family<Histogram>& histogram_family(std::string_view name, std::string_view help,
                                      std::vector<std::string> label_names,
                                      std::vector<double> buckets);

  // A value sampled at each render, for numbers the process does not count itself (resident
  // memory, CPU time). `type` is Counter or Gauge. `read` runs under the registry's lock and
  // must not call back into the Registry.
  void callback(std::string_view name, std::string_view help, Type type,
                std::function<double()> read);

  // The text exposition of every family with at least one series, sorted by name.
  std::string render() const;

 private:
  template <typename M>
  Family<M>& family(std::string_view name, std::string_view help, Type type,
                    std::vector<std::string> label_names, std::vector<double> buckets);
  detail::FamilyBase* find_compatible(std::string_view name, Type type,
                                      const std::vector<std::string>& label_names,
                                      const std::vector<double>& buckets);

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<detail::FamilyBase>, std::less<>> families_;
};

}  // namespace fed::metrics
