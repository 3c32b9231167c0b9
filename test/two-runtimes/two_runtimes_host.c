/* A native host that starts several CoreCLR runtimes, one after the other, in this one process
 * (test/dotnet/test_two_runtimes.py). Each runtime comes from its own folder (a shared
 * framework such as the SDK's, or a self-contained app's folder built from a NuGet runtime
 * pack), so dlopen loads each libcoreclr.so as a library of its own. Before a runtime starts,
 * the host changes its own environment as told: CoreCLR reads the CORECLR_PROFILER* variables
 * when it starts, so each runtime can load the engine with its own configuration.
 *
 *   two-runtimes-host GROUP...
 *   GROUP: --runtime DIR --app APP.dll [--set NAME=VALUE]... [--unset NAME]... [--arg ARG]...
 *
 * Each --runtime starts a group. For every group, in order: the environment changes, dlopen
 * of DIR/libcoreclr.so, coreclr_initialize with every assembly of DIR and APP as the trusted
 * platform assemblies, then coreclr_execute_assembly of APP with the ARGs. The runtimes stay
 * up until every app has run; then they are shut down in reverse order. It prints one line per
 * step ("host: runtime 1: ..."), and exits with 0 when every step succeeded, 2 on bad
 * arguments, 1 otherwise. */
#define _GNU_SOURCE /* strdup with -std=c11 */
#include <dirent.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The hosting API of libcoreclr.so (coreclrhost.h). */
typedef int (*coreclr_initialize_fn)(const char *exe_path, const char *app_domain_name,
                                     int property_count, const char **keys, const char **values,
                                     void **host_handle, unsigned int *domain_id);
typedef int (*coreclr_execute_assembly_fn)(void *host_handle, unsigned int domain_id, int argc,
                                           const char **argv, const char *assembly_path,
                                           unsigned int *exit_code);
typedef int (*coreclr_shutdown_2_fn)(void *host_handle, unsigned int domain_id,
                                     int *latched_exit_code);

#define MAX_RUNTIMES 4
#define MAX_ITEMS 32

struct runtime {
    const char *dir;
    const char *app;
    const char *set[MAX_ITEMS]; /* NAME=VALUE */
    size_t set_count;
    const char *unset[MAX_ITEMS];
    size_t unset_count;
    const char *args[MAX_ITEMS];
    size_t arg_count;

    void *library;
    void *handle;
    unsigned int domain;
    coreclr_shutdown_2_fn shutdown;
};

static void usage(void)
{
    fprintf(stderr, "usage: two-runtimes-host --runtime DIR --app APP.dll [--set NAME=VALUE]... "
                    "[--unset NAME]... [--arg ARG]... [--runtime ...]\n");
}

static bool add(const char **items, size_t *count, const char *item)
{
    if (*count == MAX_ITEMS)
        return false;
    items[(*count)++] = item;
    return true;
}

/* Fills runtimes from argv; false (after a line saying why) on anything it cannot read. */
static bool parse(int argc, char **argv, struct runtime *runtimes, size_t *count)
{
    struct runtime *r = NULL;
    for (int i = 1; i < argc; i++) {
        const char *option = argv[i];
        if (i + 1 >= argc) {
            fprintf(stderr, "two-runtimes-host: %s needs a value\n", option);
            return false;
        }
        const char *value = argv[++i];
        if (strcmp(option, "--runtime") == 0) {
            if (*count == MAX_RUNTIMES) {
                fprintf(stderr, "two-runtimes-host: at most %d runtimes\n", MAX_RUNTIMES);
                return false;
            }
            r = &runtimes[(*count)++];
            r->dir = value;
            continue;
        }
        if (!r) {
            fprintf(stderr, "two-runtimes-host: %s before the first --runtime\n", option);
            return false;
        }
        bool ok;
        if (strcmp(option, "--app") == 0)
            ok = (r->app = value) != NULL;
        else if (strcmp(option, "--set") == 0)
            ok = strchr(value, '=') && value[0] != '=' && add(r->set, &r->set_count, value);
        else if (strcmp(option, "--unset") == 0)
            ok = add(r->unset, &r->unset_count, value);
        else if (strcmp(option, "--arg") == 0)
            ok = add(r->args, &r->arg_count, value);
        else
            ok = false;
        if (!ok) {
            fprintf(stderr, "two-runtimes-host: cannot use %s %s\n", option, value);
            return false;
        }
    }
    for (size_t k = 0; k < *count; k++)
        if (!runtimes[k].app) {
            fprintf(stderr, "two-runtimes-host: runtime %zu has no --app\n", k + 1);
            return false;
        }
    return *count > 0;
}

/* Every .dll of dir, then app, separated by ':' (malloc'd; NULL when out of memory or dir
 * cannot be read). An assembly of dir with app's file name is left out: app wins. */
