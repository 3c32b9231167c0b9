/* The engine log: what lands where for each CLRIE logging variable, on every system (the kinds
 * of file each system has are test_log_posix.c's and test_log_win32.c's). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/os/log_file.h"
#include "clrie/os/process.h"
#include "clrie/os/thread.h"
#include "log.h"
#include "log_testing.h"
#include "support.h"

static void parses_level_words_like_clrie_and_then_some(void **state)
{
    static const struct {
        const char *text;
        unsigned kinds;
        bool unknown;
    } cases[] = {
        {"Errors|Messages", 3, false},
        {"All", 7, false},
        {"dumps, errors", 5, false},
        {"None", 0, false},
        {NULL, 0, false},
        {"Errors|Verbose", 1, true},
        /* any case, as the engine has always read it and the proxy now does too */
        {"messages", 2, false},
        {"MESSAGES", 2, false},
        {"eRRORS|DuMpS", 5, false},
        {"ALL", 7, false},
        {"NONE", 0, false},
        /* what CLRIE finds inside a word: it looks for the words anywhere in the value */
        {"ErrorsMessages", 3, false},
        {"LogAll", 7, false},
        {"Chatty", 0, true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bool unknown = !cases[i].unknown;
        if (clrie_pm_log_parse_kinds(cases[i].text, &unknown) != cases[i].kinds ||
            unknown != cases[i].unknown)
            fail_msg("'%s' read as 0x%x%s", cases[i].text ? cases[i].text : "(unset)",
                     clrie_pm_log_parse_kinds(cases[i].text, NULL), unknown ? ", unknown" : "");
    }
}

static void errors_reach_stderr_even_with_no_configuration(void **state)
{
    struct test_stderr *c = test_stderr_capture();
    char *env[] = {NULL};
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    assert_true(clrie_pm_log_enabled(&log, CLRIE_PM_LOG_ERRORS));
    assert_false(clrie_pm_log_enabled(&log, CLRIE_PM_LOG_MESSAGES));
    CLRIE_PM_LOG_ERROR(&log, "plugin %s failed to load: 0x%08x", "Nagler", 0x8007007eu);
    CLRIE_PM_LOG_MESSAGE(&log, "not shown");
    clrie_pm_log_finish(&log);
    char *text = test_stderr_release(c);
    assert_non_null(strstr(text, "LogError["));
    assert_non_null(strstr(text, "]:plugin Nagler failed to load: 0x8007007e\n"));
    assert_null(strstr(text, "not shown"));
    free(text);
}

