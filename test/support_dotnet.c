/* The helpers of support.h that find the machine's .NET and its managed assemblies, the same on
 * every system through libos. Managed assemblies are the same files on every system, so a
 * Windows build under Wine reads the Linux SDK's: there CLRIE_DOTNET names the host by its path
 * (Wine's PATH is Windows', not the machine's), which Wine reaches through drive Z:. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/os/env.h"
#include "clrie/os/fs.h"
#include "support.h"

static bool is_file(const char *path)
{
    enum clrie_os_kind kind;
    return clrie_os_path_kind(path, &kind) == 0 && kind == CLRIE_OS_FILE;
}

static bool is_folder(const char *path)
{
    enum clrie_os_kind kind;
    return clrie_os_path_kind(path, &kind) == 0 && kind == CLRIE_OS_DIRECTORY;
}

/* The value of the variable name, malloc'd; NULL when it is unset or empty. */
static char *variable(const char *name)
{
    char *value = NULL;
    if (clrie_os_env_get(name, &value) != 0)
        return NULL;
    if (!*value) {
        free(value);
        return NULL;
    }
    return value;
}

/* The first folder of PATH holding a file called name, joined with it (malloc'd), or NULL. */
static char *find_on_path(const char *name)
{
    char *path = variable("PATH");
    char *found = NULL;
    for (char *dir = path, *end; dir && !found; dir = end ? end + 1 : NULL) {
        end = strchr(dir, CLRIE_OS_PATH_LIST_SEPARATOR);
        if (end)
            *end = '\0';
        if (!*dir)
            continue;
        char *candidate = test_path(dir, name);
        if (is_file(candidate))
            found = candidate;
        else
            free(candidate);
    }
    free(path);
    return found;
}

static bool has_separator(const char *text)
{
    for (; *text; text++)
        if (clrie_os_is_separator(*text))
            return true;
    return false;
}

char *test_dotnet_framework_root(void)
{
    char *configured = variable("CLRIE_DOTNET");
    char *dotnet = NULL;
    if (configured && has_separator(configured))
        dotnet = strdup(configured);
    else
        dotnet = find_on_path(configured ? configured : "dotnet");
    free(configured);
    char *real = NULL;
    int r = dotnet ? clrie_os_path_canonical(dotnet, &real) : -1;
    free(dotnet);
    if (r != 0)
        return NULL;
    char *slash = real + strlen(real);
    while (slash > real && !clrie_os_is_separator(slash[-1]))
        slash--;
    if (slash == real) {
        free(real);
        return NULL;
    }
    slash[-1] = '\0';
    char *root = test_path(real, "shared/Microsoft.NETCore.App");
    free(real);
    if (!is_folder(root)) {
        free(root);
        return NULL;
    }
    return root;
}

/* Visits the .dll files directly in dir; returns how many. */
static long each_dll_in(const char *dir_path, void (*visit)(const char *, void *), void *ctx)
{
    long count = 0;
    struct clrie_os_dir *dir = NULL;
    const char *name;
    if (clrie_os_dir_open(dir_path, &dir) != 0)
        return 0;
    while (clrie_os_dir_next(dir, &name) == 1) {
        size_t len = strlen(name);
        if (len < 5 || strcmp(name + len - 4, ".dll") != 0)
            continue;
        char *path = test_path(dir_path, name);
        visit(path, ctx);
        free(path);
        count++;
    }
    clrie_os_dir_close(dir);
    return count;
}

/* The major.minor.patch of a version folder name as one comparable number; -1 for other names
 * or another major version. */
static long long version_key(const char *name, long major)
{
    long a, b, c;
    char tail;
    if (sscanf(name, "%ld.%ld.%ld%c", &a, &b, &c, &tail) != 3 || a != major)
        return -1;
    return (a * 1000LL + b) * 100000LL + c;
}

/* The NuGet package folder: $NUGET_PACKAGES, else .nuget/packages in $HOME (or, on Windows,
 * %USERPROFILE%), malloc'd; NULL when none is known. */
