/* What the log's tests share (log_testing.h). */
#include "log_testing.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "log.h"
#include "support.h"

char *log_test_env_entry(const char *name, const char *value)
{
    size_t n = strlen(name) + strlen(value) + 2;
    char *e = malloc(n);
    assert_non_null(e);
    snprintf(e, n, "%s=%s", name, value);
    return e;
}

size_t log_test_count(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

char *log_test_to(const char *path, const char *level, int *fd_out)
{
    char *env[] = {
        log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", path),
        log_test_env_entry("MicrosoftInstrumentationEngine_LogLevel", level ? level : "Errors"),
        NULL};
    struct test_stderr *captured = test_stderr_capture();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    if (fd_out)
        *fd_out = log.fd;
    CLRIE_PM_LOG_ERROR(&log, "after");
    clrie_pm_log_finish(&log);
    for (char **e = env; *e; e++)
        free(*e);
    return test_stderr_release(captured);
}

void log_test_assert_refused(const char *text, const char *path, const char *why)
{
    char expected[4400];
    snprintf(expected, sizeof(expected), "cannot open the log file '%s' (%s); logging to stderr\n",
             path, why);
    if (log_test_count(text, expected) != 1 ||
        log_test_count(text, "cannot open the log file") != 1)
        fail_msg("expected one line \"%s\"; stderr:\n%s", expected, text);
    if (!strstr(text, "]:after\n")) /* and the log still works, on stderr */
        fail_msg("a later line did not reach stderr:\n%s", text);
}
