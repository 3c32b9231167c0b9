/* The activation policy (policy.h): which runtimes and processes the engine profiles. */
#define _DEFAULT_SOURCE /* strcasecmp */
#include "policy.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clrie/os/fs.h"
#include "clrie/os/match.h"
#include "clrie/os/process.h"
#include "env.h"

/* "first": the one process-wide flag, claimed by the first runtime admitted. */
static atomic_bool first_claimed;

/* ---- reading --------------------------------------------------------------------------- */

/* "8", "8.0", "8.0.1.2": 1 to 4 parts of digits. Returns the number of parts, 0 if malformed. */
static unsigned parse_version(const char *text, size_t len, unsigned out[4])
{
    unsigned parts = 0;
    size_t i = 0;
    while (i < len) {
        if (parts == 4 || text[i] < '0' || text[i] > '9')
            return 0;
        unsigned long value = 0;
        for (; i < len && text[i] >= '0' && text[i] <= '9'; i++) {
            value = value * 10 + (unsigned)(text[i] - '0');
            if (value > 65535)
                return 0;
        }
        out[parts++] = (unsigned)value;
        if (i < len && text[i++] != '.')
            return 0;
        if (i == len && text[len - 1] == '.')
            return 0;
    }
    return parts;
}

static size_t trimmed(const char **text)
{
    const char *s = *text;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    *text = s;
    return n;
}

static bool parse_range(struct policy *p, const char *text)
{
    size_t len = trimmed(&text);
    const char *dash = memchr(text, '-', len);
    if (!dash) {
        p->low_parts = p->high_parts = parse_version(text, len, p->low);
        memcpy(p->high, p->low, sizeof(p->high));
        p->has_low = p->has_high = p->low_parts > 0;
        return p->low_parts > 0;
    }
    const char *low = text, *high = dash + 1;
    size_t low_len = (size_t)(dash - text), high_len = len - low_len - 1;
    while (low_len && low[low_len - 1] == ' ')
        low_len--;
    while (high_len && *high == ' ')
        high++, high_len--;
    if (low_len) {
        p->low_parts = parse_version(low, low_len, p->low);
        if (!p->low_parts)
            return false;
        p->has_low = true;
    }
    if (high_len) {
        p->high_parts = parse_version(high, high_len, p->high);
        if (!p->high_parts)
            return false;
        p->has_high = true;
    }
    return p->has_low || p->has_high;
}

int clrie_pm__policy_read(struct policy *policy, policy_lookup_fn lookup, void *ctx,
                          struct clrie_pm_log *log)
{
    *policy = (struct policy){0};
    const char *runtimes = lookup(ctx, "Runtimes");
    if (runtimes) {
        const char *t = runtimes;
        size_t n = trimmed(&t);
        if (n == 5 && strncasecmp(t, "first", 5) == 0)
            policy->runtimes = POLICY_RUNTIMES_FIRST;
        else if (!(n == 3 && strncasecmp(t, "all", 3) == 0))
            CLRIE_PM_LOG_ERROR(log,
                               "Runtimes='%s': expected 'all' or 'first'; every runtime is "
                               "profiled",
                               runtimes);
    }
    const char *range = lookup(ctx, "RuntimeVersions");
    if (range && !parse_range(policy, range)) {
        CLRIE_PM_LOG_ERROR(log,
                           "RuntimeVersions='%s': expected LOW-HIGH, each a version such as "
                           "8.0 (either may be left out); every version is profiled",
                           range);
        policy->has_low = policy->has_high = false;
    }
    const char *include = lookup(ctx, "IncludeProcesses");
    const char *exclude = lookup(ctx, "ExcludeProcesses");
    if ((include && !(policy->include = strdup(include))) ||
        (exclude && !(policy->exclude = strdup(exclude)))) {
        clrie_pm__policy_finish(policy);
        return -ENOMEM;
    }
    return 0;
}

const char *clrie_pm__policy_lookup_env(void *ctx, const char *name)
{
    char full[96];
    snprintf(full, sizeof(full), "%s%s", CLRIE_PM__POLICY_ENV_PREFIX, name);
    const char *value = clrie_pm_env_lookup(clrie_pm_env_engine(), full);
    return value && *value ? value : NULL;
}

