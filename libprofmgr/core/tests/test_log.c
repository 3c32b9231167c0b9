/* The engine log: what lands where for each CLRIE logging variable. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "clrie/os/thread.h"
#include "log.h"
#include "support.h"

#define GUID_A "0D92A8D9-6645-4803-B94B-06A1C4F4E633"
#define GUID_B "11111111-2222-3333-4444-555555555555"

/* stderr is redirected to a file while a log is in use, so tests can read it. */
struct captured {
    char *tree;
    char *path;
    int saved;
};

static struct captured capture_stderr(void)
{
    struct captured c = {.tree = test_tree_new()};
    c.path = test_path(c.tree, "stderr.txt");
    int fd = open(c.path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    c.saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    close(fd);
    return c;
}

/* Restores stderr and returns what was written to it. */
static char *release_stderr(struct captured *c)
{
    dup2(c->saved, STDERR_FILENO);
    close(c->saved);
    char *text = test_read_file(c->path, NULL);
    free(c->path);
    test_tree_free(c->tree);
    return text;
}

static char *env_entry(const char *name, const char *value)
{
    size_t n = strlen(name) + strlen(value) + 2;
    char *e = malloc(n);
    snprintf(e, n, "%s=%s", name, value);
    return e;
}

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
    struct captured c = capture_stderr();
    char *env[] = {NULL};
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    assert_true(clrie_pm_log_enabled(&log, CLRIE_PM_LOG_ERRORS));
    assert_false(clrie_pm_log_enabled(&log, CLRIE_PM_LOG_MESSAGES));
    CLRIE_PM_LOG_ERROR(&log, "plugin %s failed to load: 0x%08x", "Nagler", 0x8007007eu);
    CLRIE_PM_LOG_MESSAGE(&log, "not shown");
    clrie_pm_log_finish(&log);
    char *text = release_stderr(&c);
    assert_non_null(strstr(text, "LogError["));
    assert_non_null(strstr(text, "]:plugin Nagler failed to load: 0x8007007e\n"));
    assert_null(strstr(text, "not shown"));
    free(text);
}

static void a_log_file_takes_everything_asked_for(void **state)
{
    char *tree = test_tree_new();
    char *file = test_path(tree, "engine.log");
    char *env[] = {env_entry("MicrosoftInstrumentationEngine_LogLevel", "Messages"),
                   env_entry("MicrosoftInstrumentationEngine_FileLogPath", file), NULL};
    struct captured c = capture_stderr();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    CLRIE_PM_LOG_MESSAGE(&log, "loaded %d plugins", 2);
    CLRIE_PM_LOG_ERROR(&log, "one failed");
    clrie_pm_log_write(&log, CLRIE_PM_LOG_DUMPS, NULL, "<dump/>");
    clrie_pm_log_finish(&log);
    char *err = release_stderr(&c);
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
        char *env[] = {env_entry("MicrosoftInstrumentationEngine_LogLevel", "All"),
                       env_entry("MicrosoftInstrumentationEngine_FileLogPath", path), NULL};
        struct clrie_pm_log log;
        assert_int_equal(clrie_pm_log_init(&log, env), 0);
        clrie_pm_log_write(&log, CLRIE_PM_LOG_DUMPS, NULL, "<dump/>");
        clrie_pm_log_finish(&log);
        char expected[4200];
        snprintf(expected, sizeof(expected), "%s/ProfilerLog_%ld.txt", tree, (long)getpid());
        char *text = test_read_file(expected, NULL);
        assert_non_null(text);
        assert_string_equal(text, "<dump/>\n"); /* dumps are written as they are */
        free(text);
        for (char **e = env; *e; e++)
            free(*e);
        test_tree_free(tree);
    }
}

