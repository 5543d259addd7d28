// main() of the mini harness (only built when GoogleTest is absent).
#include "test_support.h"

#ifdef DELAYMETER_MINI_TEST
int main() {
  for (auto& c : mini::cases()) {
    int before = mini::failures();
    try {
      c.fn();
    } catch (const mini::Fatal&) {
    }
    std::printf("[%s] %s\n", mini::failures() == before ? "  OK  " : " FAIL ", c.name);
  }
  std::printf("%zu tests, %d failed checks\n", mini::cases().size(), mini::failures());
  return mini::failures() == 0 ? 0 : 1;
}
#endif
