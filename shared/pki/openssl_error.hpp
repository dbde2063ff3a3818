#pragma once
// OpenSSL reports failures on a per-thread queue; this turns the oldest entry into text.

#include <string>

namespace fed::pki {

// The oldest queued OpenSSL error as text ("unknown OpenSSL error" when none), clearing the
// queue so the next failure is not blamed on this one.
std::string openssl_error();

}  // namespace fed::pki
