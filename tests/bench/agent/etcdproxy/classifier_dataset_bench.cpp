// The leader-health classifier's dataset and evaluation (issue 8, acceptance 3): a real
// 3-member mTLS etcd in namespaces of its own (fedcls-*, 10.198.0.0/24, beside the fedetcd-*
// tests), one random state per episode on the current leader:
//   0 idle, 1 network delay (15-60 ms on the leader's egress through fed-delay-proxy),
//   2 overload (6-16 clients reading a 700 kB value linearizably from the leader), 3 both;
// the leader scraped every second (features as the proxy computes them), labelled rows to CSV,
// then XGBoost per-class precision/recall/F1 over 10 random splits, for the thesis' five
// features and for the full vector, with rows split at random (as the thesis) and by episode.
//
// Environment: FED_CLASSIFIER_MODE=quick|full (full: 32 episodes x 36 s, about 21 minutes;
// quick: 8 x 16 s, about 3), FED_CLASSIFIER_EPISODES, FED_CLASSIFIER_EPISODE_SECONDS,
// FED_CLASSIFIER_SEED, FED_CLASSIFIER_CSV (output; default build dir), FED_CLASSIFIER_MODEL
// (model trained on every row; default next to the CSV).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sched.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "agent/etcdproxy/classifier/dataset_csv.hpp"
#include "agent/etcdproxy/classifier/evaluation.hpp"
#include "agent/etcdproxy/classifier/leader_sampler.hpp"
#include "shared/etcd/codec_cluster.hpp"
#include "shared/raii/fd.hpp"
#include "tests/bench/agent/etcdproxy/etcd_load.hpp"
#include "tests/netns/agent/etcdproxy/etcd_harness.hpp"

using namespace fed;
using namespace fed::etcdproxy::classifier;
using namespace std::chrono_literals;

namespace {

constexpr const char* kNs = "fedcls";
constexpr const char* kNet = "10.198.0";

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

std::string env_str(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

// The harness on this bench's own namespaces and addresses.
int harness(const std::string& args) {
  return etcdtest::harness(args);  // FED_ETCD_NS / FED_ETCD_NET are set in the environment
}

// The leader as the members report it; nullopt when nobody names one. Fills `ids`.
std::optional<std::size_t> find_leader(etcd::GatewayTransport& t, std::vector<std::uint64_t>& ids) {
  ids.assign(t.size(), 0);
  std::uint64_t leader = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    etcd::GatewayCall c;
    c.path = "/v3/maintenance/status";
    c.body = "{}";
    c.timeout = 2s;
    const auto r = t.post(i, c);
    if (r.failure != etcd::CallFailure::None || r.status != 200) continue;
    auto s = etcd::codec::decode_status(r.body);
    if (!s) continue;
    ids[i] = s->header.member_id;
    if (s->leader != 0) leader = s->leader;
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == leader && leader != 0) return i;
  }
  return std::nullopt;
}

class InNetns {
 public:
  explicit InNetns(const std::string& name)
      : original_(::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) {
    Fd target(::open(("/run/netns/" + name).c_str(), O_RDONLY | O_CLOEXEC));
    ok_ = original_ && target && ::setns(target.get(), CLONE_NEWNET) == 0;
  }
  ~InNetns() {
    if (ok_) (void)::setns(original_.get(), CLONE_NEWNET);
  }
  InNetns(const InNetns&) = delete;
  InNetns& operator=(const InNetns&) = delete;
  bool ok() const { return ok_; }

 private:
  Fd original_;
  bool ok_ = false;
};

void evaluate_and_print(const Dataset& data) {
  std::printf("\nLeader-health classifier: %zu rows, %zu feature columns\n", data.x.rows(),
              data.x.cols);
  for (const bool paper : {true, false}) {
    const Dataset d = paper ? data.first_columns(kPaperFeatureCount) : data;
    for (const SplitBy by : {SplitBy::Rows, SplitBy::Episodes}) {
      EvaluationParams p;
      p.split_by = by;
      auto r = evaluate(d, p);
      if (!r && by == SplitBy::Episodes) {  // too few episodes per class in a short run
        std::printf("\nsplits by episode skipped: %s\n", r.error().message().c_str());
        continue;
      }
      REQUIRE_MESSAGE(r, r.error().message());
      std::printf("\n%s features, 10 splits by %s (75/25):\n%s", paper ? "the thesis' 5" : "all",
                  by == SplitBy::Rows ? "row" : "episode", format_evaluation(*r).c_str());
    }
  }
  std::fflush(stdout);
}

}  // namespace

