/* The vectored exception handler (crash_win32.c) in front of a handler that stands for the
 * runtime's: every fault still reaches that handler (the engine's only looks); a fault in a
 * plugin's code, or in a library during a plugin call, leaves exactly one line naming the
 * plugin, its GUID and the exception; a fault outside any plugin, one in code of no module
 * during a plugin call (as managed code's, which the runtime turns into a NullReference- or
 * DivideByZeroException) and a software exception leave none. The faults are real, in a DLL
 * of this build (argv[1]) recorded as the plugin's module; the stand-in for the runtime
 * recovers from each by resuming the thread where the test asked. Each case runs on a thread
 * of its own, as a thread writes one line at most. */
#include <io.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <windows.h>

#include "clrie/os/module.h"
#include "crash.h"

#define GUID "{11111111-2222-3333-4444-555555555555}"
#define SOFTWARE_EXCEPTION 0xE06D7363 /* a C++ throw */

static const char *plugin_path;
static void (*plugin_write_null)(void);
static int (*plugin_divide)(int, int);
static char log_path[MAX_PATH];
static FILE *log_file;

/* ---- the stand-in for the runtime: after every vectored handler, it resumes the thread ---- */

static volatile LONG armed;
static volatile DWORD runtime_saw; /* the exception code the runtime's handler got */
static void *resume_at[5];         /* __builtin_setjmp's */

__attribute__((noinline)) static void resumed(void)
{
    __builtin_longjmp(resume_at, 1);
}

static LONG CALLBACK fake_runtime(EXCEPTION_POINTERS *exception)
{
    if (!InterlockedExchange(&armed, 0))
        return EXCEPTION_CONTINUE_SEARCH;
    runtime_saw = exception->ExceptionRecord->ExceptionCode;
    if (runtime_saw == SOFTWARE_EXCEPTION)
        return EXCEPTION_CONTINUE_EXECUTION; /* RaiseException returns */
    /* As if resumed() had been called from the faulting instruction. */
    CONTEXT *context = exception->ContextRecord;
#if defined(_WIN64)
    context->Rsp = (context->Rsp & ~(DWORD64)15) - 8;
    context->Rip = (DWORD64)(uintptr_t)resumed;
#else
    context->Esp = (context->Esp & ~(DWORD)15) - 4;
    context->Eip = (DWORD)(uintptr_t)resumed;
#endif
    return EXCEPTION_CONTINUE_EXECUTION;
}

/* Runs statement, which faults, and goes on once the stand-in for the runtime has handled it. */
#define FAULTING(statement)                                                                        \
    do {                                                                                           \
        runtime_saw = 0;                                                                           \
        armed = 1;                                                                                 \
        if (__builtin_setjmp(resume_at) == 0) {                                                    \
            statement;                                                                             \
        }                                                                                          \
        armed = 0;                                                                                 \
    } while (0)

/* ---- helpers ----------------------------------------------------------------------------- */

static int *volatile nowhere;
static volatile int zero;

/* Code of no module, as the runtime's compiled code is: xor ecx, ecx; div ecx; ret. */
static int (*unmapped_divide)(void);

static DWORD WINAPI run_body(LPVOID body)
{
    ((void (*)(void))(uintptr_t)body)();
    return 0;
}

/* Runs body on a new thread and waits for it. */
static void on_new_thread(void (*body)(void))
{
    HANDLE thread = CreateThread(NULL, 0, run_body, (LPVOID)(uintptr_t)body, 0, NULL);
    assert_non_null(thread);
    assert_int_equal(WaitForSingleObject(thread, INFINITE), WAIT_OBJECT_0);
    CloseHandle(thread);
}

static char *log_text(void)
{
    static char text[4096];
    fflush(log_file);
    FILE *f = fopen(log_path, "rb");
    size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    return text;
}

static void clear_log(void)
{
    fflush(log_file);
    assert_int_equal(_chsize(_fileno(log_file), 0), 0);
}

static void expect_one_line(const char *text)
{
    const char *end = strchr(text, '\n');
    assert_non_null(end);
    assert_null(strchr(end + 1, '\n'));
    assert_true(strncmp(text, "LogError[", 9) == 0);
}

static int setup(void **state)
{
    (void)state;
    struct clrie_os_module *plugin = NULL;
    char why[256] = "";
    if (clrie_os_module_load(plugin_path, &plugin, why, sizeof(why)) != 0) {
        fprintf(stderr, "cannot load %s: %s\n", plugin_path, why);
        return -1;
    }
    plugin_write_null = (void (*)(void))clrie_os_module_function(plugin, "crash_write_null");
    plugin_divide = (int (*)(int, int))clrie_os_module_function(plugin, "crash_divide");
    if (!plugin_write_null || !plugin_divide)
        return -1;

    static const unsigned char divide_code[] = {0x31, 0xc9, 0xf7, 0xf1, 0xc3};
    void *page = VirtualAlloc(NULL, 4096, MEM_COMMIT | MEM_RESERVE, PAGE_EXECUTE_READWRITE);
    if (!page)
        return -1;
    memcpy(page, divide_code, sizeof(divide_code));
    unmapped_divide = (int (*)(void))(uintptr_t)page;

    char folder[MAX_PATH];
    GetTempPathA(sizeof(folder), folder);
    snprintf(log_path, sizeof(log_path), "%sclrie-crash-win32-%lu.log", folder,
             (unsigned long)GetCurrentProcessId());
    log_file = fopen(log_path, "w+b");
    if (!log_file)
        return -1;
    /* As in the engine: the runtime's handlers first, then the engine's, in front of them. */
    AddVectoredExceptionHandler(0, fake_runtime);
    clrie_pm__crash_install(_fileno(log_file));
    clrie_pm__crash_add_module((const void *)(uintptr_t)plugin_write_null, "P", GUID);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fclose(log_file);
    DeleteFileA(log_path);
    return 0;
}

