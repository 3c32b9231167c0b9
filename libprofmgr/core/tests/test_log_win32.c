/* The engine log on Windows files: the log file's handle is not inherited, the null device is
 * a log file, and a pipe or a folder is refused without blocking and without a byte written
 * to it, the log then going on on stderr; a deleted log file is noticed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <io.h>
#include <windows.h>

#include "clrie/os/log_file.h"
#include "clrie/os/process.h"
#include "log.h"
#include "log_testing.h"
#include "support.h"

static void a_log_file_is_not_inherited(void **state)
{
    char *tree = test_tree_new();
    char *file = test_path(tree, "engine.log");
    char *env[] = {log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", file), NULL};
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    assert_true(log.fd >= 0);
    DWORD flags = 0;
    assert_true(GetHandleInformation((HANDLE)_get_osfhandle(log.fd), &flags));
    assert_false(flags & HANDLE_FLAG_INHERIT); /* a child process gets no copy */
    clrie_pm_log_finish(&log);
    free(env[0]);
    free(file);
    test_tree_free(tree);
}

static void the_null_device_is_a_log_file(void **state)
{
    int fd = -1;
    char *text = log_test_to("NUL", NULL, &fd);
    assert_true(fd >= 0);
    assert_string_equal(text, ""); /* everything went to NUL */
    free(text);
}

static void a_pipe_is_refused_and_gets_nothing(void **state)
{
    char name[128];
    snprintf(name, sizeof(name), "\\\\.\\pipe\\clrie-test-log-%lu", clrie_os_process_id());
    HANDLE server = CreateNamedPipeA(name, PIPE_ACCESS_INBOUND, PIPE_TYPE_BYTE | PIPE_WAIT, 1, 4096,
                                     4096, 0, NULL);
    assert_true(server != INVALID_HANDLE_VALUE);
    int fd = 0;
    char *text = log_test_to(name, NULL, &fd);
    assert_int_equal(fd, -1);
    log_test_assert_refused(text, name, "it is a pipe or another kind of file" NOT_A_FILE);
    /* The log closed its end at once: with nothing written, the first read finds the end. */
    char buf[16];
    DWORD got = 0;
    assert_false(ReadFile(server, buf, sizeof(buf), &got, NULL));
    assert_int_equal(GetLastError(), ERROR_BROKEN_PIPE);
    assert_int_equal(got, 0); /* not a byte went into the pipe */
    CloseHandle(server);
    free(text);
}

static void a_folder_in_place_of_the_file_is_refused(void **state)
{
    char *tree = test_tree_new();
    char name[64];
    snprintf(name, sizeof(name), "logs/ProfilerLog_%lu.txt", clrie_os_process_id());
    test_tree_mkdir(tree, name);
    char *logs = test_path(tree, "logs");
    char *text = log_test_to(logs, NULL, NULL);
    log_test_assert_refused(text, logs, "Permission denied");
    free(text);
    free(logs);
    test_tree_free(tree);
}

/* A log file deleted while the engine holds it. Where Windows removes the name at once (POSIX
 * semantics) the handle shows the deletion: the engine makes the file again, or says on stderr
 * that it cannot. Where the name stays until the last handle closes (older systems, Wine) the
 * lines go on in the file that still has its name. Whichever it is, the next lines are where
 * an operator can read them, and nothing is said twice. */
static void a_deleted_log_file_goes_on_where_an_operator_can_read_it(void **state)
{
    char *tree = test_tree_new();
    char *file = test_path(tree, "engine.log");
    char *env[] = {log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", file), NULL};
    struct test_stderr *c = test_stderr_capture();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    CLRIE_PM_LOG_ERROR(&log, "before");
    bool removed = DeleteFileA(file);
    bool seen = clrie_os_log_file_deleted(log.fd);
    CLRIE_PM_LOG_ERROR(&log, "after");
    bool renewed = seen && !clrie_os_log_file_deleted(log.fd);
    DWORD flags = HANDLE_FLAG_INHERIT;
    bool got_flags = GetHandleInformation((HANDLE)_get_osfhandle(log.fd), &flags);
    char *text = test_read_file(file, NULL); /* through the name, as an operator would */
    clrie_pm_log_finish(&log);
    char *err = test_stderr_release(c); /* cmocka's own lines go to stderr too: assert after */
    assert_true(removed);
    assert_true(got_flags);
    assert_false(flags & HANDLE_FLAG_INHERIT);
    char said[512];
    if (!seen) {
        assert_string_equal(err, "");
        assert_non_null(text);
        assert_non_null(strstr(text, "]:before\n"));
        assert_non_null(strstr(text, "]:after\n"));
        assert_null(strstr(text, "was deleted"));
    } else if (renewed) {
        assert_string_equal(err, "");
        assert_non_null(text);
        snprintf(said, sizeof(said),
                 "the log file '%s' was deleted; this is a new one at the same path\n", file);
        assert_int_equal(log_test_count(text, said), 1);
        assert_true(strstr(text, said) < strstr(text, "]:after\n"));
        assert_null(strstr(text, "]:before"));
    } else {
        snprintf(said, sizeof(said), "the log file '%s' was deleted and cannot be made again (",
                 file);
        assert_int_equal(log_test_count(err, said), 1);
        assert_non_null(strstr(err, "); logging to stderr from now on\n"));
        assert_true(strstr(err, said) < strstr(err, "]:after\n"));
    }
    print_message("the deleted log file: %s\n",
                  !seen     ? "its name stays until the engine closes it; the lines go on there"
                  : renewed ? "made again"
                            : "cannot be made again; the lines went to stderr");
    free(text);
    free(err);
    free(env[0]);
    free(file);
    test_tree_free(tree);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_log_file_is_not_inherited),
        cmocka_unit_test(the_null_device_is_a_log_file),
        cmocka_unit_test(a_pipe_is_refused_and_gets_nothing),
        cmocka_unit_test(a_folder_in_place_of_the_file_is_refused),
        cmocka_unit_test(a_deleted_log_file_goes_on_where_an_operator_can_read_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
