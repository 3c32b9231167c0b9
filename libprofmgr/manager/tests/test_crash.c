/* The fatal-signal handler (crash.c) in front of fake runtime handlers installed before it, as
 * CoreCLR's are: faults that are no plugin's reach the runtime untouched (on the stack and with
 * the mask the runtime's own flags ask for), a fault the runtime recovers from leaves no line,
 * and a crash inside a plugin call or in a plugin's code leaves one line naming the plugin and
 * the call. The crashes are real: they happen in forked
 * children, and the parent checks how each died and what it wrote to the log file. */
#define _GNU_SOURCE /* REG_RIP */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "crash.h"

#define GUID "{11111111-2222-3333-4444-555555555555}"

static FILE *log_file;                           /* what the handler writes besides stderr */
static struct sigaction engine_segv, engine_fpe; /* the engine's, in front of the runtime's */

/* ---- the fake runtime -------------------------------------------------------------------- */

enum runtime_mode { RECOVER, GIVE_UP, EXIT, ABORT };
static volatile sig_atomic_t runtime_mode;
static volatile sig_atomic_t runtime_calls;
static void *volatile runtime_address;
static volatile sig_atomic_t runtime_on_alternate_stack;
static sigset_t runtime_blocked; /* the signal mask while the runtime's handler ran */
static sigjmp_buf recover_to;

static bool on_alternate_stack(void)
{
    stack_t stack;
    return sigaltstack(NULL, &stack) == 0 && (stack.ss_flags & SS_ONSTACK);
}

static void record_how_the_runtime_runs(void)
{
    runtime_calls++;
    runtime_on_alternate_stack = on_alternate_stack();
    pthread_sigmask(SIG_SETMASK, NULL, &runtime_blocked);
}

/* Recovers as CoreCLR does from a managed fault (never returning), gives up as it does on a
 * native crash (default action back, return, the fault happens again), or ends the process
 * from inside the handler. */
static void fake_runtime(int sig, siginfo_t *info, void *context)
{
    (void)context;
    record_how_the_runtime_runs();
    runtime_address = info->si_addr;
    if (runtime_mode == RECOVER)
        siglongjmp(recover_to, 1);
    if (runtime_mode == EXIT)
        _exit(42);
    if (runtime_mode == ABORT)
        abort();
    signal(sig, SIG_DFL);
}

/* CoreCLR's SIGFPE handler: on the faulting thread's own stack (no SA_ONSTACK), SIGINT blocked
 * besides SIGFPE itself. */
static void fake_runtime_fpe(int sig, siginfo_t *info, void *context)
{
    (void)sig, (void)info, (void)context;
    record_how_the_runtime_runs();
}

static int *volatile nowhere;

/* The plugin's "code": the module of this program is recorded as the plugin's. */
__attribute__((noinline)) static void plugin_code_crashes(void)
{
    *nowhere = 1;
}

static int setup(void **state)
{
    (void)state;
    /* As CoreCLR: SIGSEGV on the alternate stack (where a stack overflow can be handled),
     * SIGFPE on the thread's own. */
    struct sigaction runtime = {.sa_sigaction = fake_runtime, .sa_flags = SA_SIGINFO | SA_ONSTACK};
    sigemptyset(&runtime.sa_mask);
    sigaction(SIGSEGV, &runtime, NULL);
    struct sigaction runtime_fpe = {.sa_sigaction = fake_runtime_fpe, .sa_flags = SA_SIGINFO};
    sigemptyset(&runtime_fpe.sa_mask);
    sigaddset(&runtime_fpe.sa_mask, SIGINT);
    sigaction(SIGFPE, &runtime_fpe, NULL);
    static char alternate[64 * 1024];
    stack_t stack = {.ss_sp = alternate, .ss_size = sizeof(alternate)};
    sigaltstack(&stack, NULL);
    log_file = tmpfile();
    clrie_pm__crash_install(fileno(log_file));
    sigaction(SIGSEGV, NULL, &engine_segv);
    sigaction(SIGFPE, NULL, &engine_fpe);
    return log_file ? 0 : -1;
}

/* cmocka puts handlers of its own in place for each test (and the previous ones back after):
 * each test that faults puts the engine's back first. */
static void use_engine_handler(void)
{
    sigaction(SIGSEGV, &engine_segv, NULL);
    sigaction(SIGFPE, &engine_fpe, NULL);
}