static void a_log_file_takes_everything_asked_for(void **state)
{
    char *tree = test_tree_new();
    char *file = test_path(tree, "engine.log");
    char *env[] = {log_test_env_entry("MicrosoftInstrumentationEngine_LogLevel", "Messages"),
                   log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", file), NULL};
    struct test_stderr *c = test_stderr_capture();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    CLRIE_PM_LOG_MESSAGE(&log, "loaded %d plugins", 2);
    CLRIE_PM_LOG_ERROR(&log, "one failed");
    clrie_pm_log_write(&log, CLRIE_PM_LOG_DUMPS, NULL, "<dump/>");
    clrie_pm_log_finish(&log);
    char *err = test_stderr_release(c);
    assert_string_equal(err, "");
    char *text = test_read_file(file, NULL);
    assert_non_null(strstr(text, "LogMessage["));
    assert_non_null(strstr(text, "]:loaded 2 plugins\n"));
    assert_non_null(strstr(text, "]:one failed\n"));
    assert_null(strstr(text, "<dump/>")); /* dumps were not asked for */
    free(text);
    free(err);
    for (char **e = env; *e; e++)
        free(*e);
    free(file);
    test_tree_free(tree);
}

static void a_folder_gets_a_file_named_after_the_process(void **state)
{
    const char *suffixes[] = {"", "/"};
    for (size_t i = 0; i < 2; i++) {
        char *tree = test_tree_new();
        char path[4096];
        snprintf(path, sizeof(path), "%s%s", tree, suffixes[i]);
        char *env[] = {log_test_env_entry("MicrosoftInstrumentationEngine_LogLevel", "All"),
                       log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", path),
                       NULL};
        struct clrie_pm_log log;
        assert_int_equal(clrie_pm_log_init(&log, env), 0);
        clrie_pm_log_write(&log, CLRIE_PM_LOG_DUMPS, NULL, "<dump/>");
        clrie_pm_log_finish(&log);
        char expected[4200];
        snprintf(expected, sizeof(expected), "ProfilerLog_%lu.txt", clrie_os_process_id());
        char *file = test_path(tree, expected);
        char *text = test_read_file(file, NULL);
        free(file);
        assert_non_null(text);
        assert_string_equal(text, "<dump/>\n"); /* dumps are written as they are */
        free(text);
        for (char **e = env; *e; e++)
            free(*e);
        test_tree_free(tree);
    }
}

static void a_log_file_is_appended_to(void **state)
{
    char *tree = test_tree_new();
    test_tree_write(tree, "engine.log", "earlier\n", 8);
    char *file = test_path(tree, "engine.log");
    char *env[] = {log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", file), NULL};
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    assert_true(log.fd >= 0);
    CLRIE_PM_LOG_ERROR(&log, "later");
    clrie_pm_log_finish(&log);
    char *text = test_read_file(file, NULL);
    assert_int_equal(strncmp(text, "earlier\nLogError[", 17), 0);
    assert_non_null(strstr(text, "]:later\n"));
    free(text);
    free(env[0]);
    free(file);
    test_tree_free(tree);
}

static void an_unusable_log_file_is_reported_on_stderr(void **state)
{
    char *env[] = {
        log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", "/nonexistent/x.log"),
        log_test_env_entry("MicrosoftInstrumentationEngine_LogLevel", "Errors|Chatty"), NULL};
    struct test_stderr *c = test_stderr_capture();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    CLRIE_PM_LOG_ERROR(&log, "still seen");
    clrie_pm_log_finish(&log);
    char *text = test_stderr_release(c);
    assert_non_null(strstr(text, "cannot open the log file '/nonexistent/x.log' (No such file or "
                                 "directory); logging to stderr"));
    assert_non_null(strstr(text, "LogLevel='Errors|Chatty' has a word other than"));
    assert_non_null(strstr(text, "still seen"));
    free(text);
    for (char **e = env; *e; e++)
        free(*e);
}

static void each_plugin_can_have_its_own_level(void **state)
{
    char *env[] = {
        log_test_env_entry("MicrosoftInstrumentationEngine_LogLevel_" GUID_A, "Messages"), NULL};
    struct test_stderr *c = test_stderr_capture();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    assert_int_equal(clrie_pm_log_kinds_for(&log, GUID_A), 3);
    assert_int_equal(clrie_pm_log_kinds_for(&log, "0d92a8d9-6645-4803-b94b-06a1c4f4e633"), 3);
    assert_int_equal(clrie_pm_log_kinds_for(&log, GUID_B), 1);
    clrie_pm_log_write(&log, CLRIE_PM_LOG_MESSAGES, GUID_A, "from A");
    clrie_pm_log_write(&log, CLRIE_PM_LOG_MESSAGES, GUID_B, "from B");
    clrie_pm_log_write(&log, CLRIE_PM_LOG_MESSAGES, NULL, "from the engine");
    clrie_pm_log_finish(&log);
    char *text = test_stderr_release(c);
    assert_non_null(strstr(text, "LogMessage["));
    /* CLRIE's form: the class ID in lower case, no braces, no space on either side. */
    assert_non_null(strstr(text, "]:[IM:0d92a8d9-6645-4803-b94b-06a1c4f4e633]from A\n"));
    assert_null(strstr(text, "from B"));
    assert_null(strstr(text, "from the engine"));
    free(text);
    free(env[0]);
}

static void a_plugin_level_without_a_known_word_is_reported(void **state)
{
    char *env[] = {log_test_env_entry("MicrosoftInstrumentationEngine_LogLevel_" GUID_A, "Verbose"),
                   NULL};
    struct test_stderr *c = test_stderr_capture();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    assert_int_equal(clrie_pm_log_kinds_for(&log, GUID_A), 1); /* errors still reach it */
    clrie_pm_log_finish(&log);
    char *text = test_stderr_release(c);
    assert_non_null(strstr(text, "LogError["));
    assert_non_null(strstr(text, "MicrosoftInstrumentationEngine_LogLevel_" GUID_A
                                 "='Verbose' has a word other than Errors, Messages, Dumps, All "
                                 "or None"));
    free(text);
    free(env[0]);
}

static void the_method_prefix_can_be_turned_off(void **state)
{
    char *env[] = {(char *)"MicrosoftInstrumentationEngine_DisableLogMethodPrefix=", NULL};
    struct test_stderr *c = test_stderr_capture();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    clrie_pm_log_write(&log, CLRIE_PM_LOG_ERRORS, GUID_A, "bare");
    clrie_pm_log_finish(&log);
    char *text = test_stderr_release(c);
    assert_non_null(strstr(text, "]:bare\n"));
    assert_null(strstr(text, "[IM:"));
    free(text);
}

/* CLRIE marks a plugin's dump lines too (with no time: dumps never have one). */
static void a_plugin_dump_line_carries_the_plugin_prefix(void **state)
{
    char *env[] = {(char *)"MicrosoftInstrumentationEngine_LogLevel=Dumps", NULL};
    struct test_stderr *c = test_stderr_capture();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    clrie_pm_log_write(&log, CLRIE_PM_LOG_DUMPS, GUID_A, "<m/>");
    clrie_pm_log_write(&log, CLRIE_PM_LOG_DUMPS, NULL, "<engine/>");
    clrie_pm_log_finish(&log);
    char *text = test_stderr_release(c);
    assert_string_equal(text, "[IM:0d92a8d9-6645-4803-b94b-06a1c4f4e633]<m/>\n<engine/>\n");
    free(text);
}

static void the_file_level_overrides_for_the_file(void **state)
{
    char *tree = test_tree_new();
    char *file = test_path(tree, "engine.log");
    char *env[] = {log_test_env_entry("MicrosoftInstrumentationEngine_LogLevel", "Errors"),
                   log_test_env_entry("MicrosoftInstrumentationEngine_FileLog", "Dumps"),
                   log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", file), NULL};
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    assert_true(clrie_pm_log_enabled(&log, CLRIE_PM_LOG_DUMPS));
    clrie_pm_log_write(&log, CLRIE_PM_LOG_DUMPS, NULL, "<method/>");
    clrie_pm_log_finish(&log);
    char *text = test_read_file(file, NULL);
    assert_string_equal(text, "<method/>\n");
    free(text);
    for (char **e = env; *e; e++)
        free(*e);
    free(file);
    test_tree_free(tree);
}

static void a_line_built_in_pieces_is_written_whole_and_escaped(void **state)
{
    char *env[] = {NULL};
    struct test_stderr *c = test_stderr_capture();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init_tagged(&log, env, "clrie proxy: "), 0);
    struct clrie_pm_log_line line;
    clrie_pm_log_line_begin(&line, &log, CLRIE_PM_LOG_ERRORS, NULL, "no engine under '");
    clrie_pm_log_line_append_escaped(&line, "/opt/x\nLogError[00:00:00]: forged\\x\xe9 "
                                            "C:\\Pl\xc3\xbcgin-\xe4\xb8\xad \xe2\x80\xae\xc0\xaf");
    clrie_pm_log_line_append(&line, "' (%d candidates)", 3);
    clrie_pm_log_line_end(&line);
    /* A line of a kind that is off goes nowhere, whatever is appended. */
    clrie_pm_log_line_begin(&line, &log, CLRIE_PM_LOG_MESSAGES, NULL, "quiet");
    clrie_pm_log_line_append_escaped(&line, "still quiet");
    clrie_pm_log_line_end(&line);
    clrie_pm_log_finish(&log);
    char *text = test_stderr_release(c);
    assert_int_equal(strncmp(text, "LogError[", 9), 0);
    assert_string_equal(strstr(text, "]:"), "]:clrie proxy: no engine under "
                                            "'/opt/x\\x0aLogError[00:00:00]: forged\\x5cx\\xe9 "
                                            "C:\\Pl\xc3\xbcgin-\xe4\xb8\xad "
                                            "\\xe2\\x80\\xae\\xc0\\xaf' "
                                            "(3 candidates)\n");
    assert_null(strstr(text, "quiet"));
    free(text);
}

static void a_tag_marks_every_line_but_dumps(void **state)
{
    char *tree = test_tree_new();
    char *file = test_path(tree, "engine.log");
    char *env[] = {log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", file),
                   log_test_env_entry("MicrosoftInstrumentationEngine_LogLevel", "all"), NULL};
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init_tagged(&log, env, "clrie proxy: "), 0);
    CLRIE_PM_LOG_MESSAGE(&log, "hello");
    clrie_pm_log_write(&log, CLRIE_PM_LOG_DUMPS, NULL, "<dump/>");
    clrie_pm_log_finish(&log);
    char *text = test_read_file(file, NULL);
    assert_non_null(strstr(text, "]:clrie proxy: hello\n<dump/>\n"));
    free(text);
    for (char **e = env; *e; e++)
        free(*e);
    free(file);
    test_tree_free(tree);
}

struct host_record {
    int calls;
    enum clrie_pm_log_kind kind;
    char line[256];
};

static void record(void *context, enum clrie_pm_log_kind kind, const char *line)
{
    struct host_record *r = context;
    r->calls++;
    r->kind = kind;
    snprintf(r->line, sizeof(r->line), "%s", line);
}

static void a_host_receives_lines_until_removed(void **state)
{
    char *env[] = {NULL};
    struct test_stderr *c = test_stderr_capture();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    struct host_record r = {0};
    clrie_pm_log_set_host(&log, &(struct clrie_pm_log_host){record, &r, CLRIE_PM_LOG_ALL});
    assert_true(clrie_pm_log_enabled(&log, CLRIE_PM_LOG_MESSAGES));
    CLRIE_PM_LOG_MESSAGE(&log, "to the host");
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.kind, CLRIE_PM_LOG_MESSAGES);
    assert_non_null(strstr(r.line, "]:to the host"));
    assert_null(strchr(r.line, '\n'));
    clrie_pm_log_set_host(&log, NULL);
    assert_false(clrie_pm_log_enabled(&log, CLRIE_PM_LOG_MESSAGES));
    CLRIE_PM_LOG_MESSAGE(&log, "nobody");
    assert_int_equal(r.calls, 1);
    clrie_pm_log_finish(&log);
    char *text = test_stderr_release(c);
    assert_null(strstr(text, "to the host")); /* messages were for the host alone */
    free(text);
}

