/* clrie/os/process.h: who this process is, and its clocks.
 *
 * Threads: every function may be called from any thread. */
#ifndef CLRIE_OS_PROCESS_H
#define CLRIE_OS_PROCESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The process's id. */
unsigned long clrie_os_process_id(void);

/* The path of the program the process runs (the dotnet host, an app's own launcher),
 * malloc'd in *out: 0 or a negative errno value. */
int clrie_os_process_program(char **out);

/* The command line as the program received it, split into arguments: a malloc'd array of
 * *count malloc'd UTF-8 strings ending with NULL, in *out (free with
 * clrie_os_process_arguments_free): 0 or a negative errno value. */
int clrie_os_process_arguments(char ***out, size_t *count);

void clrie_os_process_arguments_free(char **arguments);

/* Runs main_utf8 with the program's arguments in UTF-8 and returns what it returns, so that a
 * tool can name any file: on Windows main's arguments are in the ANSI code page, which cannot
 * spell every name, and these come from the UTF-16 command line instead. Where the system
 * cannot say (a POSIX system without /proc) or counts differently from argc, main's own are
 * passed: on POSIX they are the same bytes. */
int clrie_os_process_main(int argc, char **argv, int (*main_utf8)(int argc, char **argv));

/* Nanoseconds of a clock that only goes forward (not the wall clock), from an unspecified
 * start. */
uint64_t clrie_os_monotonic_ns(void);

/* Nanoseconds of processor time the calling thread has used. The system counts it in steps of
 * its own: a nanosecond on Linux, the scheduler's tick on Windows (about 15.6 ms; 10 ms under
 * Wine), so a span shorter than a step can read as nothing there. */
uint64_t clrie_os_thread_cpu_ns(void);

/* The wall clock: seconds and nanoseconds since 1970-01-01 UTC. */
void clrie_os_wall_clock(int64_t *seconds, uint32_t *nanoseconds);

#ifdef __cplusplus
}
#endif

#endif