int clrie_pm__policy_read_env(struct policy *policy, struct clrie_pm_log *log)
{
    return clrie_pm__policy_read(policy, clrie_pm__policy_lookup_env, NULL, log);
}

void clrie_pm__policy_finish(struct policy *policy)
{
    if (!policy)
        return;
    free(policy->include);
    free(policy->exclude);
    *policy = (struct policy){0};
}

/* ---- who the process is ----------------------------------------------------------------- */

/* What copy_name leaves out at the end of a name, in any case. */
enum name_suffix {
    KEEP_SUFFIX,
    STRIP_EXE,      /* a program's ".exe" (Windows), so that "dotnet" names the host everywhere */
    STRIP_ASSEMBLY, /* an assembly's ".dll" or ".exe" */
};

static bool ends_with(const char *name, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n > k && strcasecmp(name + n - k, suffix) == 0;
}

static void copy_name(char *out, size_t size, const char *path, enum name_suffix suffix)
{
    const char *name = clrie_os_path_name(path);
    size_t n = strlen(name);
    if ((suffix != KEEP_SUFFIX && ends_with(name, n, ".exe")) ||
        (suffix == STRIP_ASSEMBLY && ends_with(name, n, ".dll")))
        n -= 4;
    if (n >= size)
        n = size - 1;
    memcpy(out, name, n);
    out[n] = '\0';
}

static bool names_assembly(const char *arg)
{
    size_t n = strlen(arg);
    return n > 4 && (strcasecmp(arg + n - 4, ".dll") == 0 || strcasecmp(arg + n - 4, ".exe") == 0);
}

/* The dotnet host's options that take a value (before the app's path). */
static bool host_option_with_value(const char *arg)
{
    static const char *const options[] = {
        "--additionalprobingpath",
        "--additional-deps",
        "--depsfile",
        "--fx-version",
        "--roll-forward",
        "--runtimeconfig",
        "--roll-forward-on-no-candidate-fx",
    };
    for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++)
        if (strcmp(arg, options[i]) == 0)
            return true;
    return false;
}

void clrie_pm__policy_identity(const char *exe_path, const char *const *argv, size_t argc,
                               struct process_identity *out)
{
    *out = (struct process_identity){0};
    copy_name(out->exe, sizeof(out->exe), exe_path ? exe_path : (argc ? argv[0] : ""),
              STRIP_EXE);
    if (strcasecmp(out->exe, "dotnet") != 0) {
        copy_name(out->entry, sizeof(out->entry), out->exe, STRIP_ASSEMBLY); /* an app host */
        return;
    }
    for (size_t i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "exec") == 0)
            continue;
        if (host_option_with_value(arg)) {
            i++;
            continue;
        }
        if (names_assembly(arg))
            copy_name(out->entry, sizeof(out->entry), arg, STRIP_ASSEMBLY);
        else if (arg[0] != '-')
            copy_name(out->entry, sizeof(out->entry), "dotnet", KEEP_SUFFIX); /* an SDK command */
        return;
    }
}

void clrie_pm__policy_identity_self(struct process_identity *out)
{
    char *program = NULL, **args = NULL;
    size_t argc = 0;
    if (clrie_os_process_program(&program) != 0)
        program = NULL;
    if (clrie_os_process_arguments(&args, &argc) != 0)
        argc = 0;
    clrie_pm__policy_identity(program, (const char *const *)args, argc, out);
    clrie_os_process_arguments_free(args);
    free(program);
}

/* ---- deciding --------------------------------------------------------------------------- */

/* The first pattern of list that matches name, copied into match; false when none. */
static bool list_matches(const char *list, const char *name, char *match, size_t match_size)
{
    if (!list || !*name)
        return false;
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ";,");
        char pattern[256];
        const char *start = p;
        while (n && (*start == ' ' || *start == '\t'))
            start++, n--;
        while (n && (start[n - 1] == ' ' || start[n - 1] == '\t'))
            n--;
        if (n && n < sizeof(pattern)) {
            memcpy(pattern, start, n);
            pattern[n] = '\0';
            if (clrie_os_match(pattern, name, CLRIE_OS_MATCH_CASEFOLD)) {
                snprintf(match, match_size, "%s", pattern);
                return true;
            }
        }
        p = start + strcspn(start, ";,");
        if (*p)
            p++;
    }
    return false;
}