/* Two views of one log, as two profiler managers have: one file, one set of per-plugin levels,
 * a host and levels each. */
static void views_share_the_file_and_keep_their_own_host_and_levels(void **state)
{
    char *tree = test_tree_new();
    char *file = test_path(tree, "engine.log");
    char *env[] = {
        log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", file),
        log_test_env_entry("MicrosoftInstrumentationEngine_LogLevel_" GUID_A, "Messages"), NULL};
    struct clrie_pm_log shared, first, second;
    assert_int_equal(clrie_pm_log_init(&shared, env), 0);
    assert_int_equal(clrie_pm_log_init_view(&first, &shared), 0);
    assert_int_equal(clrie_pm_log_init_view(&second, &shared), 0);
    assert_int_equal(clrie_pm_log_fd(&first), clrie_pm_log_fd(&shared));
    struct host_record r1 = {0}, r2 = {0};
    clrie_pm_log_set_host(&first, &(struct clrie_pm_log_host){record, &r1, CLRIE_PM_LOG_ALL});
    clrie_pm_log_set_host(&second, &(struct clrie_pm_log_host){record, &r2, CLRIE_PM_LOG_ALL});
    CLRIE_PM_LOG_ERROR(&first, "error of the first");
    assert_int_equal(r1.calls, 1);
    assert_non_null(strstr(r1.line, "error of the first"));
    assert_int_equal(r2.calls, 0);
    clrie_pm_log_set_kinds(&second, CLRIE_PM_LOG_MESSAGES);
    CLRIE_PM_LOG_MESSAGE(&first, "message of the first");
    CLRIE_PM_LOG_MESSAGE(&second, "message of the second");
    clrie_pm_log_write(&first, CLRIE_PM_LOG_MESSAGES, GUID_A, "message of plugin A");
    assert_int_equal(clrie_pm_log_kinds_for(&first, GUID_A), 3); /* the shared plugin levels */
    assert_int_equal(clrie_pm_log_kinds_for(&first, GUID_B), 1);
    assert_int_equal(clrie_pm_log_kinds_for(&second, GUID_B), 3);
    clrie_pm_log_finish(&second);
    clrie_pm_log_finish(&first);
    clrie_pm_log_finish(&shared);
    char *text = test_read_file(file, NULL);
    assert_non_null(strstr(text, "]:error of the first\n"));
    assert_null(strstr(text, "message of the first")); /* its level stayed Errors */
    assert_non_null(strstr(text, "]:message of the second\n"));
    assert_non_null(strstr(text, "message of plugin A\n"));
    free(text);
    for (char **e = env; *e; e++)
        free(*e);
    free(file);
    test_tree_free(tree);
}

