/* Loading modules on POSIX systems (clrie/os/module.h): dlopen and its relatives. */
#define _GNU_SOURCE /* dladdr, dl_iterate_phdr, RTLD_NOLOAD, RTLD_NODELETE */
#include "clrie/os/module.h"

#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* dlsym returns an object pointer; ISO C converts it to a function pointer only this way. */
union symbol {
    void *object;
    clrie_os_function function;
};

int clrie_os_module_load(const char *path, struct clrie_os_module **out, char *why, size_t why_len)
{
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *words = dlerror();
        if (why && why_len)
            snprintf(why, why_len, "%s", words ? words : "the loader gave no reason");
        struct stat st;
        if (stat(path, &st) != 0)
            return -errno;
        return -ENOEXEC;
    }
    *out = (struct clrie_os_module *)handle;
    return 0;
}

struct by_name {
    const char *name;
    char *path; /* the loaded file whose name is name, malloc'd */
};

/* The last component of path. */
static const char *file_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int match_file_name(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct by_name *search = data;
    if (!info->dlpi_name || !*info->dlpi_name ||
        strcmp(file_name(info->dlpi_name), search->name) != 0)
        return 0;
    search->path = strdup(info->dlpi_name);
    return 1;
}

int clrie_os_module_find(const char *name, struct clrie_os_module **out)
{
    /* glibc finds a loaded module by its DT_SONAME; musl only by the name it was loaded
     * under. Failing that, the loaded module whose file has that name. */
    void *handle = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
    if (!handle) {
        struct by_name search = {name, NULL};
        dl_iterate_phdr(match_file_name, &search);
        if (search.path)
            handle = dlopen(search.path, RTLD_NOW | RTLD_NOLOAD);
        free(search.path);
    }
    if (!handle)
        return -ENOENT;
    *out = (struct clrie_os_module *)handle;
    return 0;
}

clrie_os_function clrie_os_module_function(struct clrie_os_module *module, const char *name)
{
    union symbol s = {dlsym(module, name)};
    return s.function;
}

void clrie_os_module_unload(struct clrie_os_module *module)
{
    if (module)
        dlclose(module);
}

int clrie_os_module_path_of(const void *address, char **out)
{
    Dl_info info;
    if (!dladdr(address, &info) || !info.dli_fname || !info.dli_fname[0])
        return -ENOENT;
    char *copy = strdup(info.dli_fname);
    if (!copy)
        return -ENOMEM;
    *out = copy;
    return 0;
}

int clrie_os_module_pin(const void *address)
{
    Dl_info info;
    if (!dladdr(address, &info) || !info.dli_fname)
        return -ENOENT;
    /* The reference this takes is never dropped, and NODELETE outlasts every dlclose. */
    return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) ? 0 : -ENOENT;
}
