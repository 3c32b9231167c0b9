/* The activation policy (policy.c): who a process is from its command line, and which
 * processes and runtime versions the patterns and the range admit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "policy.h"

static void identity(const char *exe, const char *const *argv, size_t argc, const char *want_exe,
                     const char *want_entry)
{
    struct process_identity who;
    clrie_pm__policy_identity(exe, argv, argc, &who);
    assert_string_equal(who.exe, want_exe);
    assert_string_equal(who.entry, want_entry);
}

static void test_identity_from_the_command_line(void **state)
{
    (void)state;
    const char *app[] = {"dotnet", "bin/MyService.dll", "--port", "80"};
    identity("/usr/share/dotnet/dotnet", app, 4, "dotnet", "MyService");
    const char *exec[] = {"dotnet", "exec", "--runtimeconfig", "x.json", "/sdk/VBCSCompiler.dll"};
    identity("/usr/share/dotnet/dotnet", exec, 5, "dotnet", "VBCSCompiler");
    const char *build[] = {"dotnet", "build", "-c", "Release"};
    identity("/usr/share/dotnet/dotnet", build, 4, "dotnet", "dotnet");
    const char *host[] = {"./MyService"};
    identity("/srv/app/MyService", host, 1, "MyService", "MyService");
    /* Windows programs: the name without its ".exe", in any case, so that one pattern names
     * a program on every system. */
    const char *windows_app[] = {"dotnet.exe", "MyService.dll"};
    identity("/x/DOTNET.EXE", windows_app, 2, "DOTNET", "MyService");
    const char *windows_host[] = {"MyService.exe"};
    identity("/srv/app/MyService.exe", windows_host, 1, "MyService", "MyService");
}

static struct policy with(const char *include, const char *exclude)
{
    return (struct policy){.include = (char *)include, .exclude = (char *)exclude};
}

static void test_exclude_wins_and_include_must_match(void **state)
{
    (void)state;
    char why[512];
    struct process_identity service = {"dotnet", "MyService"};
    struct process_identity build = {"dotnet", "dotnet"};
    struct process_identity compiler = {"dotnet", "VBCSCompiler"};
    struct policy p = with(NULL, "build*; vbcs*");
    assert_false(clrie_pm__policy_admits_process(&p, &compiler, why, sizeof(why)));
    assert_non_null(strstr(why, "the entry assembly 'VBCSCompiler' matches 'vbcs*'"));
    p = with(NULL, "VBCSCompiler,MSBuild");
    assert_true(clrie_pm__policy_admits_process(&p, &service, why, sizeof(why)));
    p = with("My*", NULL);
    assert_true(clrie_pm__policy_admits_process(&p, &service, why, sizeof(why)));
    assert_false(clrie_pm__policy_admits_process(&p, &build, why, sizeof(why)));
    assert_non_null(strstr(why, "IncludeProcesses 'My*'"));
    p = with("*", "MyService");
    assert_false(clrie_pm__policy_admits_process(&p, &service, why, sizeof(why)));
}

static const char *range_value;
static const char *range_lookup(void *ctx, const char *name)
{
    (void)ctx;
    return strcmp(name, "RuntimeVersions") == 0 ? range_value : NULL;
}

static bool in_range(const char *range, unsigned major, unsigned minor, unsigned build)
{
    struct policy p;
    char why[256];
    range_value = range;
    assert_int_equal(clrie_pm__policy_read(&p, range_lookup, NULL, clrie_pm_process_log()), 0);
    unsigned version[4] = {major, minor, build, 0};
    bool ok = clrie_pm__policy_admits_version(&p, version, why, sizeof(why));
    clrie_pm__policy_finish(&p);
    return ok;
}

static void test_version_ranges(void **state)
{
    (void)state;
    assert_true(in_range("8-9", 9, 0, 12)); /* a bound compares only its parts */
    assert_true(in_range("8-9", 8, 0, 0));
    assert_false(in_range("8-9", 10, 0, 0));
    assert_false(in_range("8-9", 7, 0, 99));
    assert_true(in_range("10", 10, 0, 12)); /* one version: everything under it */
    assert_false(in_range("10", 9, 0, 0));
    assert_true(in_range("8.0.5-", 10, 0, 0));
    assert_false(in_range("8.0.5-", 8, 0, 4));
    assert_true(in_range("-6.0", 6, 0, 30));
    assert_true(in_range("nonsense", 1, 0, 0)); /* logged, and every version is profiled */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_from_the_command_line),
        cmocka_unit_test(test_exclude_wins_and_include_must_match),
        cmocka_unit_test(test_version_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
