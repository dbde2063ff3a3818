#pragma once
// One owner for every C handle: a unique_ptr whose deleter is the library's free function.
//   using NlSock = fed::CHandle<nl_sock, nl_socket_free>;

#include <memory>

namespace fed {

template <auto FreeFn>
struct CFree {
  template <typename T>
  void operator()(T* p) const {
    if (p != nullptr) FreeFn(p);
  }
};

template <typename T, auto FreeFn>
using CHandle = std::unique_ptr<T, CFree<FreeFn>>;

}  // namespace fed
