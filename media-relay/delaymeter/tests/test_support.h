// Tests are written against GoogleTest; without it (DELAYMETER_MINI_TEST) a tiny look-alike is used.
#pragma once
#ifndef DELAYMETER_MINI_TEST
#include <gtest/gtest.h>
#else
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

namespace mini {
struct Case {
  const char* name;
  std::function<void()> fn;
};
inline std::vector<Case>& cases() {
  static std::vector<Case> all;
  return all;
}
inline int& failures() {
  static int n = 0;
  return n;
}
struct Register {
  Register(const char* name, std::function<void()> fn) { cases().push_back({name, std::move(fn)}); }
};
struct Fatal {};
inline void report(const char* file, int line, const char* expr) {
  std::fprintf(stderr, "%s:%d: check failed: %s\n", file, line, expr);
  ++failures();
}
}  // namespace mini

#define TEST(suite, name)                                                        \
  static void suite##_##name();                                                  \
  static mini::Register suite##_##name##_reg(#suite "." #name, suite##_##name); \
  static void suite##_##name()
#define MINI_CHECK(cond, fatal)                                              \
  do {                                                                       \
    if (!(cond)) {                                                           \
      mini::report(__FILE__, __LINE__, #cond);                               \
      if (fatal) throw mini::Fatal{};                                        \
    }                                                                        \
  } while (0)
#define EXPECT_TRUE(c) MINI_CHECK((c), false)
#define EXPECT_FALSE(c) MINI_CHECK(!(c), false)
#define ASSERT_TRUE(c) MINI_CHECK((c), true)
#define ASSERT_FALSE(c) MINI_CHECK(!(c), true)
#define EXPECT_EQ(a, b) MINI_CHECK((a) == (b), false)
#define ASSERT_EQ(a, b) MINI_CHECK((a) == (b), true)
#define EXPECT_NE(a, b) MINI_CHECK((a) != (b), false)
#define EXPECT_NEAR(a, b, eps) MINI_CHECK(std::fabs(double(a) - double(b)) <= (eps), false)

#endif