static char *log_text(void)
{
    static char text[4096];
    fflush(log_file);
    size_t n = (size_t)pread(fileno(log_file), text, sizeof(text) - 1, 0);
    text[n == (size_t)-1 ? 0 : n] = '\0';
    return text;
}

static void clear_log(void)
{
    assert_int_equal(ftruncate(fileno(log_file), 0), 0);
    assert_int_equal(lseek(fileno(log_file), 0, SEEK_SET), 0); /* children write at the offset */
}

/* Runs body in a child with stderr quiet; returns its wait status. */
static int in_child(void (*body)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        freopen("/dev/null", "w", stderr);
        body();
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

/* ---- in this process: faults the runtime recovers from ---------------------------------- */

static void a_fault_outside_plugins_reaches_the_runtime_untouched(void **state)
{
    (void)state;
    use_engine_handler();
    clear_log();
    runtime_mode = RECOVER;
    runtime_calls = 0;
    if (sigsetjmp(recover_to, 1) == 0)
        *nowhere = 1;
    assert_int_equal(runtime_calls, 1);
    assert_null(runtime_address);
    assert_string_equal(log_text(), "");
}

static void a_fault_the_runtime_recovers_from_in_a_plugin_call_leaves_no_line(void **state)
{
    (void)state;
    use_engine_handler();
    clear_log();
    runtime_mode = RECOVER;
    runtime_calls = 0;
    struct clrie_pm__crash_call saved;
    clrie_pm__crash_enter(&saved, "P", GUID, "InstrumentMethod");
    if (sigsetjmp(recover_to, 1) == 0)
        *nowhere = 1;
    clrie_pm__crash_leave(&saved);
    assert_int_equal(runtime_calls, 1);
    assert_string_equal(log_text(), "");
}

/* Whether sig was blocked while the runtime's handler ran. ThreadSanitizer runs every handler
 * from a handler of its own, under a mask of its own: there only the stack is checked. */
static void expect_blocked(int sig, bool blocked)
{
#if defined(__SANITIZE_THREAD__)
    (void)sig, (void)blocked;
#else
    assert_int_equal(sigismember(&runtime_blocked, sig), blocked);
#endif
}

/* A SIGFPE handled on the alternate stack, which the runtime did not ask for, overflowed it:
 * a caught DivideByZeroException killed every app as a stack overflow. */
static void the_runtime_runs_on_the_stack_and_with_the_mask_its_own_flags_ask_for(void **state)
{
    (void)state;
    use_engine_handler();
    clear_log();

    runtime_calls = 0;
    raise(SIGFPE);
    assert_int_equal(runtime_calls, 1);
    assert_false(runtime_on_alternate_stack);
    expect_blocked(SIGFPE, true);
    expect_blocked(SIGINT, true);
    expect_blocked(SIGSEGV, false);

    runtime_mode = RECOVER;
    runtime_calls = 0;
    if (sigsetjmp(recover_to, 1) == 0)
        *nowhere = 1;
    assert_int_equal(runtime_calls, 1);
    assert_true(runtime_on_alternate_stack);
    expect_blocked(SIGSEGV, true);
    expect_blocked(SIGINT, false);
    assert_string_equal(log_text(), "");
}

/* ---- in children: real crashes ----------------------------------------------------------- */

static void crash_in_call(void)
{
    runtime_mode = GIVE_UP;
    struct clrie_pm__crash_call saved;
    clrie_pm__crash_enter(&saved, "P", GUID, "InstrumentMethod");
    *nowhere = 1;
}

static void a_crash_in_a_plugin_call_names_the_plugin_and_the_call(void **state)
{
    (void)state;
    use_engine_handler();
    clear_log();
    int status = in_child(crash_in_call);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGSEGV);
    const char *text = log_text();
    assert_non_null(strstr(text, "LogError["));
    assert_non_null(strstr(text, "]:plugin 'P' " GUID " crashed (SIGSEGV at 0x0, pc 0x"));
    assert_non_null(strstr(text, " outside its code) in InstrumentMethod\n"));
    assert_null(strchr(strchr(text, '\n') + 1, '\n')); /* one line */
}

static void crash_in_plugin_code(void)
{
    runtime_mode = EXIT; /* a runtime whose crash handling never returns */
    clrie_pm__crash_add_module(&log_file, "P", GUID); /* any object of the module */
    plugin_code_crashes();
}

