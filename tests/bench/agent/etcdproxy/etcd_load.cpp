#include "tests/bench/agent/etcdproxy/etcd_load.hpp"

#include <chrono>

#include "shared/etcd/codec.hpp"

namespace fed::etcdbench {
namespace {

constexpr const char* kBigKey = "/fedcls/big";

}  // namespace

EtcdLoad::EtcdLoad(etcd::GatewayTransport& transport, std::size_t max_clients)
    : transport_(transport), max_clients_(max_clients) {}

EtcdLoad::~EtcdLoad() {
  stop();
}

Status EtcdLoad::start(std::size_t member, std::size_t value_bytes) {
  member_.store(member);
  etcd::PutRequest put;
  put.key = kBigKey;
  put.value.assign(value_bytes, 'v');
  etcd::GatewayCall call;
  call.path = "/v3/kv/put";
  call.body = etcd::codec::encode(put);
  call.timeout = std::chrono::seconds(10);
  const auto reply = transport_.post(member, call);
  if (reply.failure != etcd::CallFailure::None || reply.status != 200) {
    return fail(ErrorCode::Unavailable,
                "writing the overload value: " + (reply.failure_message.empty()
                                                      ? "HTTP " + std::to_string(reply.status)
                                                      : reply.failure_message));
  }
  threads_.emplace_back([this](std::stop_token s) { background(s); });
  for (std::size_t i = 0; i < max_clients_; ++i) {
    threads_.emplace_back([this, i](std::stop_token s) { overload(i, s); });
  }
  return ok();
}

void EtcdLoad::stop() {
  for (auto& t : threads_) t.request_stop();
  threads_.clear();  // joins
}

void EtcdLoad::overload(std::size_t index, std::stop_token stop) {
  etcd::RangeRequest range;
  range.key = kBigKey;  // linearizable: the leader confirms its leadership (ReadIndex) each time
  etcd::GatewayCall call;
  call.path = "/v3/kv/range";
  call.body = etcd::codec::encode(range);
  call.timeout = std::chrono::seconds(10);
  call.stop = stop;
  while (!stop.stop_requested()) {
    if (index >= clients_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    const auto reply = transport_.post(member_.load(), call);
    if (reply.failure == etcd::CallFailure::None && reply.status == 200) {
      ++big_reads_;
    } else if (!stop.stop_requested()) {
      ++failures_;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

void EtcdLoad::background(std::stop_token stop) {
  etcd::GatewayCall call;
  call.path = "/v3/kv/put";
  call.timeout = std::chrono::seconds(5);
  call.stop = stop;
  for (std::uint64_t i = 0; !stop.stop_requested(); ++i) {
    const auto next = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    etcd::PutRequest put;
    put.key = "/fedcls/bg" + std::to_string(i % 16);
    put.value = "value-" + std::to_string(i);
    call.body = etcd::codec::encode(put);
    const auto reply = transport_.post(member_.load(), call);
    if (reply.failure != etcd::CallFailure::None || reply.status != 200) ++failures_;
    std::this_thread::sleep_until(next);
  }
}

}  // namespace fed::etcdbench