/* ---- the cases --------------------------------------------------------------------------- */

static void fault_in_plugin_code(void)
{
    FAULTING(plugin_write_null());
}

static void a_fault_in_plugin_code_names_the_plugin(void **state)
{
    (void)state;
    clear_log();
    on_new_thread(fault_in_plugin_code);
    assert_int_equal(runtime_saw, EXCEPTION_ACCESS_VIOLATION);
    const char *text = log_text();
    expect_one_line(text);
    assert_non_null(
        strstr(text, "]:plugin 'P' " GUID " crashed (EXCEPTION_ACCESS_VIOLATION at 0x0, pc 0x"));
    assert_non_null(strstr(text, " in its code) outside any call from the engine ("));
}

static volatile DWORD second_fault_seen;

static void divide_in_call_twice(void)
{
    struct clrie_pm__crash_call saved;
    clrie_pm__crash_enter(&saved, "P", GUID, "InstrumentMethod");
    FAULTING(plugin_divide(1, zero));
    FAULTING(plugin_write_null());
    second_fault_seen = runtime_saw;
    clrie_pm__crash_leave(&saved);
}

static void a_division_by_zero_in_a_plugin_call_names_the_call_once(void **state)
{
    (void)state;
    clear_log();
    on_new_thread(divide_in_call_twice);
    assert_int_equal(second_fault_seen, EXCEPTION_ACCESS_VIOLATION);
    const char *text = log_text();
    expect_one_line(text);
    assert_non_null(strstr(text, "]:plugin 'P' " GUID " crashed (EXCEPTION_INT_DIVIDE_BY_ZERO, "
                                 "pc 0x"));
    assert_non_null(strstr(text, " in its code) in InstrumentMethod\n"));
}

static void fault_in_a_library_in_call(void)
{
    struct clrie_pm__crash_call saved;
    clrie_pm__crash_enter(&saved, "P", GUID, "OnModuleLoaded");
    FAULTING(*nowhere = 1); /* this program stands for a library the plugin called */
    clrie_pm__crash_leave(&saved);
}

static void a_fault_in_a_library_during_a_plugin_call_names_the_call(void **state)
{
    (void)state;
    clear_log();
    on_new_thread(fault_in_a_library_in_call);
    assert_int_equal(runtime_saw, EXCEPTION_ACCESS_VIOLATION);
    const char *text = log_text();
    expect_one_line(text);
    assert_non_null(
        strstr(text, "]:plugin 'P' " GUID " crashed (EXCEPTION_ACCESS_VIOLATION at 0x0, pc 0x"));
    assert_non_null(strstr(text, " outside its code) in OnModuleLoaded\n"));
}

static void fault_outside_plugins(void)
{
    FAULTING(*nowhere = 1);
    FAULTING(unmapped_divide());
}

static void a_fault_outside_any_plugin_writes_nothing(void **state)
{
    (void)state;
    clear_log();
    on_new_thread(fault_outside_plugins);
    assert_int_equal(runtime_saw, EXCEPTION_INT_DIVIDE_BY_ZERO);
    assert_string_equal(log_text(), "");
}

static void managed_like_faults_in_call(void)
{
    struct clrie_pm__crash_call saved;
    clrie_pm__crash_enter(&saved, "P", GUID, "InstrumentMethod");
    FAULTING(unmapped_divide());
    FAULTING(RaiseException(SOFTWARE_EXCEPTION, 0, 0, NULL));
    clrie_pm__crash_leave(&saved);
}

static void what_the_runtime_recovers_from_in_a_plugin_call_writes_nothing(void **state)
{
    (void)state;
    clear_log();
    on_new_thread(managed_like_faults_in_call);
    assert_int_equal(runtime_saw, SOFTWARE_EXCEPTION);
    assert_string_equal(log_text(), "");
}

static void the_line_for_an_exception_without_an_address(void **state)
{
    (void)state;
    char line[256];
    struct clrie_pm__crash_call saved;
    clrie_pm__crash_enter(&saved, "P", GUID, "Initialize");
    size_t len =
        clrie_pm__crash_describe(line, sizeof(line), (int)EXCEPTION_STACK_OVERFLOW, 0, NULL, NULL);
    clrie_pm__crash_leave(&saved);
    assert_int_equal(len, strlen(line));
    assert_string_equal(line,
                        "plugin 'P' " GUID " crashed (EXCEPTION_STACK_OVERFLOW) in Initialize");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CRASH_PLUGIN_DLL\n", argv[0]);
        return 2;
    }
    plugin_path = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_fault_in_plugin_code_names_the_plugin),
        cmocka_unit_test(a_division_by_zero_in_a_plugin_call_names_the_call_once),
        cmocka_unit_test(a_fault_in_a_library_during_a_plugin_call_names_the_call),
        cmocka_unit_test(a_fault_outside_any_plugin_writes_nothing),
        cmocka_unit_test(what_the_runtime_recovers_from_in_a_plugin_call_writes_nothing),
        cmocka_unit_test(the_line_for_an_exception_without_an_address),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
