#pragma once
// The gateway's WireGuard private key on disk: one base64 line (the format of `wg genkey`, so
// `wg pubkey < FILE` works), mode 0600, created on first use and reused on every restart so the
// public key the manager published stays valid. The private key never leaves this node.

#include <string>

#include "agent/node/tunnel/wg_key.hpp"
#include "shared/result/result.hpp"

namespace fed::tunnel {

// Reads the key at `path`, or generates one and writes it there (a directory it has to create
// for it gets 0700; the file 0600, created exclusively so two agents starting at once end with
// the same key).
// Refuses a file that group or others may read: the key may have leaked; the message says how
// to replace it.
Result<WgKey> load_or_create_private_key(const std::string& path);

}  // namespace fed::tunnel
