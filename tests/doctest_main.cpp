#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "shared/log/log.hpp"

int main(int argc, char** argv) {
  fed::log::init({.format = fed::log::Format::Text, .verbosity = -1});
  doctest::Context context(argc, argv);
  return context.run();
}
