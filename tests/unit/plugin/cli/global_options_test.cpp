#include "plugin/cli/global_options.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace std::chrono_literals;
using fed::plugin::OutputFormat;
using fed::plugin::scan_global_flags;
using Args = std::vector<std::string>;

TEST_CASE("global flags are taken from anywhere before --, in every kubectl spelling") {
  auto s =
      scan_global_flags({"--context", "east", "version", "--client", "-n=kube-system", "-ojson",
                         "-v=4", "--kubeconfig=/tmp/kc", "--request-timeout", "1m30s"});
  REQUIRE(s.has_value());
  CHECK(s->global.context == "east");
  CHECK(s->global.namespace_name == "kube-system");
  CHECK(s->global.output == OutputFormat::Json);
  CHECK(s->global.verbosity == 4);
  CHECK(s->global.kubeconfig == "/tmp/kc");
  CHECK(s->global.request_timeout == 90s);
  CHECK(s->rest == Args{"version", "--client"});

  auto t = scan_global_flags({"version", "-v", "6", "--v=2", "--namespace", "a", "-nb", "--output",
                              "yaml", "--", "-o", "json"});
  REQUIRE(t.has_value());
  CHECK(t->global.verbosity == 2);  // the later one wins
  CHECK(t->global.namespace_name == "b");
  CHECK(t->global.output == OutputFormat::Yaml);
  CHECK(t->rest == Args{"version", "--", "-o", "json"});
}

TEST_CASE("defaults when no global flag is given") {
  auto s = scan_global_flags({"version"});
  REQUIRE(s);
  CHECK(s->global.output == OutputFormat::Table);
  CHECK(s->global.verbosity == 0);
  CHECK(s->global.request_timeout == 0ms);
  CHECK(s->global.kubeconfig.empty());
}

TEST_CASE("bad global flag values are usage errors naming the flag") {
  const auto error = [](const Args& args) {
    auto s = scan_global_flags(args);
    REQUIRE_FALSE(s.has_value());
    CHECK(s.error().code() == fed::ErrorCode::Invalid);
    return s.error().message();
  };
  CHECK(error({"-o", "wide"}) ==
        "invalid value \"wide\" for -o/--output: use one of table, yaml, json");
  CHECK(error({"-o", "xml"}) ==
        "invalid value \"xml\" for -o/--output: use one of table, yaml, json; did you mean "
        "\"yaml\"?");
  CHECK(error({"-o=jsno"}) ==
        "invalid value \"jsno\" for -o/--output: use one of table, yaml, json; did you mean "
        "\"json\"?");
  CHECK(error({"-v", "x"}).find("invalid value \"x\" for -v/--v") == 0);
  CHECK(error({"-v=-1"}).find("invalid value \"-1\" for -v/--v") == 0);
  CHECK(error({"version", "--context"}) == "flag --context needs a value (string)");
  CHECK(error({"-n"}) == "flag -n/--namespace needs a value (string)");
  CHECK(error({"--request-timeout=soon"}).find("--request-timeout: invalid duration \"soon\"") ==
        0);
  CHECK(error({"--request-timeout=-5s"}) == "--request-timeout: must not be negative");
}

TEST_CASE("--request-timeout accepts Go durations and bare seconds, like kubectl") {
  CHECK(*fed::plugin::parse_request_timeout("0") == 0ms);
  // Below a millisecond is not "0, no limit".
  auto tiny = fed::plugin::parse_request_timeout("1ns");
  REQUIRE_FALSE(tiny);
  CHECK(tiny.error().message() ==
        "--request-timeout: \"1ns\" is below 1ms; give at least 1ms, or 0 for no limit");
  CHECK(*fed::plugin::parse_request_timeout("1ms") == 1ms);
  CHECK(*fed::plugin::parse_request_timeout("30") == 30s);
  CHECK(*fed::plugin::parse_request_timeout("500ms") == 500ms);
  CHECK(*fed::plugin::parse_request_timeout("2m") == 2min);
}

TEST_CASE("kubectl -v levels map to log levels") {
  CHECK(fed::plugin::log_verbosity(0) == -1);
  CHECK(fed::plugin::log_verbosity(2) == 0);
  CHECK(fed::plugin::log_verbosity(4) == 1);
  CHECK(fed::plugin::log_verbosity(9) == 2);
}
