/* The proxy tests' part on Windows (scenario.h). Windows has no fork: a scenario plays in the
 * test program started again with CreateProcessW, the scenario's fields on its command line
 * ("--proxy-scenario RESULT PROXY THREADS NULL_OUT UNLOAD_FIRST UNLOAD AGAIN"), its
 * environment an explicit UTF-16 block holding exactly the scenario's variables, its stderr a
 * file of the test tree. The child writes its outcome to the file RESULT. */
#include "scenario.h"

#include <fcntl.h>
#include <io.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

#include <cmocka.h>

#include "clrie/os/process.h"
#include "support.h"

#define CHILD_MARKER "--proxy-scenario"
#define CHILD_ARGUMENTS 9 /* the program, the marker and the seven fields */
#define CHILD_TIMEOUT_MS 60000

const struct system_facts system_facts = {
    .not_a_module = "not a complete DLL for this machine",
    .full_device = NULL,                    /* NUL takes every write; no device refuses them */
    .names_take_control_characters = false, /* characters 1 to 31 are not allowed in names */
    .unload_unmaps = true,
};

/* ---- the child -------------------------------------------------------------------------- */

static int write_outcome(const char *path, const struct outcome *o)
{
    wchar_t *w = test_utf16(path);
    FILE *f = _wfopen(w, L"wb");
    free(w);
    if (!f)
        return 14;
    bool written = fwrite(o, sizeof(*o), 1, f) == 1;
    return fclose(f) == 0 && written ? 0 : 14;
}

int scenario_child_main(void)
{
    char **args = NULL;
    size_t count = 0;
    if (clrie_os_process_arguments(&args, &count) != 0)
        return -1;
    if (count != CHILD_ARGUMENTS || strcmp(args[1], CHILD_MARKER) != 0) {
        clrie_os_process_arguments_free(args);
        return -1;
    }
    /* Byte for byte, as on POSIX: the C runtime would write "\r\n" for each "\n" of a line. */
    _setmode(2, _O_BINARY);
    struct scenario sc = {
        .proxy = args[3],
        .threads = atoi(args[4]),
        .null_out = strcmp(args[5], "1") == 0,
        .unload_first = strcmp(args[6], "1") == 0,
        .unload = strcmp(args[7], "1") == 0,
        .again = strcmp(args[8], "1") == 0,
    };
    struct outcome o = {0};
    int status = scenario_play(&sc, &o);
    if (status == 0)
        status = write_outcome(args[2], &o);
    clrie_os_process_arguments_free(args);
    return status;
}

/* ---- the test's side -------------------------------------------------------------------- */

/* Appends arg to the command line at *end as CommandLineToArgvW reads it back: in quotes, a
 * quote escaped, and the backslashes before a quote (or before the closing one) doubled. The
 * buffer has room for 2 * strlen(arg) + 3 more characters. */
static void append_argument(char **end, const char *arg)
{
    char *p = *end;
    *p++ = ' ';
    *p++ = '"';
    for (const char *c = arg;; c++) {
        size_t backslashes = 0;
        for (; *c == '\\'; c++)
            backslashes++;
        bool before_quote = *c == '"' || *c == '\0';
        for (size_t i = 0; i < (before_quote ? 2 * backslashes : backslashes); i++)
            *p++ = '\\';
        if (*c == '\0')
            break;
        if (*c == '"')
            *p++ = '\\';
        *p++ = *c;
    }
    *p++ = '"';
    *end = p;
}

/* The command line that starts this program as the child of sc, in UTF-16 (malloc'd). */
static wchar_t *child_command_line(const struct scenario *sc, const char *result_path)
{
    char *program = NULL;
    assert_int_equal(clrie_os_process_program(&program), 0);
    char threads[16];
    snprintf(threads, sizeof(threads), "%d", sc->threads);
    const char *fields[CHILD_ARGUMENTS] = {
        program,
        CHILD_MARKER,
        result_path,
        sc->proxy,
        threads,
        sc->null_out ? "1" : "0",
        sc->unload_first ? "1" : "0",
        sc->unload ? "1" : "0",
        sc->again ? "1" : "0",
    };
    size_t size = 1;
    for (size_t i = 0; i < CHILD_ARGUMENTS; i++)
        size += 2 * strlen(fields[i]) + 3;
    char *line = malloc(size);
    assert_non_null(line);
    char *end = line;
    for (size_t i = 0; i < CHILD_ARGUMENTS; i++)
        append_argument(&end, fields[i]);
    *end = '\0';
    wchar_t *w = test_utf16(line + 1); /* without the space before the first argument */
    free(line);
    free(program);
    return w;
}

/* The environment block of exactly sc->env: each NAME=VALUE in UTF-16 and its NUL, then one
 * more NUL (two for an empty block). */