static char *nuget_packages(void)
{
    char *packages = variable("NUGET_PACKAGES");
    if (packages)
        return packages;
    char *home = variable("HOME");
    if (!home)
        home = variable("USERPROFILE");
    if (!home)
        return NULL;
    packages = test_path(home, ".nuget/packages");
    free(home);
    return packages;
}

/* The runtime pack of CLRIE_TEST_RUNTIME's major version in the NuGet package folder: the
 * newest restored patch for CLRIE_TEST_RID (or linux-x64). Visits its managed assemblies
 * (lib/net<major>.0, and System.Private.CoreLib.dll in native/); -1 when no such pack was
 * restored. */
static long each_dll_of_runtime_pack(const char *major_text, void (*visit)(const char *, void *),
                                     void *ctx)
{
    char *rid_set = variable("CLRIE_TEST_RID");
    const char *rid = rid_set ? rid_set : "linux-x64";
    char *packages = nuget_packages();
    char pack[128];
    snprintf(pack, sizeof(pack), "microsoft.netcore.app.runtime.%s", rid);
    char *root = test_path(packages ? packages : "", pack);
    free(packages);
    long major = strtol(major_text, NULL, 10);
    char best[256] = "";
    long long best_key = -1;
    struct clrie_os_dir *versions = NULL;
    const char *version;
    if (clrie_os_dir_open(root, &versions) == 0) {
        while (clrie_os_dir_next(versions, &version) == 1) {
            long long key = version_key(version, major);
            if (key > best_key && strlen(version) < sizeof(best)) {
                best_key = key;
                strcpy(best, version);
            }
        }
        clrie_os_dir_close(versions);
    }
    long count = -1;
    if (best_key < 0) {
        printf("runtime: .NET %s: no %s runtime pack restored in %s\n", major_text, rid, root);
        goto out;
    }
    printf("runtime: .NET %s (the assemblies of the %s runtime pack from NuGet, read, not run)\n",
           best, rid);
    char lib[512], native[512];
    snprintf(lib, sizeof(lib), "%s/runtimes/%s/lib/net%ld.0", best, rid, major);
    snprintf(native, sizeof(native), "%s/runtimes/%s/native", best, rid);
    char *lib_path = test_path(root, lib), *native_path = test_path(root, native);
    count = each_dll_in(lib_path, visit, ctx) + each_dll_in(native_path, visit, ctx);
    free(lib_path);
    free(native_path);
out:
    free(root);
    free(rid_set);
    return count;
}

int test_dotnet_missing_status(void)
{
    char *major = variable("CLRIE_TEST_RUNTIME");
    char *ci = variable("CI");
    int status = 77;
    if (major && ci && (strcmp(ci, "true") == 0 || strcmp(ci, "1") == 0)) {
        printf("CI=%s: a runtime pack that was not restored fails the test\n", ci);
        status = 1;
    }
    free(major);
    free(ci);
    return status;
}

long test_dotnet_each_dll(void (*visit)(const char *path, void *ctx), void *ctx)
{
    char *major = variable("CLRIE_TEST_RUNTIME");
    if (major) {
        long count = each_dll_of_runtime_pack(major, visit, ctx);
        free(major);
        return count;
    }
    char *root = test_dotnet_framework_root();
    if (!root)
        return -1;
    long count = 0;
    struct clrie_os_dir *versions = NULL;
    const char *version;
    if (clrie_os_dir_open(root, &versions) == 0) {
        while (clrie_os_dir_next(versions, &version) == 1) {
            if (version[0] == '.')
                continue;
            printf("runtime: .NET %s (the assemblies of the shared framework in %s, read, not "
                   "run)\n",
                   version, root);
            char *dir_path = test_path(root, version);
            count += each_dll_in(dir_path, visit, ctx);
            free(dir_path);
        }
        clrie_os_dir_close(versions);
    }
    free(root);
    return count;
}