static void a_log_file_is_appended_to_and_not_inherited(void **state)
{
    char *tree = test_tree_new();
    test_tree_write(tree, "engine.log", "earlier\n", 8);
    char *file = test_path(tree, "engine.log");
    char *env[] = {env_entry("MicrosoftInstrumentationEngine_FileLogPath", file), NULL};
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    assert_true(log.fd >= 0);
    assert_true(fcntl(log.fd, F_GETFD) & FD_CLOEXEC);  /* a child process gets no copy */
    assert_true(fcntl(log.fd, F_GETFL) & O_APPEND);    /* lines of other processes survive */
    assert_false(fcntl(log.fd, F_GETFL) & O_NONBLOCK); /* opened without blocking, not written */
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
    char *env[] = {env_entry("MicrosoftInstrumentationEngine_FileLogPath", "/nonexistent/x.log"),
                   env_entry("MicrosoftInstrumentationEngine_LogLevel", "Errors|Chatty"), NULL};
    struct captured c = capture_stderr();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    CLRIE_PM_LOG_ERROR(&log, "still seen");
    clrie_pm_log_finish(&log);
    char *text = release_stderr(&c);
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
    char *env[] = {env_entry("MicrosoftInstrumentationEngine_LogLevel_" GUID_A, "Messages"), NULL};
    struct captured c = capture_stderr();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    assert_int_equal(clrie_pm_log_kinds_for(&log, GUID_A), 3);
    assert_int_equal(clrie_pm_log_kinds_for(&log, "0d92a8d9-6645-4803-b94b-06a1c4f4e633"), 3);
    assert_int_equal(clrie_pm_log_kinds_for(&log, GUID_B), 1);
    clrie_pm_log_write(&log, CLRIE_PM_LOG_MESSAGES, GUID_A, "from A");
    clrie_pm_log_write(&log, CLRIE_PM_LOG_MESSAGES, GUID_B, "from B");
    clrie_pm_log_write(&log, CLRIE_PM_LOG_MESSAGES, NULL, "from the engine");
    clrie_pm_log_finish(&log);
    char *text = release_stderr(&c);
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
    char *env[] = {env_entry("MicrosoftInstrumentationEngine_LogLevel_" GUID_A, "Verbose"), NULL};
    struct captured c = capture_stderr();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    assert_int_equal(clrie_pm_log_kinds_for(&log, GUID_A), 1); /* errors still reach it */
    clrie_pm_log_finish(&log);
    char *text = release_stderr(&c);
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
    struct captured c = capture_stderr();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    clrie_pm_log_write(&log, CLRIE_PM_LOG_ERRORS, GUID_A, "bare");
    clrie_pm_log_finish(&log);
    char *text = release_stderr(&c);
    assert_non_null(strstr(text, "]:bare\n"));
    assert_null(strstr(text, "[IM:"));
    free(text);
}

/* CLRIE marks a plugin's dump lines too (with no time: dumps never have one). */
static void a_plugin_dump_line_carries_the_plugin_prefix(void **state)
{
    char *env[] = {(char *)"MicrosoftInstrumentationEngine_LogLevel=Dumps", NULL};
    struct captured c = capture_stderr();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    clrie_pm_log_write(&log, CLRIE_PM_LOG_DUMPS, GUID_A, "<m/>");
    clrie_pm_log_write(&log, CLRIE_PM_LOG_DUMPS, NULL, "<engine/>");
    clrie_pm_log_finish(&log);
    char *text = release_stderr(&c);
    assert_string_equal(text, "[IM:0d92a8d9-6645-4803-b94b-06a1c4f4e633]<m/>\n<engine/>\n");
    free(text);
}

static void the_file_level_overrides_for_the_file(void **state)
{
    char *tree = test_tree_new();
    char *file = test_path(tree, "engine.log");
    char *env[] = {env_entry("MicrosoftInstrumentationEngine_LogLevel", "Errors"),
                   env_entry("MicrosoftInstrumentationEngine_FileLog", "Dumps"),
                   env_entry("MicrosoftInstrumentationEngine_FileLogPath", file), NULL};
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
    struct captured c = capture_stderr();
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
    char *text = release_stderr(&c);
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
    char *env[] = {env_entry("MicrosoftInstrumentationEngine_FileLogPath", file),
                   env_entry("MicrosoftInstrumentationEngine_LogLevel", "all"), NULL};
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
    struct captured c = capture_stderr();
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
    char *text = release_stderr(&c);
    assert_null(strstr(text, "to the host")); /* messages were for the host alone */
    free(text);
}

/* Two views of one log, as two profiler managers have: one file, one set of per-plugin levels,
 * a host and levels each. */
