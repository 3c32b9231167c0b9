/* The fatal-signal handler that names a crashing plugin: POSIX (crash.h, crash_os.h).
 *
 * The runtime installs its own handlers for these signals before it loads the engine: it turns
 * a fault in managed code into a NullReferenceException (and never returns from the handler
 * then), and reports or dumps a crash in native code. This handler goes in front of the
 * runtime's, taking over its mask and flags, and on every signal calls it as the kernel would
 * have. A fault that is no plugin's is handed on at once; a plugin's leaves one line first.
 *
 * When the faulting instruction is in a plugin's code the runtime cannot recover (it handles
 * faults only in managed code and its own helpers), and the line is written before the runtime
 * is called, in case the runtime's own crash handling never returns. When only the thread's
 * mark says a plugin call is in progress (the fault is in a library the plugin called, or in
 * the runtime on its behalf), the runtime might still recover, so the line is written only once
 * the runtime's handler has returned having put the default action back, which it does when
 * the process is about to die; SIGABRT never recovers, so it is reported at once.
 *
 * What the handler reads is fixed storage and initial-exec thread-local storage; it writes with
 * write(2) only. */
#define _GNU_SOURCE /* REG_RIP */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "crash_os.h"

static const int handled_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define SIGNAL_COUNT (sizeof(handled_signals) / sizeof(handled_signals[0]))
static struct sigaction previous[SIGNAL_COUNT]; /* written before the handler is installed */
static atomic_bool installed;

/* ---- the handler ------------------------------------------------------------------------ */

/* For the frames that are live when the runtime's handler is called: the runtime often never
 * returns to them (it resumes managed code at the catch), and a sanitizer that had poisoned
 * red zones around their locals would find that poison later in the frames of whatever code
 * reuses that stack, and report an overflow that is none. */
#define LEFT_BY_THE_RUNTIME __attribute__((no_sanitize_address))

static uintptr_t pc_of(const void *context)
{
    const ucontext_t *uc = context;
    if (!uc)
        return 0;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    return 0; /* only the marks name the plugin */
#endif
}

static const struct sigaction *previous_of(int sig)
{
    for (size_t i = 0; i < SIGNAL_COUNT; i++)
        if (handled_signals[i] == sig)
            return &previous[i];
    return NULL;
}

static bool is_default(const struct sigaction *action)
{
    return action->sa_handler == SIG_DFL || action->sa_handler == SIG_IGN;
}

/* Does what the kernel would have done had this handler not been installed. */
LEFT_BY_THE_RUNTIME static void chain(int sig, siginfo_t *info, void *context,
                                      const struct sigaction *prev)
{
    bool sent = info->si_code <= 0 || sig == SIGABRT;
    if (prev->sa_handler == SIG_IGN && sent)
        return;
    if (is_default(prev)) {
        /* A fault the processor raised happens again on return, now with the default action
         * (an ignored one too: the kernel does not let a fault be ignored); a sent signal is
         * sent again, and arrives once this handler returns. */
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, NULL);
        if (sent)
            raise(sig);
        return;
    }
    if (prev->sa_flags & SA_SIGINFO)
        prev->sa_sigaction(sig, info, context);
    else
        prev->sa_handler(sig);
}

/* The rare path, with the line's buffer in a frame of its own so that the common path's frame
 * stays a few words deep. */
__attribute__((noinline)) LEFT_BY_THE_RUNTIME static void
report_and_chain(int sig, siginfo_t *info, void *context, const struct sigaction *prev)
{
    int saved_errno = errno;
    char line[512];
    bool in_code = false;
    size_t len = clrie_pm__crash_line(line, sizeof(line), sig, info->si_code,
                                      (uintptr_t)info->si_addr, pc_of(context), &in_code);
    bool plugin = len > 0;
    bool wait_for_runtime = plugin && !in_code && sig != SIGABRT && !is_default(prev);
    if (plugin && !wait_for_runtime)
        clrie_pm__crash_write_line(line, len);
    chain(sig, info, context, prev);
    if (wait_for_runtime) {
        /* The runtime returned: it either recovered, or put the default action back so that
         * the fault, raised again on return, ends the process. */
        struct sigaction now;
        if (sigaction(sig, NULL, &now) == 0 && now.sa_handler == SIG_DFL)
            clrie_pm__crash_write_line(line, len);
    }
    errno = saved_errno;
}

/* A signal that is no plugin's (the runtime's own: a null dereference, a division by zero in
 * managed code) goes straight to the runtime's handler with the kernel's siginfo and context,
 * on the stack the kernel chose by the runtime's own flags, touching nothing on the way. */
LEFT_BY_THE_RUNTIME static void on_fatal_signal(int sig, siginfo_t *info, void *context)
{
    const struct sigaction *prev = previous_of(sig);
    if (clrie_pm__crash_maybe_plugins(pc_of(context)))
        report_and_chain(sig, info, context, prev);
    else
        chain(sig, info, context, prev);
}

void clrie_pm__crash_install(int log_fd)
{
    if (atomic_exchange(&installed, true))
        return;
    clrie_pm__crash_os_init(log_fd);
    for (size_t i = 0; i < SIGNAL_COUNT; i++) {
        if (sigaction(handled_signals[i], NULL, &previous[i]) != 0)
            continue;
        /* The runtime's mask and flags, so that the kernel runs this handler, and through it
         * the runtime's, as it would run the runtime's: on the alternate stack only where the
         * runtime asked for it (SIGSEGV, to catch stack overflows). The runtime handles SIGFPE
         * on the faulting thread's own stack and never returns from there into managed code;
         * on the small alternate stack that overflows it (a caught DivideByZeroException
         * killed the process as a stack overflow). */
        struct sigaction action = {.sa_sigaction = on_fatal_signal,
                                   .sa_mask = previous[i].sa_mask,
                                   .sa_flags = previous[i].sa_flags | SA_SIGINFO};
        sigaction(handled_signals[i], &action, NULL);
    }
}
