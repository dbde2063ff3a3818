#pragma once
// Load for the classifier dataset, on one etcd member at a time (the leader), through the
// project's JSON-gateway transport:
//   - overload: N client threads doing linearizable Range of a ~700 kB value back to back (the
//     thesis used etcd's benchmark tool with 1000 clients; this machine has two cores);
//   - background: one writer putting a small key every 100 ms, like kube-apiserver's lease and
//     event traffic, in every state.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "shared/etcd/gateway_transport.hpp"
#include "shared/result/result.hpp"

namespace fed::etcdbench {

class EtcdLoad final {
 public:
  // `transport` outlives the load. Nothing runs until start().
  EtcdLoad(etcd::GatewayTransport& transport, std::size_t max_clients);
  ~EtcdLoad();  // stop()
  EtcdLoad(const EtcdLoad&) = delete;
  EtcdLoad& operator=(const EtcdLoad&) = delete;

  // Writes the big value (value_bytes) on `member`, then starts the writer and the (idle)
  // overload threads.
  Status start(std::size_t member, std::size_t value_bytes);
  void stop();

  // Where the load goes from now on.
  void set_member(std::size_t member) { member_.store(member); }
  // How many overload clients run (0 = none, at most max_clients).
  void set_clients(std::size_t n) { clients_.store(n); }

  std::uint64_t big_reads() const { return big_reads_.load(); }
  std::uint64_t failures() const { return failures_.load(); }

 private:
  void overload(std::size_t index, std::stop_token stop);
  void background(std::stop_token stop);

  etcd::GatewayTransport& transport_;
  std::size_t max_clients_;
  std::atomic<std::size_t> member_{0};
  std::atomic<std::size_t> clients_{0};
  std::atomic<std::uint64_t> big_reads_{0};
  std::atomic<std::uint64_t> failures_{0};
  std::vector<std::jthread> threads_;
};

}  // namespace fed::etcdbench
