#include "shared/kube/watch_decoder.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace fed::kube {

TEST_CASE("lines are reassembled across arbitrary chunk boundaries") {
  const std::string stream =
      "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\n"
      "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"b\"}}}\r\n"
      "\n"
      "{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"c\"}}}\n";
  // Every split size from 1 byte to the whole stream gives the same three lines.
  for (size_t step = 1; step <= stream.size(); ++step) {
    CAPTURE(step);
    LineSplitter s;
    std::vector<std::string> lines;
    for (size_t i = 0; i < stream.size(); i += step) {
      REQUIRE(s.feed(std::string_view(stream).substr(i, step), [&](std::string_view l) {
        lines.emplace_back(l);
        return true;
      }));
    }
    REQUIRE(lines.size() == 3);
    CHECK(lines[1].back() == '}');
    CHECK(s.buffered() == 0);
  }
}

TEST_CASE("a partial line waits for the rest") {
  LineSplitter s;
  int n = 0;
  auto count = [&](std::string_view) {
    ++n;
    return true;
  };
  CHECK(s.feed("{\"type\":", count));
  CHECK(n == 0);
  CHECK(s.buffered() == 8);
  CHECK(s.feed("\"ADDED\"}\n{\"ty", count));
  CHECK(n == 1);
  CHECK(s.buffered() == 4);
}

TEST_CASE("the handler can stop the splitter") {
  LineSplitter s;
  int n = 0;
  CHECK_FALSE(s.feed("a\nb\nc\n", [&](std::string_view) { return ++n < 2; }));
  CHECK(n == 2);
}

TEST_CASE("watch events parse; malformed ones are Invalid") {
  auto ev =
      parse_watch_event(R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9"}}})");
  REQUIRE(ev);
  CHECK(ev->type == WatchEventType::Bookmark);
  CHECK(ev->object["metadata"]["resourceVersion"] == "9");
  auto err = parse_watch_event(
      R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}})");
  REQUIRE(err);
  CHECK(err->type == WatchEventType::Error);
  CHECK(to_string(WatchEventType::Modified) == "MODIFIED");
  CHECK_FALSE(parse_watch_event("not json"));
  CHECK_FALSE(parse_watch_event(R"({"type":"ADDED"})"));
  CHECK_FALSE(parse_watch_event(R"({"type":"SOMETHING","object":{}})"));
}

}  // namespace fed::kube