static void views_share_the_file_and_keep_their_own_host_and_levels(void **state)
{
    char *tree = test_tree_new();
    char *file = test_path(tree, "engine.log");
    char *env[] = {env_entry("MicrosoftInstrumentationEngine_FileLogPath", file),
                   env_entry("MicrosoftInstrumentationEngine_LogLevel_" GUID_A, "Messages"), NULL};
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
    char *env[] = {env_entry("MicrosoftInstrumentationEngine_FileLogPath", file), NULL};
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

/* Starts a log whose FileLogPath is path, with stderr captured; returns what reached stderr
 * after an error line "after" was written. A log that blocks on opening fails the test through
 * SIGALRM instead of hanging it. */
static char *log_to(const char *path, const char *level, int *fd_out)
{
    char *env[] = {env_entry("MicrosoftInstrumentationEngine_FileLogPath", path),
                   env_entry("MicrosoftInstrumentationEngine_LogLevel", level ? level : "Errors"),
                   NULL};
    struct captured c = capture_stderr();
    struct clrie_pm_log log;
    alarm(10);
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    alarm(0);
    if (fd_out)
        *fd_out = log.fd;
    CLRIE_PM_LOG_ERROR(&log, "after");
    clrie_pm_log_finish(&log);
    for (char **e = env; *e; e++)
        free(*e);
    return release_stderr(&c);
}

static size_t count(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static void assert_refused(const char *text, const char *path, const char *why)
{
    char expected[4400];
    snprintf(expected, sizeof(expected), "cannot open the log file '%s' (%s); logging to stderr\n",
             path, why);
    if (count(text, expected) != 1 || count(text, "cannot open the log file") != 1)
        fail_msg("expected one line \"%s\"; stderr:\n%s", expected, text);
    if (!strstr(text, "]:after\n")) /* and the log still works, on stderr */
        fail_msg("a later line did not reach stderr:\n%s", text);
}

#define NOT_A_FILE ", not a regular file or a character device"

static void a_fifo_is_refused_without_blocking(void **state)
{
    char *tree = test_tree_new();
    char *fifo = test_path(tree, "engine.log");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    /* Nobody reading: opening for writing would block for ever. */
    int fd = 0;
    char *text = log_to(fifo, NULL, &fd);
    assert_int_equal(fd, -1);
    assert_refused(text, fifo, "it is a FIFO" NOT_A_FILE);
    free(text);
    /* Somebody reading: the open succeeds, and what it opened is refused all the same. */
    int reader = open(fifo, O_RDONLY | O_NONBLOCK);
    assert_true(reader >= 0);
    text = log_to(fifo, NULL, &fd);
    assert_int_equal(fd, -1);
    assert_refused(text, fifo, "it is a FIFO" NOT_A_FILE);
    char buf[16];
    assert_true(read(reader, buf, sizeof(buf)) <= 0); /* not a byte went into the FIFO */
    close(reader);
    free(text);
    free(fifo);
    test_tree_free(tree);
}

static void a_socket_a_folder_or_a_block_device_is_refused(void **state)
{
    char *tree = test_tree_new();
    char *sock_path = test_path(tree, "engine.sock");
    int sock = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    assert_true(strlen(sock_path) < sizeof(addr.sun_path));
    strcpy(addr.sun_path, sock_path);
    assert_int_equal(bind(sock, (struct sockaddr *)&addr, sizeof(addr)), 0);
    assert_int_equal(listen(sock, 1), 0);
    char *text = log_to(sock_path, NULL, NULL);
    assert_refused(text, sock_path, "it is a socket" NOT_A_FILE);
    free(text);
    close(sock);

    /* The file in a log folder is itself a folder. */
    char name[64];
    snprintf(name, sizeof(name), "logs/ProfilerLog_%ld.txt", (long)getpid());
    test_tree_mkdir(tree, name);
    char *logs = test_path(tree, "logs");
    text = log_to(logs, NULL, NULL);
    assert_refused(text, logs, "it is a folder" NOT_A_FILE);
    free(text);

    struct stat st;
    if (stat("/dev/loop0", &st) == 0 && S_ISBLK(st.st_mode)) {
        text = log_to("/dev/loop0", NULL, NULL);
        assert_refused(text, "/dev/loop0", "it is a block device" NOT_A_FILE);
        free(text);
    }
    free(logs);
    free(sock_path);
    test_tree_free(tree);
}

static void character_devices_are_log_files(void **state)
{
    int fd = 0;
    char *text = log_to("/dev/null", NULL, &fd);
    assert_true(fd >= 0);
    assert_string_equal(text, ""); /* everything went to /dev/null */
    free(text);
    /* /dev/stderr is a link (to /proc/self/fd/2) in a folder only root writes to: followed. */
    text = log_to("/dev/stderr", NULL, &fd);
    assert_true(fd >= 0);
    assert_int_equal(count(text, "]:after\n"), 1);
    assert_null(strstr(text, "cannot open"));
    free(text);
}

/* Under a service manager or a container, stderr is often a pipe or a socket: /dev/stderr is
 * then no FIFO or socket planted by anyone, but where the log would go anyway. */
static void dev_stderr_is_a_log_file_even_when_it_is_a_pipe_or_a_socket(void **state)
{
    for (int kind = 0; kind < 2; kind++) {
        int ends[2];
        assert_int_equal(kind ? socketpair(AF_UNIX, SOCK_STREAM, 0, ends) : pipe(ends), 0);
        int reader = ends[0], writer = ends[1];
        int saved = dup(STDERR_FILENO);
        dup2(writer, STDERR_FILENO);
        close(writer);
        char *env[] = {(char *)"MicrosoftInstrumentationEngine_FileLogPath=/dev/stderr", NULL};
        struct clrie_pm_log log;
        alarm(10);
        assert_int_equal(clrie_pm_log_init(&log, env), 0);
        alarm(0);
        int fd = log.fd;
        CLRIE_PM_LOG_ERROR(&log, "through %s", kind ? "a socket" : "a pipe");
        clrie_pm_log_finish(&log);
        dup2(saved, STDERR_FILENO);
        close(saved);
        if (kind)
            shutdown(reader, SHUT_WR);
        char text[512] = "";
        ssize_t n = read(reader, text, sizeof(text) - 1);
        close(reader);
        text[n > 0 ? n : 0] = '\0';
        assert_true(fd >= 0);
        assert_null(strstr(text, "cannot open"));
        assert_non_null(strstr(text, kind ? "]:through a socket\n" : "]:through a pipe\n"));
    }
}

static void a_link_in_a_folder_others_can_write_to_is_not_followed(void **state)
{
    char *tree = test_tree_new();
    test_tree_write(tree, "victim.txt", "precious\n", 9);
    char *victim = test_path(tree, "victim.txt");
    const unsigned modes[] = {0777, 01777, 0775};
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        char folder[32], rel[64];
        snprintf(folder, sizeof(folder), "shared%zu", i);
        snprintf(rel, sizeof(rel), "%s/engine.log", folder);
        test_tree_symlink(tree, rel, victim);
        test_tree_chmod(tree, folder, modes[i]);
        char *link = test_path(tree, rel);
        char *text = log_to(link, NULL, NULL);
        assert_refused(text, link,
                       "it is a symbolic link in a folder that group or others can write to");
        free(text);
        free(link);
    }
    char *kept = test_read_file(victim, NULL);
    assert_string_equal(kept, "precious\n");
    free(kept);

    /* In a folder only its owner writes to, a link is the owner's choice and is followed. */
    test_tree_symlink(tree, "private/engine.log", victim);
    char *link = test_path(tree, "private/engine.log");
    char *text = log_to(link, NULL, NULL);
    assert_string_equal(text, "");
    kept = test_read_file(victim, NULL);
    assert_int_equal(strncmp(kept, "precious\nLogError[", 18), 0);
    free(kept);
    free(text);
    free(link);
    free(victim);
    test_tree_free(tree);
}

static void a_log_folder_others_can_write_to_is_refused_unless_sticky(void **state)
{
    char *tree = test_tree_new();
    test_tree_mkdir(tree, "open");
    test_tree_chmod(tree, "open", 0777);
    test_tree_mkdir(tree, "group");
    test_tree_chmod(tree, "group", 0775);
    const char *refused[] = {"open", "group"};
    for (size_t i = 0; i < 2; i++) {
        char *folder = test_path(tree, refused[i]);
        char *text = log_to(folder, NULL, NULL);
        assert_refused(text, folder,
                       "it is a folder that group or others can write to and that is not sticky");
        free(text);
        free(folder);
    }

    /* Sticky, as /tmp: the file is made there, but a link planted in its place is refused. */
    test_tree_mkdir(tree, "sticky");
    test_tree_chmod(tree, "sticky", 01777);
    char *sticky = test_path(tree, "sticky");
    char *text = log_to(sticky, NULL, NULL);
    assert_string_equal(text, "");
    free(text);
    char rel[128];
    snprintf(rel, sizeof(rel), "sticky/ProfilerLog_%ld.txt", (long)getpid());
    char *file = test_path(tree, rel);
    text = test_read_file(file, NULL);
    assert_non_null(strstr(text, "]:after\n"));
    free(text);
    unlink(file);
    test_tree_write(tree, "victim.txt", "precious\n", 9);
    char *victim = test_path(tree, "victim.txt");
    assert_int_equal(symlink(victim, file), 0);
    text = log_to(sticky, NULL, NULL);
    assert_refused(
        text, sticky,
        "the ProfilerLog file in the folder is a symbolic link, which is never followed");
    free(text);
    char *kept = test_read_file(victim, NULL);
    assert_string_equal(kept, "precious\n");
    free(kept);
    free(victim);
    free(file);
    free(sticky);
    test_tree_free(tree);
}

static void a_failing_write_falls_back_to_stderr_once_and_says_so(void **state)
{
    char *env[] = {env_entry("MicrosoftInstrumentationEngine_FileLogPath", "/dev/full"),
                   env_entry("MicrosoftInstrumentationEngine_LogLevel", "Messages"), NULL};
    struct captured c = capture_stderr();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    assert_true(log.fd >= 0); /* a character device: opened */
    CLRIE_PM_LOG_ERROR(&log, "first");
    CLRIE_PM_LOG_MESSAGE(&log, "second");
    CLRIE_PM_LOG_ERROR(&log, "third");
    clrie_pm_log_finish(&log);
    char *text = release_stderr(&c);
    assert_int_equal(count(text, "writing to the log file '/dev/full' failed (No space left on "
                                 "device); logging to stderr from now on\n"),
                     1);
    assert_int_equal(count(text, "\n"), 4);
    /* The line that failed is not lost: it follows the explanation. */
    char *said = strstr(text, "failed (No space");
    char *first = strstr(text, "]:first\n");
    assert_true(said && first && said < first);
    assert_non_null(strstr(first, "]:second\n"));
    assert_non_null(strstr(first, "]:third\n"));
    free(text);
    for (char **e = env; *e; e++)
        free(*e);
}

static void a_closed_log_file_falls_back_too(void **state)
{
    char *tree = test_tree_new();
    char *file = test_path(tree, "engine.log");
    char *env[] = {env_entry("MicrosoftInstrumentationEngine_FileLogPath", file), NULL};
    struct captured c = capture_stderr();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init_tagged(&log, env, "clrie proxy: "), 0);
    CLRIE_PM_LOG_ERROR(&log, "into the file");
    close(log.fd); /* the application closed a descriptor it did not own */
    CLRIE_PM_LOG_ERROR(&log, "onto stderr");
    CLRIE_PM_LOG_ERROR(&log, "still stderr");
    log.fd = -1; /* already closed */
    clrie_pm_log_finish(&log);
    char *text = release_stderr(&c);
    char expected[4400];
    snprintf(expected, sizeof(expected),
             "]:clrie proxy: writing to the log file '%s' failed (Bad file descriptor); "
             "logging to stderr from now on\n",
             file);
    assert_int_equal(count(text, expected), 1);
    assert_int_equal(count(text, "]:clrie proxy: onto stderr\n"), 1);
    assert_int_equal(count(text, "]:clrie proxy: still stderr\n"), 1);
    assert_null(strstr(text, "into the file"));
    free(text);
    free(env[0]);
    free(file);
    test_tree_free(tree);
}