static void a_crash_in_plugin_code_is_named_before_the_runtime_handles_it(void **state)
{
    (void)state;
    use_engine_handler();
    clear_log();
    int status = in_child(crash_in_plugin_code);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 42);
    const char *text = log_text();
    assert_non_null(strstr(text, "plugin 'P' " GUID " crashed (SIGSEGV at 0x0, pc 0x"));
    assert_non_null(strstr(text, " in its code) outside any call from the engine"));
}

static void crash_then_runtime_aborts(void)
{
    runtime_mode = ABORT;
    clrie_pm__crash_add_module(&log_file, "P", GUID);
    plugin_code_crashes();
}

static void a_runtime_that_aborts_after_a_crash_adds_no_second_line(void **state)
{
    (void)state;
    use_engine_handler();
    clear_log();
    int status = in_child(crash_then_runtime_aborts);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    const char *text = log_text();
    assert_non_null(strstr(text, "plugin 'P' " GUID " crashed (SIGSEGV at 0x0, pc 0x"));
    assert_null(strchr(strchr(text, '\n') + 1, '\n')); /* one line */
}

static void abort_in_call(void)
{
    struct clrie_pm__crash_call outer, inner;
    clrie_pm__crash_enter(&outer, "Outer", GUID, "Initialize");
    clrie_pm__crash_enter(&inner, "Inner", "{AAAAAAAA-0000-0000-0000-000000000000}", "OnShutdown");
    clrie_pm__crash_leave(&inner);
    abort();
}

static void an_abort_names_the_innermost_call_still_in_progress(void **state)
{
    (void)state;
    use_engine_handler();
    clear_log();
    int status = in_child(abort_in_call);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    const char *text = log_text();
    assert_non_null(strstr(text, "plugin 'Outer' " GUID " crashed (SIGABRT, pc 0x"));
    assert_non_null(strstr(text, " in Initialize\n"));
}

/* ---- the line itself --------------------------------------------------------------------- */

static void no_line_when_no_plugin_is_involved(void **state)
{
    (void)state;
    char line[256] = "";
    assert_int_equal(clrie_pm__crash_describe(line, sizeof(line), SIGSEGV, SEGV_MAPERR, NULL,
                                              (const void *)&line),
                     0);
}

static void a_hostile_name_cannot_forge_a_line(void **state)
{
    (void)state;
    char line[256];
    struct clrie_pm__crash_call saved;
    clrie_pm__crash_enter(&saved, "x\nLogError[00:00:00]: \\", GUID, "OnModuleLoaded");
    size_t len = clrie_pm__crash_describe(line, sizeof(line), SIGBUS, BUS_ADRERR,
                                          (const void *)0x1234, NULL);
    clrie_pm__crash_leave(&saved);
    assert_int_equal(len, strlen(line));
    assert_string_equal(line, "plugin 'x\\x0aLogError[00:00:00]: \\x5c' " GUID
                              " crashed (SIGBUS at 0x1234) in OnModuleLoaded");
}

static void a_long_line_is_cut_to_the_buffer(void **state)
{
    (void)state;
    char line[24];
    struct clrie_pm__crash_call saved;
    clrie_pm__crash_enter(&saved, "P", GUID, "Initialize");
    size_t len = clrie_pm__crash_describe(line, sizeof(line), SIGILL, ILL_ILLOPC, NULL, NULL);
    clrie_pm__crash_leave(&saved);
    assert_int_equal(len, sizeof(line) - 1);
    assert_string_equal(line, "plugin 'P' {11111111-22");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_fault_outside_plugins_reaches_the_runtime_untouched),
        cmocka_unit_test(a_fault_the_runtime_recovers_from_in_a_plugin_call_leaves_no_line),
        cmocka_unit_test(the_runtime_runs_on_the_stack_and_with_the_mask_its_own_flags_ask_for),
        cmocka_unit_test(a_crash_in_a_plugin_call_names_the_plugin_and_the_call),
        cmocka_unit_test(a_crash_in_plugin_code_is_named_before_the_runtime_handles_it),
        cmocka_unit_test(a_runtime_that_aborts_after_a_crash_adds_no_second_line),
        cmocka_unit_test(an_abort_names_the_innermost_call_still_in_progress),
        cmocka_unit_test(no_line_when_no_plugin_is_involved),
        cmocka_unit_test(a_hostile_name_cannot_forge_a_line),
        cmocka_unit_test(a_long_line_is_cut_to_the_buffer),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
