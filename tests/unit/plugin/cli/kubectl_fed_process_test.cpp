// The real kubectl-fed binary, run as kubectl runs it: parsing, help, suggestions, exit codes,
// and completion scripts exercised in bash.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "shared/util/build_info.hpp"
#include "shared/util/subprocess.hpp"
#include "tests/unit/plugin/connect/fake_cluster.hpp"

namespace {

struct Run {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs kubectl-fed with `args`, isolated from the user's kubeconfig and any proxy.
Run kubectl_fed(std::vector<std::string> args, const std::string& home = "/nonexistent") {
  fed::util::SubprocessOptions o;
  o.argv = {KUBECTL_FED_BINARY};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.env = {{"HOME", home},
           {"KUBECONFIG", ""},
           {"NO_PROXY", "*"},
           {"no_proxy", "*"},
           {"KUBERNETES_SERVICE_HOST", ""}};
  o.stderr_mode = fed::util::StderrMode::Capture;
  o.timeout = std::chrono::seconds(30);
  auto r = fed::util::run_subprocess(o);
  REQUIRE(r.has_value());
  return {r->exit_code, r->stdout_data, r->stderr_data};
}

// Runs `script` in bash; its stdout.
std::string bash(const std::string& script) {
  fed::util::SubprocessOptions o;
  o.argv = {"bash", "--norc", "--noprofile", "-c", script};
  o.stderr_mode = fed::util::StderrMode::Capture;
  o.timeout = std::chrono::seconds(30);
  auto r = fed::util::run_subprocess(o);
  REQUIRE(r.has_value());
  INFO(r->stderr_data);
  CHECK(r->exit_code == 0);
  return r->stdout_data;
}

const std::string kClientLine = "Client Version: v" + std::string(fed::build::version()) +
                                " (commit " + std::string(fed::build::git_commit()) + ")\n";

}  // namespace

TEST_CASE("global flags are accepted before and after the verb, in kubectl's spellings") {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"version", "--client"},
           {"--context", "x", "version", "--client"},
           {"version", "--client", "--context", "x", "-n", "ns"},
           {"-v=4", "version", "--client"},
           {"version", "-v", "4", "--client"},
           {"--v=6", "--request-timeout=30s", "version", "--client", "--kubeconfig=/x"},
           {"version", "--client", "--request-timeout", "5"},
       }) {
    const Run r = kubectl_fed(args);
    INFO(args.front(), " ", args.size(), ": ", r.err);
    CHECK(r.code == 0);
    CHECK(r.out == kClientLine);
  }
}

TEST_CASE("-o selects the output format wherever it is written") {
  const Run json = kubectl_fed({"-o", "json", "version", "--client"});
  REQUIRE(json.code == 0);
  const auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["clientVersion"]["gitVersion"] == "v" + std::string(fed::build::version()));
  const Run yaml = kubectl_fed({"version", "--client", "-oyaml"});
  CHECK(yaml.code == 0);
  CHECK(yaml.out.find("clientVersion:\n  gitCommit: ") == 0);
}

