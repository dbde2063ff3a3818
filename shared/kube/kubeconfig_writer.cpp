#include "shared/kube/kubeconfig_writer.hpp"

#include <yaml-cpp/yaml.h>

#include <utility>

#include "shared/util/base64.hpp"

namespace fed::kube {
namespace {

void put(YAML::Emitter& out, const char* key, const std::string& value) {
  if (!value.empty()) out << YAML::Key << key << YAML::Value << value;
}

void put_data(YAML::Emitter& out, const char* key, const std::string& bytes) {
  if (!bytes.empty()) out << YAML::Key << key << YAML::Value << util::base64_encode(bytes);
}

const char* to_string(InteractiveMode mode) {
  switch (mode) {
    case InteractiveMode::Never:
      return "Never";
    case InteractiveMode::IfAvailable:
      return "IfAvailable";
    case InteractiveMode::Always:
      return "Always";
  }
  return "IfAvailable";
}

void write_cluster(YAML::Emitter& out, const Cluster& c) {
  out << YAML::BeginMap;
  put(out, "server", c.server);
  put(out, "certificate-authority", c.certificate_authority);
  put_data(out, "certificate-authority-data", c.certificate_authority_data);
  if (c.insecure_skip_tls_verify) {
    out << YAML::Key << "insecure-skip-tls-verify" << YAML::Value << true;
  }
  put(out, "tls-server-name", c.tls_server_name);
  put(out, "proxy-url", c.proxy_url);
  out << YAML::EndMap;
}

void write_exec(YAML::Emitter& out, const ExecConfig& e) {
  out << YAML::BeginMap;
  put(out, "apiVersion", e.api_version);
  put(out, "command", e.command);
  if (!e.args.empty()) out << YAML::Key << "args" << YAML::Value << e.args;
  if (!e.env.empty()) {
    out << YAML::Key << "env" << YAML::Value << YAML::BeginSeq;
    for (const ExecEnvVar& v : e.env) {
      out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << v.name << YAML::Key << "value"
          << YAML::Value << v.value << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (e.interactive_mode) {
    out << YAML::Key << "interactiveMode" << YAML::Value << to_string(*e.interactive_mode);
  }
  if (e.provide_cluster_info) out << YAML::Key << "provideClusterInfo" << YAML::Value << true;
  put(out, "installHint", e.install_hint);
  out << YAML::EndMap;
}

void write_user(YAML::Emitter& out, const User& u) {
  out << YAML::BeginMap;
  put(out, "client-certificate", u.client_certificate);
  put_data(out, "client-certificate-data", u.client_certificate_data);
  put(out, "client-key", u.client_key);
  put_data(out, "client-key-data", u.client_key_data);
  put(out, "token", u.token);
  put(out, "tokenFile", u.token_file);
  put(out, "username", u.username);
  put(out, "password", u.password);
  if (u.exec) {
    out << YAML::Key << "exec" << YAML::Value;
    write_exec(out, *u.exec);
  }
  out << YAML::EndMap;
}

void write_context(YAML::Emitter& out, const Context& c) {
  out << YAML::BeginMap;
  put(out, "cluster", c.cluster);
  put(out, "user", c.user);
  put(out, "namespace", c.namespace_name);
  out << YAML::EndMap;
}

template <typename T, typename Write>
void write_list(YAML::Emitter& out, const char* list_key, const char* item_key,
                const std::map<std::string, T>& items, Write write) {
  out << YAML::Key << list_key << YAML::Value << YAML::BeginSeq;
  for (const auto& [name, item] : items) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name;
    out << YAML::Key << item_key << YAML::Value;
    write(out, item);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

}  // namespace

std::string to_yaml(const Kubeconfig& config) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "v1";
  out << YAML::Key << "kind" << YAML::Value << "Config";
  write_list(out, "clusters", "cluster", config.clusters, write_cluster);
  write_list(out, "users", "user", config.users, write_user);
  write_list(out, "contexts", "context", config.contexts, write_context);
  out << YAML::Key << "current-context" << YAML::Value << config.current_context;
  out << YAML::Key << "preferences" << YAML::Value << YAML::BeginMap << YAML::EndMap;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

Kubeconfig single_context_kubeconfig(const std::string& name, Cluster cluster, User user,
                                     const std::string& namespace_name) {
  Kubeconfig config;
  config.clusters.emplace(name, std::move(cluster));
  config.users.emplace(name, std::move(user));
  config.contexts.emplace(name, Context{name, name, namespace_name, {}});
  config.current_context = name;
  return config;
}

}  // namespace fed::kube
