/* The fork server's fixed costs (benchmarks/pushbutton_bench.cpp). Under the
   fork server: with no argument, a main that returns at once (a fork, the
   child's setup of the engine, its exit); with "thread", main starts one
   thread and joins it (the first thread of a forked child). Run without it,
   "forks N" forks N children that _exit at once, waits for each, and prints
   the CPU time of one (this process and its children, in microseconds),
   pinned to one CPU as the fork server is: a process with the same libraries,
   what no fork server can go below. No heddle header. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static void* nothing(void* arg) { return arg; }

static double cpu_seconds(int who) {
  struct rusage u;
  getrusage(who, &u);
  return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char** argv) {
  if (argc > 2 && strcmp(argv[1], "forks") == 0) {
    const int forks = atoi(argv[2]);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    sched_setaffinity(0, sizeof one, &one);
    for (int i = 0; i < forks; ++i) {
      const pid_t pid = fork();
      if (pid == 0) _exit(0);
      int status;
      if (pid > 0) waitpid(pid, &status, 0);
    }
    printf("%.1f\n", (cpu_seconds(RUSAGE_SELF) + cpu_seconds(RUSAGE_CHILDREN)) * 1e6 / (forks > 0 ? forks : 1));
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "thread") == 0) {
    pthread_t t;
    pthread_create(&t, NULL, nothing, NULL);
    pthread_join(t, NULL);
  }
  return 0;
}
