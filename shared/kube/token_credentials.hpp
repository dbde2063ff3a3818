#pragma once
// Bearer-token CredentialSources: a fixed token, and a token file re-read on every call so
// that a rotated token (projected ServiceAccount tokens, tokenFile) is picked up at once.

#include <filesystem>
#include <string>

#include "shared/kube/rest_config.hpp"

namespace fed::kube {

// users[].user.token: always the same token.
class StaticTokenCredential final : public CredentialSource {
 public:
  explicit StaticTokenCredential(std::string token) : token_(std::move(token)) {}
  Result<std::string> token() override { return token_; }

 private:
  std::string token_;
};

// users[].user.tokenFile and the in-cluster ServiceAccount token: reads the file on every
// token() call (leading/trailing whitespace trimmed). If the file cannot be read or is empty,
// falls back to `fallback` (kubectl's token-beside-tokenFile rule) or fails naming the file.
class TokenFileCredential final : public CredentialSource {
 public:
  // `setting` says where the path came from, for messages, e.g. `user "dev" tokenFile`.
  TokenFileCredential(std::filesystem::path path, std::string setting, std::string fallback = {})
      : path_(std::move(path)), setting_(std::move(setting)), fallback_(std::move(fallback)) {}

  Result<std::string> token() override;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::string setting_;
  std::string fallback_;
};

}  // namespace fed::kube
