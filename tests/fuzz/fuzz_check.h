// FUZZ_CHECK: a property a fuzz target asserts (a round trip, a bound). A
// failure prints the message and aborts, which both drivers (libFuzzer and
// fuzz_main.cc) report as a crash with the input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond, ...)                                             \
  do {                                                                    \
    if (!(cond)) {                                                        \
      std::fprintf(stderr, "FUZZ_CHECK failed at %s:%d: %s: ", __FILE__,  \
                   __LINE__, #cond);                                      \
      std::fprintf(stderr, __VA_ARGS__);                                  \
      std::fprintf(stderr, "\n");                                         \
      std::abort();                                                       \
    }                                                                     \
  } while (0)