TEST_CASE("bad global values exit 2 with the message") {
  const Run r = kubectl_fed({"version", "--client", "-o", "wide"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "error: invalid value \"wide\" for -o/--output: use one of table, yaml, json\n"
        "See 'kubectl fed --help' for usage.\n");
  const Run typo = kubectl_fed({"-o=jsn", "version", "--client"});
  CHECK(typo.code == 2);
  CHECK(typo.err.find("did you mean \"json\"?") != std::string::npos);
  const Run v = kubectl_fed({"-v=loud", "version"});
  CHECK(v.code == 2);
  CHECK(v.err.find("error: invalid value \"loud\" for -v/--v") == 0);
  const Run t = kubectl_fed({"version", "--request-timeout", "10x"});
  CHECK(t.code == 2);
  CHECK(t.err.find("error: --request-timeout: invalid duration \"10x\": unknown unit \"x\"") == 0);
  const Run missing = kubectl_fed({"version", "--context"});
  CHECK(missing.code == 2);
  CHECK(missing.err.find("error: flag --context needs a value (string)") == 0);
}

TEST_CASE("a verb's bad flag values are said in kubectl's words, not the parser's") {
  const Run number = kubectl_fed({"join", "c2", "--namespace-quota", "abc"});
  CHECK(number.code == 2);
  CHECK(number.err ==
        "error: kubectl fed join: invalid value \"abc\" for --namespace-quota: expected a whole "
        "number\n"
        "See 'kubectl fed join --help' for usage.\n");
  const Run bare = kubectl_fed({"offload", "namespace", "shop", "--dry-run"});
  CHECK(bare.code == 2);
  CHECK(bare.err.find("error: kubectl fed offload: flag --dry-run needs a value "
                      "(--dry-run=VALUE)\n") == 0);
  const Run nothing = kubectl_fed({"offload"});
  CHECK(nothing.code == 2);
  CHECK(nothing.err.find("error: KIND and NAME are required") == 0);
  // "--" ends the flags; the verb still follows.
  const Run dash = kubectl_fed({"--", "version", "--client"});
  CHECK(dash.code == 0);
  CHECK(dash.out.find("Client Version: ") == 0);
}

TEST_CASE("unknown commands and flags suggest the closest valid spelling and exit 2") {
  const Run verb = kubectl_fed({"verison"});
  CHECK(verb.code == 2);
  CHECK(verb.err ==
        "error: unknown command \"verison\" for \"kubectl fed\"; did you mean \"version\"?\n"
        "See 'kubectl fed --help' for usage.\n");
  const Run far = kubectl_fed({"deploy"});
  CHECK(far.code == 2);
  CHECK(far.err.find("error: unknown command \"deploy\" for \"kubectl fed\"\n") == 0);
  const Run flag = kubectl_fed({"version", "--clinet"});
  CHECK(flag.code == 2);
  CHECK(flag.err ==
        "error: unknown flag \"--clinet\" for \"kubectl fed version\"; did you mean "
        "\"--client\"?\n"
        "See 'kubectl fed version --help' for usage.\n");
  const Run before = kubectl_fed({"--contxt=east", "version"});
  CHECK(before.code == 2);
  CHECK(before.err.find("error: unknown flag \"--contxt\" for \"kubectl fed\"; did you mean "
                        "\"--context\"?") == 0);
  const Run extra = kubectl_fed({"version", "now"});
  CHECK(extra.code == 2);
  CHECK(extra.err.find("error: unexpected argument \"now\" for \"kubectl fed version\"") == 0);
  const Run shell = kubectl_fed({"completion", "bsh"});
  CHECK(shell.code == 2);
  CHECK(shell.err.find("error: unsupported shell \"bsh\": use bash or zsh; did you mean "
                       "\"bash\"?") == 0);
}

TEST_CASE("help: no arguments, --help, help <verb> and <verb> --help all exit 0") {
  const Run none = kubectl_fed({});
  CHECK(none.code == 0);
  CHECK(none.out.find("Usage:\n  kubectl fed <command> [flags]\n") != std::string::npos);
  // The name column is as wide as the longest verb.
  CHECK(std::regex_search(none.out,
                          std::regex(R"(\n  completion +Print a shell completion script)")));
  CHECK(none.out.find("  -o, --output string") != std::string::npos);
  CHECK(none.out.find("Exit codes:\n  0  success\n") != std::string::npos);
  CHECK(kubectl_fed({"--help"}).out == none.out);
  CHECK(kubectl_fed({"help"}).out == none.out);

  const Run verb = kubectl_fed({"version", "--help"});
  CHECK(verb.code == 0);
  CHECK(verb.out.find("Usage:\n  kubectl fed version [--client] [flags]\n") != std::string::npos);
  CHECK(verb.out.find("Examples:\n  # Client and server versions\n  kubectl fed version\n") !=
        std::string::npos);
  CHECK(std::regex_search(verb.out, std::regex(R"(\n      --client +Print only the client)")));
  CHECK(verb.out.find("Global flags:\n") != std::string::npos);
  CHECK(kubectl_fed({"help", "version"}).out == verb.out);
  CHECK(kubectl_fed({"-h", "version"}).out == verb.out);
}

TEST_CASE("version reaches the API server of the kubeconfig's context") {
  fed::plugin::test::FakeCluster cluster;
  const Run ok = kubectl_fed({"version", "--kubeconfig", cluster.kubeconfig()});
  INFO(ok.err);
  CHECK(ok.code == 0);
  CHECK(ok.out == kClientLine + "Server Version: v1.29.2\n");

  // $KUBECONFIG and ~/.kube/config are read like kubectl reads them.
  std::filesystem::create_directories(cluster.dir() / ".kube");
  std::filesystem::copy_file(cluster.kubeconfig(), cluster.dir() / ".kube" / "config");
  const Run home = kubectl_fed({"version"}, cluster.dir().string());
  CHECK(home.code == 0);
  CHECK(home.out == kClientLine + "Server Version: v1.29.2\n");
}

TEST_CASE("version failures map to documented exit codes with one clear line") {
  fed::plugin::test::FakeCluster cluster;
  const Run down =
      kubectl_fed({"version", "--kubeconfig", cluster.kubeconfig(), "--context", "closed"});
  CHECK(down.code == 3);
  CHECK(down.out == kClientLine);
  CHECK(down.err.rfind("error: ", 0) == 0);
  CHECK(down.err.find("127.0.0.1:1") != std::string::npos);

  const Run missing =
      kubectl_fed({"version", "--kubeconfig", cluster.kubeconfig(), "--context", "nope"});
  CHECK(missing.code == 5);
  CHECK(missing.err.find("nope") != std::string::npos);

  const Run broken = kubectl_fed({"version", "--kubeconfig", cluster.broken_kubeconfig()});
  CHECK(broken.code == 2);
  CHECK(broken.err.find("broken.yaml") != std::string::npos);
}

TEST_CASE("etcd status: no proxy on the socket is exit 3 with one line naming the fix") {
  const Run none = kubectl_fed({});
  CHECK(std::regex_search(none.out, std::regex(R"(\n  etcd +Show the etcd proxy's members)")));
  const Run down = kubectl_fed({"etcd", "status", "--socket", "/nonexistent/etcd-proxy.sock"});
  CHECK(down.code == 3);
  CHECK(down.out.empty());
  CHECK(down.err ==
        "error: etcd proxy status socket /nonexistent/etcd-proxy.sock: No such file or directory "
        "(is fed-agent etcd-proxy running on this node? pass its --status-socket path with "
        "--socket)\n");
  // A regular file is no socket: connect() would say "connection refused", blaming a dead proxy.
  const auto file = std::filesystem::temp_directory_path() / "kubectl-fed-not-a-socket";
  std::ofstream(file) << "x";
  const Run regular = kubectl_fed({"etcd", "status", "--socket", file.string()});
  std::filesystem::remove(file);
  CHECK(regular.code == 2);
  CHECK(regular.err.find("refused") == std::string::npos);
  CHECK(regular.err.find("--socket must name the proxy's unix socket") != std::string::npos);
  const Run bare = kubectl_fed({"etcd"});
  CHECK(bare.code == 2);
  CHECK(bare.err.find("error: kubectl fed etcd needs a subcommand: kubectl fed etcd status") == 0);
  const Run help = kubectl_fed({"etcd", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("Usage:\n  kubectl fed etcd status [--socket PATH]") != std::string::npos);
}

TEST_CASE("completion bash: a valid script that completes verbs, flags and values") {
  const Run script = kubectl_fed({"completion", "bash"});
  REQUIRE(script.code == 0);
  const auto path = std::filesystem::temp_directory_path() / "kubectl-fed-completion-test.bash";
  std::ofstream(path) << script.out;
  // Completes the words of a command line whose last word is being typed.
  const auto complete = [&](const std::string& words) {
    return bash("source " + path.string() + "; COMP_WORDS=(kubectl-fed " + words +
                "); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _kubectl_fed; "
                "echo \"${COMPREPLY[*]}\"");
  };
  CHECK(complete("ver") == "version\n");
  CHECK(complete("''") ==
        "completion etcd host init join offload peer reconfigure replicate status unjoin unoffload "
        "unreplicate version\n");
  CHECK(complete("join c3 --member-c") == "--member-context\n");
  CHECK(complete("init --dry") == "--dry-run\n");
  CHECK(complete("unjoin c3 --fo") == "--force\n");
  CHECK(complete("-o ''") == "table yaml json\n");
  CHECK(complete("--output = j") == "json\n");
  CHECK(complete("--con") == "--context\n");
  CHECK(complete("version --cl") == "--client\n");
  CHECK(complete("-n kube-system completion ''") == "bash zsh\n");
  CHECK(complete("--context east version --req") == "--request-timeout\n");
  // --context=east reaches bash as three words; it completes as --context east does.
  CHECK(complete("--context = east version --req") == "--request-timeout\n");
  CHECK(complete("--context=east version --req") == "--request-timeout\n");
  CHECK(complete("--request-timeout = 5s ver") == "version\n");
  CHECK(complete("--context = east ''") == complete("--context east ''"));
  std::filesystem::remove(path);
}

TEST_CASE("completion zsh: a compdef script listing verbs and flags") {
  const Run script = kubectl_fed({"completion", "zsh"});
  REQUIRE(script.code == 0);
  CHECK(script.out.find("#compdef kubectl-fed\n") == 0);
  CHECK(script.out.find("'version:Print the client version and, when reachable, the API "
                        "server'\\''s'") != std::string::npos);
  CHECK(script.out.find("'(-o --output)'{-o+,--output=}'") != std::string::npos);
  CHECK(script.out.find("'--client[Print only the client version; do not contact the API "
                        "server]'") != std::string::npos);
  CHECK(script.out.find("'1:argument:(bash zsh)'") != std::string::npos);
  CHECK(script.out.find("compdef _kubectl_fed kubectl-fed\n") != std::string::npos);
}
