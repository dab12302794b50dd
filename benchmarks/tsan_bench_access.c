// The instrumented half of tsan_bench: compiled with -fsanitize=thread, so each
// access below calls libheddle-rt's __tsan_read4/__tsan_write4.
void touch_many(int* cells, long n) {
  for (long i = 0; i < n; ++i) cells[i & 255] += 1;  // one read and one write per round
}