#define WRITERS 8
#define LINES 500

static void write_lines(void *arg)
{
    struct clrie_pm_log *log = arg;
    int self; /* its address tells the writers apart: each has its own stack */
    for (int i = 0; i < LINES; i++)
        CLRIE_PM_LOG_ERROR(log, "writer %p line %d %s", (void *)&self, i,
                           "................................................................");
}

static void concurrent_lines_never_interleave(void **state)
{
    char *tree = test_tree_new();
    char *file = test_path(tree, "engine.log");
    char *env[] = {log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", file), NULL};
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    struct clrie_os_thread threads[WRITERS];
    for (int i = 0; i < WRITERS; i++)
        clrie_os_thread_start(&threads[i], write_lines, &log);
    for (int i = 0; i < WRITERS; i++)
        clrie_os_thread_join(&threads[i]);
    clrie_pm_log_finish(&log);
    char *text = test_read_file(file, NULL);
    size_t lines = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        if (strncmp(line, "LogError[", 9) != 0 || strcmp(line + strlen(line) - 8, "........") != 0)
            fail_msg("mangled line: %s", line);
    }
    assert_int_equal(lines, WRITERS * LINES);
    free(text);
    free(env[0]);
    free(file);
    test_tree_free(tree);
}

static void a_closed_log_file_falls_back_too(void **state)
{
    char *tree = test_tree_new();
    char *file = test_path(tree, "engine.log");
    char *env[] = {log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", file), NULL};
    struct test_stderr *c = test_stderr_capture();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init_tagged(&log, env, "clrie proxy: "), 0);
    CLRIE_PM_LOG_ERROR(&log, "into the file");
    clrie_os_close(log.fd); /* the application closed a descriptor it did not own */
    CLRIE_PM_LOG_ERROR(&log, "onto stderr");
    CLRIE_PM_LOG_ERROR(&log, "still stderr");
    log.fd = -1; /* already closed */
    clrie_pm_log_finish(&log);
    char *text = test_stderr_release(c);
    char expected[4400];
    snprintf(expected, sizeof(expected),
             "]:clrie proxy: writing to the log file '%s' failed (Bad file descriptor); "
             "logging to stderr from now on\n",
             file);
    assert_int_equal(log_test_count(text, expected), 1);
    assert_int_equal(log_test_count(text, "]:clrie proxy: onto stderr\n"), 1);
    assert_int_equal(log_test_count(text, "]:clrie proxy: still stderr\n"), 1);
    assert_null(strstr(text, "into the file"));
    free(text);
    free(env[0]);
    free(file);
    test_tree_free(tree);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_level_words_like_clrie_and_then_some),
        cmocka_unit_test(errors_reach_stderr_even_with_no_configuration),
        cmocka_unit_test(a_log_file_takes_everything_asked_for),
        cmocka_unit_test(a_folder_gets_a_file_named_after_the_process),
        cmocka_unit_test(a_log_file_is_appended_to),
        cmocka_unit_test(an_unusable_log_file_is_reported_on_stderr),
        cmocka_unit_test(each_plugin_can_have_its_own_level),
        cmocka_unit_test(a_plugin_level_without_a_known_word_is_reported),
        cmocka_unit_test(the_method_prefix_can_be_turned_off),
        cmocka_unit_test(a_plugin_dump_line_carries_the_plugin_prefix),
        cmocka_unit_test(the_file_level_overrides_for_the_file),
        cmocka_unit_test(a_line_built_in_pieces_is_written_whole_and_escaped),
        cmocka_unit_test(a_tag_marks_every_line_but_dumps),
        cmocka_unit_test(a_host_receives_lines_until_removed),
        cmocka_unit_test(views_share_the_file_and_keep_their_own_host_and_levels),
        cmocka_unit_test(concurrent_lines_never_interleave),
        cmocka_unit_test(a_closed_log_file_falls_back_too),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
