/* Files on disk a configuration may name: joining a folder and a name, and resolving a
 * method's Module to a canonical file that passes the trust rule (trust.c). files.c reads
 * configuration files under the same rule. */
#define _DEFAULT_SOURCE /* realpath */
#include "config_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *clrie_config__path_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *path = malloc(a + b + 2);
    if (!path)
        return NULL;
    memcpy(path, dir, a);
    size_t n = a;
    if (n == 0 || path[n - 1] != '/')
        path[n++] = '/';
    memcpy(path + n, name, b + 1);
    return path;
}

char *clrie_config__resolve_module(struct file_result *r, const char *module, const char *base_dir,
                                   const struct clrie_config_options *opts, unsigned line,
                                   unsigned column)
{
    char buf[CLRIE_CONFIG_REASON_SIZE + 128];
    char *candidate;
    if (module[0] == '/') {
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
    char *resolved = realpath(candidate, NULL);
    if (!resolved) {
        int err = errno;
        if (err == ENOMEM)
            r->out_of_memory = true;
        else
            clrie_config__file_result_report(r, CLRIE_CONFIG_ERROR, line, column,
                                             "<Module> '%s' (%s): %s", module, candidate,
                                             clrie_config__strerror(err, buf, sizeof(buf)));
        free(candidate);
        return NULL;
    }
    free(candidate);
    struct stat st;
    const char *problem = NULL;
    char reason[CLRIE_CONFIG_REASON_SIZE];
    if (stat(resolved, &st) != 0) {
        problem = clrie_config__strerror(errno, buf, sizeof(buf));
    } else if (!S_ISREG(st.st_mode)) {
        problem = "not a regular file";
    } else if (opts->trust_check &&
               clrie_config__trust_stat(&st, resolved, reason, sizeof(reason)) != 0) {
        snprintf(buf, sizeof(buf), "%s" TRUST_HINT, reason);
        problem = buf;
    }
    if (problem) {
        clrie_config__file_result_report(r, CLRIE_CONFIG_ERROR, line, column,
                                         "<Module> '%s' (%s): %s", module, resolved, problem);
        free(resolved);
        return NULL;
    }
    return resolved;
}