static wchar_t *child_environment(const struct scenario *sc)
{
    size_t units = 2;
    for (size_t i = 0; sc->env[i]; i++) {
        wchar_t *entry = test_utf16(sc->env[i]);
        units += wcslen(entry) + 1;
        free(entry);
    }
    wchar_t *block = calloc(units, sizeof(*block));
    assert_non_null(block);
    wchar_t *p = block;
    for (size_t i = 0; sc->env[i]; i++) {
        wchar_t *entry = test_utf16(sc->env[i]);
        size_t n = wcslen(entry) + 1;
        memcpy(p, entry, n * sizeof(*p));
        p += n;
        free(entry);
    }
    return block;
}

/* A new file at path that a child process may inherit as its stderr. */
static HANDLE inheritable_file(const char *path)
{
    SECURITY_ATTRIBUTES inherit = {.nLength = sizeof(inherit), .bInheritHandle = TRUE};
    wchar_t *w = test_utf16(path);
    HANDLE h = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit,
                           CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        fail_msg("cannot create %s: Windows error %lu", path, (unsigned long)GetLastError());
    return h;
}

/* Starts the child, waits for it and returns its exit status. */
static DWORD run_child(const struct scenario *sc, const char *result_path, const char *log_path)
{
    wchar_t *command = child_command_line(sc, result_path);
    wchar_t *environment = child_environment(sc);
    HANDLE log = inheritable_file(log_path);
    /* The child prints nothing on stdout and reads nothing. */
    STARTUPINFOW startup = {
        .cb = sizeof(startup), .dwFlags = STARTF_USESTDHANDLES, .hStdError = log};
    PROCESS_INFORMATION child;
    BOOL started = CreateProcessW(NULL, command, NULL, NULL, TRUE, CREATE_UNICODE_ENVIRONMENT,
                                  environment, NULL, &startup, &child);
    DWORD error = GetLastError();
    CloseHandle(log);
    free(environment);
    free(command);
    if (!started)
        fail_msg("cannot start the scenario's child: Windows error %lu", (unsigned long)error);
    CloseHandle(child.hThread);
    DWORD status = 0;
    if (WaitForSingleObject(child.hProcess, CHILD_TIMEOUT_MS) != WAIT_OBJECT_0) {
        /* a scenario that hangs (on a pipe, on a lock) fails instead of stalling */
        TerminateProcess(child.hProcess, 99);
        WaitForSingleObject(child.hProcess, INFINITE);
        status = 99;
    } else if (!GetExitCodeProcess(child.hProcess, &status)) {
        status = 98;
    }
    CloseHandle(child.hProcess);
    return status;
}

static void remove_file(const char *path)
{
    wchar_t *w = test_utf16(path);
    DeleteFileW(w);
    free(w);
}

struct outcome scenario_run(const char *tree, const struct scenario *sc)
{
    /* No other users, nor permission bits that bind Administrators: see the callers. */
    assert_false(sc->ordinary_user);
    char *log_path = test_path(tree, "child-stderr.log");
    char *result_path = test_path(tree, "child-outcome.bin");
    remove_file(result_path);
    DWORD status = run_child(sc, result_path, log_path);
    size_t got = 0;
    char *result = test_read_file(result_path, &got);
    struct outcome o = {0};
    if (result && got == sizeof(o))
        memcpy(&o, result, sizeof(o));
    free(result);
    o.log = test_read_file(log_path, NULL);
    if (status != 0 || got != sizeof(o))
        fail_msg("scenario child failed (status %lu); its stderr:\n%s", (unsigned long)status,
                 o.log ? o.log : "(none)");
    remove_file(result_path);
    remove_file(log_path);
    free(result_path);
    free(log_path);
    return o;
}

void log_pipe_make(const char *tree, struct log_pipe *pipe)
{
    (void)tree; /* named pipes live in their own namespace */
    static unsigned made;
    char name[96];
    snprintf(name, sizeof(name), "\\\\.\\pipe\\clrie-test-proxy-%lu-%u", clrie_os_process_id(),
             made++);
    pipe->path = strdup(name);
    assert_non_null(pipe->path);
    pipe->refusal = "it is a pipe or another kind of file, not a regular file or a character "
                    "device";
    wchar_t *w = test_utf16(name);
    HANDLE server = CreateNamedPipeW(w, PIPE_ACCESS_INBOUND, PIPE_TYPE_BYTE | PIPE_WAIT, 1, 4096,
                                     4096, 0, NULL);
    free(w);
    assert_true(server != INVALID_HANDLE_VALUE);
    pipe->server = (intptr_t)server;
}

void log_pipe_free(struct log_pipe *pipe)
{
    CloseHandle((HANDLE)pipe->server);
    free(pipe->path);
}
