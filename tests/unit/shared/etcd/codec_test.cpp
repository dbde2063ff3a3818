#include "shared/etcd/codec.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "shared/etcd/codec_cluster.hpp"

using namespace fed::etcd;
using nlohmann::json;

TEST_CASE("base64 round-trips binary keys, including the empty string and padding") {
  for (std::string s : {std::string(), std::string("f"), std::string("fo"), std::string("foo"),
                        std::string("\0\xff\x10", 3)}) {
    const auto enc = codec::base64_encode(s);
    auto dec = codec::base64_decode(enc);
    REQUIRE(dec);
    CHECK(*dec == s);
  }
  CHECK(codec::base64_encode("foo") == "Zm9v");
  CHECK(codec::base64_encode("fo") == "Zm8=");
  CHECK_FALSE(codec::base64_decode("Zm9"));
  CHECK_FALSE(codec::base64_decode("Zm9$"));
  // Found by the etcd_answers fuzz target: padding alone underflowed the decoded length.
  CHECK_FALSE(codec::base64_decode("===="));
  CHECK_FALSE(codec::base64_decode("Z==="));
}

TEST_CASE("range and put requests use base64 and omit zero values") {
  RangeRequest r;
  r.key = "foo";
  r.range_end = "fop";
  r.serializable = true;
  const json j = json::parse(codec::encode(r));
  CHECK(j["key"] == "Zm9v");
  CHECK(j["range_end"] == "Zm9w");
  CHECK(j["serializable"] == true);
  CHECK_FALSE(j.contains("limit"));

  PutRequest p{"k", "v", 42, false};
  const json pj = json::parse(codec::encode(p));
  CHECK(pj["lease"] == "42");
  CHECK(pj["value"] == "dg==");
}

TEST_CASE("a range response from etcd 3.5's gateway parses, int64 given as strings") {
  const char* body =
      R"({"header":{"cluster_id":"13455796455940752355","member_id":"443629905751424238",)"
      R"("revision":"2","raft_term":"2"},"kvs":[{"key":"Zm9v","create_revision":"2",)"
      R"("mod_revision":"2","version":"1","value":"YmFy"}],"count":"1"})";
  auto r = codec::decode_range(body);
  REQUIRE(r);
  CHECK(r->header.cluster_id == 13455796455940752355ULL);
  CHECK(r->header.member_id == 443629905751424238ULL);
  CHECK(r->header.raft_term == 2);
  REQUIRE(r->kvs.size() == 1);
  CHECK(r->kvs[0].key == "foo");
  CHECK(r->kvs[0].value == "bar");
  CHECK(r->count == 1);
}

TEST_CASE("txn encodes compares and ops, and parses the branch responses") {
  TxnRequest t;
  t.compare.push_back({Compare::Result::Equal, Compare::Target::Mod, "foo", 0, ""});
  TxnOp put;
  put.kind = TxnOp::Kind::Put;
  put.put = {"foo", "baz", 0, false};
  t.success.push_back(put);
  TxnOp get;
  get.range.key = "foo";
  t.failure.push_back(get);
  const json j = json::parse(codec::encode(t));
  CHECK(j["compare"][0]["target"] == "MOD");
  CHECK(j["compare"][0]["mod_revision"] == "0");
  CHECK(j["success"][0]["request_put"]["value"] == "YmF6");
  CHECK(j["failure"][0]["request_range"]["key"] == "Zm9v");

  const char* body =
      R"({"header":{"revision":"2","raft_term":"2"},"responses":[{"response_range":)"
      R"({"header":{"revision":"2"},"kvs":[{"key":"Zm9v","value":"YmFy"}],"count":"1"}}]})";
  auto r = codec::decode_txn(body);
  REQUIRE(r);
  CHECK_FALSE(r->succeeded);  // omitted when false
  REQUIRE(r->responses.size() == 1);
  CHECK(r->responses[0].kind == TxnOp::Kind::Range);
  CHECK(r->responses[0].range.kvs.at(0).value == "bar");
}

TEST_CASE("maintenance status uses camelCase fields") {
  const char* body =
      R"({"header":{"cluster_id":"1","member_id":"443629905751424238","revision":"1",)"
      R"("raft_term":"2"},"version":"3.5.21","dbSize":"20480","leader":"443629905751424238",)"
      R"("raftIndex":"4","raftTerm":"2","raftAppliedIndex":"4","dbSizeInUse":"16384"})";
  auto s = codec::decode_status(body);
  REQUIRE(s);
  CHECK(s->leader == 443629905751424238ULL);
  CHECK(s->raft_term == 2);
  CHECK(s->raft_index == 4);
  CHECK(s->db_size == 20480);
  CHECK(s->version == "3.5.21");
}

TEST_CASE("gateway errors map to retryable or terminal codes") {
  const auto not_leader = codec::decode_error(
      400, R"({"error":"etcdserver: not leader","code":9,"message":"etcdserver: not leader"})",
      "move-leader");
  CHECK(not_leader.code() == fed::ErrorCode::Unavailable);
  CHECK(not_leader.message().find("move-leader: etcdserver: not leader") == 0);
  const auto bad = codec::decode_error(400, R"({"error":"bad","code":3})", "put");
  CHECK(bad.code() == fed::ErrorCode::Invalid);
  CHECK(codec::decode_error(503, "upstream down", "x").code() == fed::ErrorCode::Unavailable);
  CHECK(codec::is_error_body(R"({"error":"x","code":14})"));
  CHECK_FALSE(codec::is_error_body(R"({"header":{},"kvs":[]})"));
}