static void write_to_full(void *arg)
{
    struct clrie_pm_log *log = arg;
    for (int i = 0; i < 50; i++)
        CLRIE_PM_LOG_ERROR(log, "line %d", i);
}

static void concurrent_failing_writes_say_so_once(void **state)
{
    char *env[] = {env_entry("MicrosoftInstrumentationEngine_FileLogPath", "/dev/full"), NULL};
    struct captured c = capture_stderr();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    struct clrie_os_thread threads[WRITERS];
    for (int i = 0; i < WRITERS; i++)
        clrie_os_thread_start(&threads[i], write_to_full, &log);
    for (int i = 0; i < WRITERS; i++)
        clrie_os_thread_join(&threads[i]);
    clrie_pm_log_finish(&log);
    char *text = release_stderr(&c);
    assert_int_equal(count(text, "writing to the log file '/dev/full' failed"), 1);
    assert_int_equal(count(text, "\n"), WRITERS * 50 + 1);
    free(text);
    free(env[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_level_words_like_clrie_and_then_some),
        cmocka_unit_test(errors_reach_stderr_even_with_no_configuration),
        cmocka_unit_test(a_log_file_takes_everything_asked_for),
        cmocka_unit_test(a_folder_gets_a_file_named_after_the_process),
        cmocka_unit_test(a_log_file_is_appended_to_and_not_inherited),
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
        cmocka_unit_test(a_fifo_is_refused_without_blocking),
        cmocka_unit_test(a_socket_a_folder_or_a_block_device_is_refused),
        cmocka_unit_test(character_devices_are_log_files),
        cmocka_unit_test(dev_stderr_is_a_log_file_even_when_it_is_a_pipe_or_a_socket),
        cmocka_unit_test(a_link_in_a_folder_others_can_write_to_is_not_followed),
        cmocka_unit_test(a_log_folder_others_can_write_to_is_refused_unless_sticky),
        cmocka_unit_test(a_failing_write_falls_back_to_stderr_once_and_says_so),
        cmocka_unit_test(a_closed_log_file_falls_back_too),
        cmocka_unit_test(concurrent_failing_writes_say_so_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