TEST_CASE("leader-health dataset on a real etcd cluster, then 10-split XGBoost evaluation") {
  const bool quick = env_str("FED_CLASSIFIER_MODE", "full") == "quick";
  const int episodes = env_int("FED_CLASSIFIER_EPISODES", quick ? 8 : 32);
  const int episode_seconds = env_int("FED_CLASSIFIER_EPISODE_SECONDS", quick ? 16 : 36);
  // Periods skipped after a state change: rates and the status window spanning the switch.
  const int warmup = static_cast<int>(kStatusWindow);
  std::mt19937 rng(static_cast<unsigned>(env_int("FED_CLASSIFIER_SEED", 4)));
  const std::string dir = std::string(FED_BINARY_DIR) + "/fedcls-run";
  const std::string csv_path = env_str("FED_CLASSIFIER_CSV", dir + "-dataset.csv");
  const std::string model_path = env_str("FED_CLASSIFIER_MODEL", dir + "-model.json");

  ::setenv("FED_ETCD_NS", kNs, 1);
  ::setenv("FED_ETCD_NET", kNet, 1);
  harness("down " + dir);
  for (int n = 1; n <= 3; ++n) std::filesystem::remove_all(dir + "/data" + std::to_string(n));
  REQUIRE_MESSAGE(harness("up " + dir + " 0") == 0, "etcd harness did not come up; see " << dir);
  struct Down {
    std::string dir;
    ~Down() {
      if (std::getenv("FED_KEEP_NETNS") == nullptr) harness("down " + dir);
    }
  } down{dir};

  InNetns in_client(std::string(kNs) + "-c");  // before any thread starts: they inherit it
  REQUIRE(in_client.ok());
  std::vector<std::string> urls;
  for (int n = 1; n <= 3; ++n)
    urls.push_back("https://" + std::string(kNet) + "." + std::to_string(n) + ":2379");
  auto transport = etcd::GatewayTransport::create(
      urls, {dir + "/pki/ca.crt", dir + "/pki/client.crt", dir + "/pki/client.key"}, 1000ms);
  REQUIRE(transport);
  std::optional<std::size_t> leader;
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 50 && !(leader = find_leader(**transport, ids)); ++i)
    std::this_thread::sleep_for(200ms);
  REQUIRE(leader);

  constexpr std::size_t kMaxClients = 16;
  etcdbench::EtcdLoad load(**transport, kMaxClients);
  REQUIRE(load.start(*leader, 700 * 1024));
  LeaderSampler sampler(**transport, 3000ms, 5);

  // Balanced classes in random order.
  std::vector<int> states;
  for (int e = 0; e < episodes; ++e) states.push_back(e % kClassCount);
  std::shuffle(states.begin(), states.end(), rng);

  std::ofstream csv(csv_path);
  REQUIRE(csv.good());
  csv << csv_header() << "\n";
  std::size_t rows = 0, dropped = 0;
  for (int e = 0; e < episodes; ++e) {
    const int state = states[static_cast<std::size_t>(e)];
    // Now and then hand leadership to another member, so every member leads in the dataset.
    if (e > 0 && std::uniform_int_distribution<int>(0, 2)(rng) == 0) {
      const std::size_t target =
          (*leader + 1 + std::uniform_int_distribution<std::size_t>(0, 1)(rng)) % 3;
      etcd::GatewayCall move;
      move.path = "/v3/maintenance/transfer-leadership";
      move.body = etcd::codec::encode_move_leader(ids[target]);
      move.timeout = 5s;
      const auto r = (*transport)->post(*leader, move);
      spdlog::warn("move-leader to member {}: HTTP {} {}", target + 1, r.status, r.failure_message);
      std::this_thread::sleep_for(1s);
    }
    const auto previous = leader;
    if (auto l = find_leader(**transport, ids)) leader = l;
    const int delay = (state & 1) ? std::uniform_int_distribution<int>(15, 60)(rng) : 0;
    const int clients = (state & 2) ? std::uniform_int_distribution<int>(6, 16)(rng) : 0;
    for (int n = 1; n <= 3; ++n) {
      const bool on = static_cast<std::size_t>(n - 1) == *leader;
      harness("delay " + dir + " " + std::to_string(n) + " " + std::to_string(on ? delay : 0));
    }
    load.set_member(*leader);
    load.set_clients(static_cast<std::size_t>(clients));
    if (leader != previous) sampler.reset(*leader);
    spdlog::warn("episode {}/{}: state {} ({}), leader member {}, delay {} ms, {} clients", e + 1,
                 episodes, state, to_string(static_cast<LeaderState>(state)), *leader + 1, delay,
                 clients);
    auto next = std::chrono::steady_clock::now();
    for (int s = 0; s < episode_seconds; ++s) {
      next += 1s;
      std::this_thread::sleep_until(next);
      auto obs = sampler.observe(*leader);
      if (!obs) {
        spdlog::warn("  {}s: {}", s, obs.error().message());
        ++dropped;
        continue;
      }
      if (!obs->is_leader) {  // leadership moved: the label no longer describes this member
        ++dropped;
        continue;
      }
      if (s < warmup || !obs->features) continue;
      DatasetRow row;
      row.episode = e;
      row.second = s;
      row.label = state;
      row.delay_ms = delay;
      row.clients = clients;
      row.features = *obs->features;
      csv << csv_row(row) << "\n";
      ++rows;
    }
    csv.flush();
  }
  load.stop();
  csv.close();
  MESSAGE("dataset: " << rows << " rows in " << csv_path << " (" << dropped << " periods dropped; "
                      << load.big_reads() << " big reads, " << load.failures()
                      << " failed load requests)");
  CHECK(rows > 0);

  std::ifstream in(csv_path);
  auto data = read_dataset(in);
  REQUIRE_MESSAGE(data, data.error().message());
  evaluate_and_print(*data);
  TrainParams all;
  auto model = XgbModel::train(data->x, data->labels, all);
  REQUIRE(model);
  REQUIRE(model->save(model_path));
  MESSAGE("model trained on every row: " << model_path);
}