TEST_CASE("stream splitter cuts concatenated objects across chunk boundaries") {
  codec::StreamSplitter s;
  auto a = s.feed(R"({"result":{"x":"a}b"}})"
                  "\n"
                  R"({"result":{"y":)");
  REQUIRE(a.size() == 1);
  CHECK(a[0] == R"({"result":{"x":"a}b"}})");
  CHECK(s.pending() > 0);
  auto b = s.feed(R"("q\"}"}})"
                  "\n");
  REQUIRE(b.size() == 1);
  CHECK(b[0] == R"({"result":{"y":"q\"}"}})");
  CHECK(s.pending() == 0);
}

TEST_CASE("watch messages: created, events with DELETE type, cancellation") {
  auto created = codec::decode_watch(R"({"result":{"header":{"revision":"4"},"created":true}})");
  REQUIRE(created);
  CHECK(created->created);
  auto ev = codec::decode_watch(
      R"({"result":{"header":{"revision":"6"},"events":[{"kv":{"key":"Zm9v","value":"YmFy"}},)"
      R"({"type":"DELETE","kv":{"key":"Zm9v","mod_revision":"6"}}]}})");
  REQUIRE(ev);
  REQUIRE(ev->events.size() == 2);
  CHECK(ev->events[0].type == WatchEvent::Type::Put);
  CHECK(ev->events[1].type == WatchEvent::Type::Delete);
  CHECK(ev->events[1].kv.mod_revision == 6);
  auto err = codec::decode_watch(R"({"error":{"grpc_code":14,"message":"closing"}})");
  CHECK_FALSE(err);
}

TEST_CASE("lease, election and move-leader shapes") {
  CHECK(json::parse(codec::encode_move_leader(18446744073709551615ULL))["targetID"] ==
        "18446744073709551615");
  auto k = codec::decode_keepalive(R"({"result":{"header":{},"ID":"77","TTL":"10"}})");
  REQUIRE(k);
  CHECK(k->id == 77);
  CHECK(k->ttl == 10);
  auto c = codec::decode_campaign(
      R"({"header":{},"leader":{"name":"ZWw=","key":"ZWwvMQ==","rev":"4","lease":"9"}})");
  REQUIRE(c);
  CHECK(c->name == "el");
  CHECK(c->key == "el/1");
  CHECK(c->lease == 9);
  const json r = json::parse(codec::encode_leader_key(*c));
  CHECK(r["leader"]["key"] == "ZWwvMQ==");
  auto l = codec::decode_election_leader(R"({"header":{},"kv":{"key":"ZWwvMQ==","value":"dg=="}})");
  REQUIRE(l);
  CHECK(l->value == "v");
  CHECK(codec::decode_election_leader(R"({"header":{}})").error().code() ==
        fed::ErrorCode::NotFound);
}

TEST_CASE("member list: ids as decimal strings, names, client URLs, learners") {
  const auto list = codec::decode_member_list(
      R"({"header":{"cluster_id":"1","member_id":"2","raft_term":"3"},"members":[)"
      R"({"ID":"10276657743932975437","name":"e1","peerURLs":["https://10.0.0.1:2380"],)"
      R"("clientURLs":["https://10.0.0.1:2379"]},)"
      R"({"ID":"42","peerURLs":["https://10.0.0.4:2380"],"isLearner":true}]})");
  REQUIRE(list);
  REQUIRE(list->size() == 2);
  CHECK((*list)[0].id == 10276657743932975437ull);
  CHECK((*list)[0].name == "e1");
  CHECK((*list)[0].client_urls == std::vector<std::string>{"https://10.0.0.1:2379"});
  CHECK_FALSE((*list)[0].is_learner);
  CHECK((*list)[1].name.empty());  // added, not started yet
  CHECK((*list)[1].is_learner);
  CHECK(codec::decode_member_list(R"({"header":{}})").value().empty());
  CHECK_FALSE(codec::decode_member_list(R"({"members":{}})"));
  CHECK((*list)[1].peer_urls == std::vector<std::string>{"https://10.0.0.4:2380"});
}

TEST_CASE("member add, promote and remove: the gateway's shapes") {
  CHECK(json::parse(codec::encode_member_add({"https://172.31.0.2:2480"}, true)) ==
        json{{"peerURLs", {"https://172.31.0.2:2480"}}, {"isLearner", true}});
  // A uint64 id travels as a decimal string, as the gateway writes it.
  CHECK(json::parse(codec::encode_member_id(10276657743932975437ull)) ==
        json{{"ID", "10276657743932975437"}});
  const auto added = codec::decode_member_add(
      R"({"header":{},"member":{"ID":"42","peerURLs":["https://172.31.0.2:2480"],"isLearner":true},)"
      R"("members":[{"ID":"7","name":"c1","peerURLs":["https://172.31.0.1:2480"]},)"
      R"({"ID":"42","peerURLs":["https://172.31.0.2:2480"],"isLearner":true}]})");
  REQUIRE(added);
  CHECK(added->member.id == 42);
  CHECK(added->member.is_learner);
  REQUIRE(added->members.size() == 2);
  CHECK(added->members[0].name == "c1");
  CHECK_FALSE(codec::decode_member_add(R"({"header":{}})"));
}
