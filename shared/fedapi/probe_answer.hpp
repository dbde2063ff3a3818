#pragma once
// The one line `fed-agent probe --listen` writes on every TCP connection and `kubectl fed join
// --wait` reads back from the dialler pod: "kubectl-fed-probe <id> from <source address>". The
// source is the address the listener saw, so the reader learns how the NAT rewrote the path.

#include <string>

#include "shared/result/result.hpp"

namespace fed::fedapi {

// The line, with its newline.
std::string probe_answer_line(const std::string& id, const std::string& source);
// The source address of an answer line (a trailing newline is ignored); Invalid, quoting the
// line, when it is not one.
Result<std::string> parse_probe_answer(std::string line);

}  // namespace fed::fedapi
