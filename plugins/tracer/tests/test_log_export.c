/* The export clrie_tracer_log (watch.c), through which the managed library writes into the
 * engine's log: with a plugin instance running (its refresh thread started, as at Initialize),
 * each level reaches the engine's logging interface as the plugin's own lines do, `tracer: `
 * first, on one line; without one, or with a bad level or message, it refuses with -1. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <clrie/plugin.h>

#include "tracer_plugin.h"

int clrie_tracer_log(int level, const char *message);

/* watch.c's refresh thread calls this; no refresh is asked in these tests. */
void clrie_tracer__refresh(struct clrie_tracer__plugin *s)
{
    (void)s;
}

/* ---- an engine's logging interface that keeps the last line of each kind ------------------- */

struct logging {
    IProfilerManagerLogging iface;
    char error[2048], message[2048], dump[2048];
    int lines;
};

static struct logging *from_iface(IProfilerManagerLogging *iface)
{
    return (struct logging *)(void *)iface;
}

static HRESULT keep(IProfilerManagerLogging *This, char *into, const WCHAR *text)
{
    clrie_plugin_bstr_to_utf8_buf(text, into, 2048);
    from_iface(This)->lines++;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE log_message(IProfilerManagerLogging *This, const WCHAR *text)
{
    return keep(This, from_iface(This)->message, text);
}

static HRESULT STDMETHODCALLTYPE log_error(IProfilerManagerLogging *This, const WCHAR *text)
{
    return keep(This, from_iface(This)->error, text);
}

static HRESULT STDMETHODCALLTYPE log_dump(IProfilerManagerLogging *This, const WCHAR *text)
{
    return keep(This, from_iface(This)->dump, text);
}

#define NOTIMPL_BODY_HRESULT return E_NOTIMPL;
#define NOTIMPL_BODY_ULONG return 1;
#define NOT_IMPLEMENTED(ret, name, params, args)                                                   \
    static ret STDMETHODCALLTYPE ni_##name params                                                  \
    {                                                                                              \
        NOTIMPL_BODY_##ret                                                                         \
    }
CLRIE_IPROFILERMANAGERLOGGING_METHODS(NOT_IMPLEMENTED, IProfilerManagerLogging *This, This)
#define NOT_IMPLEMENTED_SLOT(ret, name, params, args) .name = ni_##name,

static struct IProfilerManagerLoggingVtbl logging_vtbl = {CLRIE_IPROFILERMANAGERLOGGING_METHODS(
    NOT_IMPLEMENTED_SLOT, IProfilerManagerLogging *This, This)};

/* ---- a plugin instance with its refresh thread, as Initialize leaves it --------------------- */

struct running {
    struct clrie_tracer__plugin plugin;
    struct logging logging;
};

static int start(void **state)
{
    struct running *r = calloc(1, sizeof *r);
    logging_vtbl.LogMessage = log_message;
    logging_vtbl.LogError = log_error;
    logging_vtbl.LogDumpMessage = log_dump;
    r->logging.iface.lpVtbl = &logging_vtbl;
    struct clrie_tracer__plugin *s = &r->plugin;
    s->host.logging = &r->logging.iface;
    s->host.name = "tracer";
    static char folder[] = "/nowhere";
    s->folder = folder;
    s->watch = false; /* the refresh thread only */
    clrie_os_mutex_init(&s->refresh_lock);
    clrie_os_cond_init(&s->refresh_wake);
    clrie_os_cond_init(&s->refresh_done);
    clrie_tracer__watch_start(s);
    assert_true(s->refresher_started);
    *state = r;
    return 0;
}

static int stop(void **state)
{
    struct running *r = *state;
    struct clrie_tracer__plugin *s = &r->plugin;
    clrie_tracer__watch_stop(s);
    clrie_os_mutex_finish(&s->refresh_lock);
    clrie_os_cond_finish(&s->refresh_wake);
    clrie_os_cond_finish(&s->refresh_done);
    free(r);
    return 0;
}

static void each_level_reaches_its_log_method(void **state)
{
    struct running *r = *state;
    assert_int_equal(clrie_tracer_log(0, "cannot make the tracer factory 'X'"), 0);
    assert_string_equal(r->logging.error, "tracer: cannot make the tracer factory 'X'");
    assert_int_equal(clrie_tracer_log(1, "factory X made"), 0);
    assert_string_equal(r->logging.message, "tracer: factory X made");
    assert_int_equal(clrie_tracer_log(2, "details"), 0);
    assert_string_equal(r->logging.dump, "tracer: details");
    assert_int_equal(r->logging.lines, 3);
}

static void a_message_is_one_line_of_bounded_length(void **state)
{
    struct running *r = *state;
    assert_int_equal(clrie_tracer_log(0, "first\nsecond\r\nthird"), 0);
    assert_string_equal(r->logging.error, "tracer: first second  third");
    char long_message[5000];
    memset(long_message, 'a', sizeof long_message - 1);
    long_message[sizeof long_message - 1] = '\0';
    assert_int_equal(clrie_tracer_log(0, long_message), 0);
    size_t len = strlen(r->logging.error);
    assert_true(len < 1024);
    assert_string_equal(r->logging.error + len - 3, "...");
}

static void bad_calls_are_refused(void **state)
{
    struct running *r = *state;
    int before = r->logging.lines;
    assert_int_equal(clrie_tracer_log(3, "x"), -1);
    assert_int_equal(clrie_tracer_log(-1, "x"), -1);
    assert_int_equal(clrie_tracer_log(0, NULL), -1);
    assert_int_equal(r->logging.lines, before);
}

static void without_a_running_plugin_it_refuses(void **state)
{
    (void)state;
    assert_int_equal(clrie_tracer_log(0, "nobody listens"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(each_level_reaches_its_log_method, start, stop),
        cmocka_unit_test_setup_teardown(a_message_is_one_line_of_bounded_length, start, stop),
        cmocka_unit_test_setup_teardown(bad_calls_are_refused, start, stop),
        /* after the others: their plugin stopped, so none runs */
        cmocka_unit_test(without_a_running_plugin_it_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