bool clrie_pm__policy_admits_process(const struct policy *policy,
                                     const struct process_identity *who, char *why, size_t why_len)
{
    char match[256];
    const char *names[2] = {who->exe, who->entry};
    const char *kinds[2] = {"executable", "entry assembly"};
    for (int i = 0; i < 2; i++)
        if (list_matches(policy->exclude, names[i], match, sizeof(match))) {
            snprintf(why, why_len, "the %s '%s' matches '%s' in ExcludeProcesses", kinds[i],
                     names[i], match);
            return false;
        }
    if (policy->include && !list_matches(policy->include, who->exe, match, sizeof(match)) &&
        !list_matches(policy->include, who->entry, match, sizeof(match))) {
        snprintf(why, why_len,
                 "neither the executable '%s' nor the entry assembly '%s' matches "
                 "IncludeProcesses '%s'",
                 who->exe, *who->entry ? who->entry : "(unknown)", policy->include);
        return false;
    }
    return true;
}

/* Compares version with bound over the bound's parts only. */
static int compare_prefix(const unsigned version[4], const unsigned bound[4], unsigned parts)
{
    for (unsigned i = 0; i < parts; i++)
        if (version[i] != bound[i])
            return version[i] < bound[i] ? -1 : 1;
    return 0;
}

static void format_bound(char *out, size_t size, const unsigned v[4], unsigned parts)
{
    size_t used = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < parts && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, i ? ".%u" : "%u", v[i]);
}

bool clrie_pm__policy_admits_version(const struct policy *policy, const unsigned version[4],
                                     char *why, size_t why_len)
{
    bool below = policy->has_low && compare_prefix(version, policy->low, policy->low_parts) < 0;
    bool above = policy->has_high && compare_prefix(version, policy->high, policy->high_parts) > 0;
    if (!below && !above)
        return true;
    char low[32] = "", high[32] = "";
    if (policy->has_low)
        format_bound(low, sizeof(low), policy->low, policy->low_parts);
    if (policy->has_high)
        format_bound(high, sizeof(high), policy->high, policy->high_parts);
    snprintf(why, why_len, "runtime %u.%u.%u.%u is outside RuntimeVersions %s-%s", version[0],
             version[1], version[2], version[3], low, high);
    return false;
}

bool clrie_pm__policy_admits(const struct policy *policy, ICorProfilerInfo3 *info,
                             struct clrie_pm_log *log)
{
    char why[640];
    struct process_identity who;
    clrie_pm__policy_identity_self(&who);
    if (!clrie_pm__policy_admits_process(policy, &who, why, sizeof(why))) {
        CLRIE_PM_LOG_MESSAGE(log, "this process is not profiled: %s", why);
        return false;
    }
    if (policy->has_low || policy->has_high) {
        USHORT instance = 0, major = 0, minor = 0, build = 0, qfe = 0;
        COR_PRF_RUNTIME_TYPE type;
        ULONG len = 0;
        HRESULT hr = info->lpVtbl->GetRuntimeInformation(info, &instance, &type, &major, &minor,
                                                         &build, &qfe, 0, &len, NULL);
        if (FAILED(hr)) {
            CLRIE_PM_LOG_MESSAGE(log,
                                 "this runtime is not profiled: its version is unknown "
                                 "(GetRuntimeInformation hr 0x%08X) and RuntimeVersions is set",
                                 (unsigned)hr);
            return false;
        }
        unsigned version[4] = {major, minor, build, qfe};
        if (!clrie_pm__policy_admits_version(policy, version, why, sizeof(why))) {
            CLRIE_PM_LOG_MESSAGE(log, "this runtime is not profiled: %s", why);
            return false;
        }
    }
    if (policy->runtimes == POLICY_RUNTIMES_FIRST) {
        bool expected = false;
        if (!atomic_compare_exchange_strong(&first_claimed, &expected, true)) {
            CLRIE_PM_LOG_MESSAGE(log, "this runtime is not profiled: Runtimes=first and another "
                                      "runtime of this process is profiled already");
            return false;
        }
    }
    return true;
}