static char *trusted_assemblies(const char *dir, const char *app)
{
    const char *slash = strrchr(app, '/');
    const char *app_name = slash ? slash + 1 : app;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    size_t size = strlen(app) + 1, used = 0;
    char *list = malloc(size);
    struct dirent *entry;
    while (list && (entry = readdir(d))) {
        size_t n = strlen(entry->d_name);
        if (n <= 4 || strcmp(entry->d_name + n - 4, ".dll") != 0 ||
            strcmp(entry->d_name, app_name) == 0)
            continue;
        size_t need = used + strlen(dir) + 1 + n + 1 + strlen(app) + 1;
        if (need > size) {
            size = need * 2;
            char *grown = realloc(list, size);
            if (!grown) {
                free(list);
                list = NULL;
                break;
            }
            list = grown;
        }
        used += (size_t)sprintf(list + used, "%s/%s:", dir, entry->d_name);
    }
    closedir(d);
    if (list)
        strcpy(list + used, app);
    return list;
}

static bool apply_environment(const struct runtime *r)
{
    for (size_t i = 0; i < r->unset_count; i++)
        unsetenv(r->unset[i]);
    for (size_t i = 0; i < r->set_count; i++) {
        char *copy = strdup(r->set[i]);
        if (!copy)
            return false;
        char *eq = strchr(copy, '=');
        *eq = '\0';
        int rc = setenv(copy, eq + 1, 1);
        free(copy);
        if (rc != 0)
            return false;
    }
    return true;
}

/* Starts runtime number n (from 1) and runs its app. */
static bool run(struct runtime *r, size_t n, const char *exe)
{
    bool ok = false;
    char *tpa = NULL;
    char path[4096];
    if (!apply_environment(r)) {
        printf("host: runtime %zu: cannot set its environment\n", n);
        goto done;
    }
    snprintf(path, sizeof(path), "%s/libcoreclr.so", r->dir);
    r->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!r->library) {
        printf("host: runtime %zu: cannot load %s: %s\n", n, path, dlerror());
        goto done;
    }
    /* dlsym's object pointer becomes a function pointer through a union (ISO C has no cast). */
    union {
        void *object;
        coreclr_initialize_fn initialize;
        coreclr_execute_assembly_fn execute;
        coreclr_shutdown_2_fn shutdown;
    } init = {dlsym(r->library, "coreclr_initialize")},
      exec = {dlsym(r->library, "coreclr_execute_assembly")},
      stop = {dlsym(r->library, "coreclr_shutdown_2")};
    coreclr_initialize_fn initialize = init.initialize;
    coreclr_execute_assembly_fn execute = exec.execute;
    r->shutdown = stop.shutdown;
    if (!initialize || !execute || !r->shutdown) {
        printf("host: runtime %zu: %s lacks the hosting API\n", n, path);
        goto done;
    }
    tpa = trusted_assemblies(r->dir, r->app);
    if (!tpa) {
        printf("host: runtime %zu: cannot list the assemblies of %s\n", n, r->dir);
        goto done;
    }
    const char *keys[] = {"TRUSTED_PLATFORM_ASSEMBLIES", "NATIVE_DLL_SEARCH_DIRECTORIES",
                          "APP_PATHS"};
    const char *values[] = {tpa, r->dir, r->dir};
    char domain_name[32];
    snprintf(domain_name, sizeof(domain_name), "runtime%zu", n);
    int rc = initialize(exe, domain_name, 3, keys, values, &r->handle, &r->domain);
    printf("host: runtime %zu: coreclr_initialize from %s: 0x%08X\n", n, r->dir, (unsigned)rc);
    fflush(stdout);
    if (rc < 0) {
        r->handle = NULL;
        goto done;
    }
    unsigned int exit_code = 0;
    rc = execute(r->handle, r->domain, (int)r->arg_count, r->args, r->app, &exit_code);
    fflush(stdout);
    printf("host: runtime %zu: the app ran: 0x%08X, exit code %u\n", n, (unsigned)rc, exit_code);
    fflush(stdout);
    ok = rc >= 0;
done:
    free(tpa);
    fflush(stdout);
    return ok;
}

int main(int argc, char **argv)
{
    struct runtime runtimes[MAX_RUNTIMES] = {0};
    size_t count = 0;
    if (!parse(argc, argv, runtimes, &count)) {
        usage();
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    char exe[4096];
    if (!realpath(argv[0], exe))
        snprintf(exe, sizeof(exe), "%s", argv[0]);
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++)
        ok = run(&runtimes[i], i + 1, exe);
    for (size_t i = count; i-- > 0;) {
        if (!runtimes[i].handle)
            continue;
        int latched = 0;
        int rc = runtimes[i].shutdown(runtimes[i].handle, runtimes[i].domain, &latched);
        printf("host: runtime %zu: coreclr_shutdown_2: 0x%08X\n", i + 1, (unsigned)rc);
        ok = ok && rc >= 0;
    }
    return ok ? 0 : 1;
}
