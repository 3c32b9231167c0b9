/* Files on disk a configuration may name: joining a folder and a name, and resolving a
 * method's Module to a canonical file that passes the trust rule (trust.c). files.c reads
 * configuration files under the same rule. */
#include "config_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/os/file.h"
#include "clrie/os/fs.h"

char *clrie_config__path_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *path = malloc(a + b + 2);
    if (!path)
        return NULL;
    memcpy(path, dir, a);
    size_t n = a;
    if (n == 0 || !clrie_os_is_separator(path[n - 1]))
        path[n++] = CLRIE_OS_SEPARATOR;
    memcpy(path + n, name, b + 1);
    return path;
}

char *clrie_config__resolve_module(struct file_result *r, const char *module, const char *base_dir,
                                   const struct clrie_config_options *opts, unsigned line,
                                   unsigned column)
{
    char buf[CLRIE_CONFIG_REASON_SIZE + 128];
    char *candidate;
    if (clrie_os_path_is_absolute(module)) {
        candidate = strdup(module);
    } else if (!base_dir) {
        clrie_config__file_result_report(
            r, CLRIE_CONFIG_ERROR, line, column,
            "<Module> '%s' is relative, and there is no folder to resolve it in", module);
        return NULL;
    } else {
        candidate = clrie_config__path_join(base_dir, module);
    }
    if (!candidate) {
        r->out_of_memory = true;
        return NULL;
    }
    /* Everything is asked of the one open file: a file swapped meanwhile cannot pass the
     * checks in place of the one that will be loaded from the same path. */
    struct clrie_os_file *file = NULL;
    struct clrie_os_file_info info;
    char *resolved = NULL;
    const char *problem = NULL;
    char reason[CLRIE_CONFIG_REASON_SIZE];
    int err = clrie_os_file_open(candidate, 0, &file);
    if (err == 0)
        err = clrie_os_file_info(file, &info);
    if (err == 0)
        err = clrie_os_file_path(file, &resolved);
    if (err == -ENOMEM) {
        r->out_of_memory = true;
    } else if (err != 0) {
        clrie_config__file_result_report(r, CLRIE_CONFIG_ERROR, line, column,
                                         "<Module> '%s' (%s): %s", module, candidate,
                                         clrie_os_strerror(-err, buf, sizeof(buf)));
    } else if (info.kind != CLRIE_OS_FILE) {
        problem = "not a regular file";
    } else if (opts->trust_check &&
               clrie_config__trust_file(file, resolved, reason, sizeof(reason)) != 0) {
        snprintf(buf, sizeof(buf), "%s" TRUST_HINT, reason);
        problem = buf;
    }
    if (problem)
        clrie_config__file_result_report(r, CLRIE_CONFIG_ERROR, line, column,
                                         "<Module> '%s' (%s): %s", module, resolved, problem);
    clrie_os_file_close(file);
    free(candidate);
    if (err != 0 || problem) {
        free(resolved);
        return NULL;
    }
    return resolved;
}
