#define _DEFAULT_SOURCE /* strcasecmp */
#include "env.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clrie/os/env.h"
#include "clrie/os/thread.h"

const char *clrie_pm_env_lookup(char *const *envp, const char *name)
{
    return clrie_os_env_lookup(envp, name);
}

const char *clrie_pm_env_path(char *const *envp, const char *name)
{
    const char *value = clrie_pm_env_lookup(envp, name);
    return value && *value ? value : NULL;
}

int clrie_pm_env_switch(char *const *envp, const char *name, bool *on)
{
    const char *value = clrie_pm_env_lookup(envp, name);
    *on = false;
    if (!value || !*value || strcmp(value, "0") == 0 || strcasecmp(value, "false") == 0)
        return 0;
    if (strcmp(value, "1") == 0 || strcasecmp(value, "true") == 0) {
        *on = true;
        return 0;
    }
    return -EINVAL;
}

static struct clrie_os_mutex engine_lock = CLRIE_OS_MUTEX_INIT;
/* The last view built, and the environ array and length it was built from. Views built before
 * stay allocated (a caller may still read one) and reachable, chained through the slot after
 * their last entry's NULL. */
static char **engine_view;
static char **engine_view_of;
static size_t engine_view_count;

static bool starts_with(const char *entry, const char *prefix)
{
    return clrie_os_env_entry_after(entry, prefix) != NULL;
}

/* A view of env (count entries, own of them clrie's own names), or NULL out of memory. */
static char **build_view(char **env, size_t count)
{
    char **view = calloc(count + 2, sizeof(*view)); /* entries, NULL, the view before */
    if (!view)
        return NULL;
    size_t n = 0;
    const size_t own_len = strlen(CLRIE_PM_ENV_OWN_PREFIX);
    for (char **e = env; *e; e++) {
        if (starts_with(*e, CLRIE_PM_ENV_CLRIE_PREFIX))
            continue;
        if (!starts_with(*e, CLRIE_PM_ENV_OWN_PREFIX)) {
            view[n++] = *e;
            continue;
        }
        size_t len = strlen(CLRIE_PM_ENV_CLRIE_PREFIX) + strlen(*e + own_len) + 1;
        char *renamed = malloc(len);
        if (!renamed) {
            /* CLRIE's names in the view so far are all renamed copies: CLRIE's own were left
             * out. */
            for (size_t i = 0; i < n; i++)
                if (starts_with(view[i], CLRIE_PM_ENV_CLRIE_PREFIX))
                    free(view[i]);
            free(view);
            return NULL;
        }
        strcpy(renamed, CLRIE_PM_ENV_CLRIE_PREFIX);
        strcat(renamed, *e + own_len);
        view[n++] = renamed;
    }
    return view;
}

char *const *clrie_pm_env_engine(void)
{
    clrie_os_mutex_lock(&engine_lock);
    char **env = (char **)clrie_os_environ(); /* UTF-8 also on Windows */
    size_t count = 0, own = 0;
    for (char **e = env; e && *e; e++, count++)
        own += starts_with(*e, CLRIE_PM_ENV_OWN_PREFIX);
    char *const *answer = env;
    if (own) {
        /* The environment as it is now (setenv may have replaced environ's array since): a
         * view built before stays allocated, as a caller may still be reading it. */
        if (!engine_view || engine_view_of != env || engine_view_count != count) {
            char **view = build_view(env, count);
            if (view) {
                size_t n = 0;
                while (view[n])
                    n++;
                view[n + 1] = (char *)(void *)engine_view;
                engine_view = view;
                engine_view_of = env;
                engine_view_count = count;
            }
        }
        if (engine_view && engine_view_of == env && engine_view_count == count)
            answer = engine_view;
    }
    clrie_os_mutex_unlock(&engine_lock);
    return answer;
}
