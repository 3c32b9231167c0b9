/* Naming the plugin a fatal fault came from (crash.c, with crash_posix.c or crash_win32.c).
 *
 * A plugin that crashes takes the process with it: nothing the engine does can keep the
 * application alive once a plugin has corrupted it. What the engine can do is say which plugin
 * it was, in one error line, and otherwise leave the fault to the runtime exactly as if the
 * engine were not there, so that the runtime still turns a null dereference in managed code
 * into a NullReferenceException. On POSIX a handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE and
 * SIGABRT, chained in front of the runtime's own, writes the line and hands the signal on; on
 * Windows a vectored exception handler looks at each processor fault first, writes the line,
 * and lets the search for a handler go on as it would have.
 *
 * A fault is a plugin's when the faulting instruction lies in the code of a plugin's module
 * (recorded when the module is loaded) or when the thread is inside a call the engine made into
 * a plugin (each call site is bracketed with CLRIE_PM__IN_PLUGIN). Everything the handler reads
 * is a fixed array or thread-local storage it reads without locks or allocation.
 *
 * Threads: the functions may be called from any thread. */
#ifndef CLRIE_PM_CRASH_H
#define CLRIE_PM_CRASH_H

#include <stddef.h>

/* A call into a plugin, on the stack of the calling thread for the duration of the call. */
struct clrie_pm__crash_call {
    const char *name; /* the plugin's (configured) name, NULL when no call is in progress */
    const char *guid; /* braced */
    const char *call; /* what it was asked to do: "Initialize", "InstrumentMethod", ... */
};

/* Installs the handler once per process, chained to the handlers in place now (the runtime's;
 * on Windows in front of every vectored handler). The line goes to log_fd (the log file, a C
 * runtime descriptor, or -1 when the log writes to stderr) and to stderr. Call it before the
 * first plugin is loaded. */
void clrie_pm__crash_install(int log_fd);

/* Records the code of the module that holds `address` (any symbol of it) as plugin name's,
 * guid braced. Both strings are copied. Silently ignored past a fixed number of modules. */
void clrie_pm__crash_add_module(const void *address, const char *name, const char *guid);

/* Marks this thread as inside `call` of the plugin (name and guid must outlive the call; call
 * a string literal) until clrie_pm__crash_leave(saved), which restores the mark before: calls
 * nest (a plugin's Initialize may load another plugin). */
void clrie_pm__crash_enter(struct clrie_pm__crash_call *saved, const char *name, const char *guid,
                           const char *call);
void clrie_pm__crash_leave(const struct clrie_pm__crash_call *saved);

/* Runs `statement` (a call into plugin p, a struct plugin *) as p's call named `call`. */
#define CLRIE_PM__IN_PLUGIN(p, call, statement)                                                    \
    do {                                                                                           \
        struct clrie_pm__crash_call saved_call_;                                                   \
        clrie_pm__crash_enter(&saved_call_, (p)->name, (p)->guid_text, (call));                    \
        statement;                                                                                 \
        clrie_pm__crash_leave(&saved_call_);                                                       \
    } while (0)

/* The line the handler writes, without the "LogError[HH:MM:SS]: " prefix and the newline, for
 * the given fault, fault address and pc, as seen from this thread (its mark and the recorded
 * modules). The fault is the system's: on POSIX the signal and its si_code; on Windows the
 * exception code (EXCEPTION_ACCESS_VIOLATION, ...) and 1 when address is the data address the
 * exception names (an access violation, an in-page error), else 0. Returns its length, or 0
 * when the fault is no plugin's. Async-signal-safe; for the handler and its tests. */
size_t clrie_pm__crash_describe(char *buf, size_t size, int fault, int code, const void *address,
                                const void *pc);

#endif
