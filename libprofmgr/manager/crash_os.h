/* What the two halves of the crash handler give each other (crash.h).
 *
 * crash.c is the same everywhere: the marks of plugin calls, the table of plugin modules, the
 * line that names a plugin and writing it once per thread. The system's half (crash_posix.c:
 * signal handlers chained in front of the runtime's; crash_win32.c: a vectored exception
 * handler) catches the fault, asks crash.c whose it is, and supplies what only the system
 * knows: a thread's storage, a module's code, the name of a fault, the time of day and how to
 * write. Everything here but clrie_pm__crash_thread(true) and clrie_pm__crash_code_ranges may be
 * called from the handler: no locks, no allocation. */
#ifndef CLRIE_PM_CRASH_OS_H
#define CLRIE_PM_CRASH_OS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crash.h"

/* ---- from crash.c, for the system's half ------------------------------------------------ */

/* May the fault at pc be a plugin's? What clrie_pm__crash_line decides on, without building
 * the line: the thread is in a plugin call, or pc is in a plugin's code. */
bool clrie_pm__crash_maybe_plugins(uintptr_t pc);

/* clrie_pm__crash_describe's line, and *in_code: whether pc is in the plugin's code (the fault
 * is then surely the plugin's; otherwise the runtime may still recover from it). */
size_t clrie_pm__crash_line(char *buf, size_t size, int fault, int code, uintptr_t address,
                            uintptr_t pc, bool *in_code);

/* "LogError[HH:MM:SS]:<line>\n" to the outputs, once per thread that has storage of its own
 * (every thread on POSIX; on Windows each thread the engine has called a plugin on). */
void clrie_pm__crash_write_line(const char *line, size_t len);

/* ---- from the system's half, for crash.c ------------------------------------------------ */

/* What the handler keeps per thread. */
struct clrie_pm__crash_thread {
    struct clrie_pm__crash_call call; /* the innermost plugin call; call.name NULL when none */
    volatile sig_atomic_t reported;   /* the thread has written its line */
};

/* This thread's storage. With create false (in the handler) it is NULL when the thread has
 * none; with create true, only when none could be made. */
struct clrie_pm__crash_thread *clrie_pm__crash_thread(bool create);

/* Up to max ranges [start, end) of the code of the loaded module that holds address: their
 * number, 0 when no module holds it. */
unsigned clrie_pm__crash_code_ranges(const void *address, uintptr_t *start, uintptr_t *end,
                                     unsigned max);

/* The system's name of a fault, and whether its address is the data address it names
 * (clrie_pm__crash_describe says what fault and code are on each system). */
const char *clrie_pm__crash_fault_name(int fault, int code, bool *with_address);

/* Seconds since local midnight. */
long clrie_pm__crash_time_of_day(void);

/* Sets up what the functions above need: the log file's descriptor (or -1), the time zone,
 * the thread storage's slot. The handler's install calls it first (crash_os_posix.c,
 * crash_os_win32.c hold this half; crash_posix.c and crash_win32.c the handlers). */
void clrie_pm__crash_os_init(int log_fd);

/* Whether the system's fault code is a processor fault (a crash), not a software exception:
 * every signal the POSIX handler takes; on Windows the EXCEPTION_* faults. */
bool clrie_pm__crash_os_is_fault(int fault);

/* Writes prefix, text and a newline to the log file, if any, then to stderr. */
void clrie_pm__crash_write_out(const char *prefix, size_t prefix_len, const char *text, size_t len);

#endif
