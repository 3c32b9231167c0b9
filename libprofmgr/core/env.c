#define _DEFAULT_SOURCE /* strcasecmp */
#include "env.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

const char *clrie_pm_env_lookup(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (; envp && *envp; envp++)
        if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
            return *envp + n + 1;
    return NULL;
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

static pthread_once_t engine_once = PTHREAD_ONCE_INIT;
static char *const *engine_environment;

static bool starts_with(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* Builds the view (clrie_pm_env_engine): its array and renamed entries are never freed. */
static void build_engine_environment(void)
{
    size_t count = 0, own = 0;
    for (char **e = environ; e && *e; e++, count++)
        own += starts_with(*e, CLRIE_PM_ENV_OWN_PREFIX);
    if (own == 0)
        return; /* clrie_pm_env_engine reads environ itself */
    char **view = calloc(count + 1, sizeof(*view));
    if (!view)
        return;
    size_t n = 0;
    const size_t own_len = strlen(CLRIE_PM_ENV_OWN_PREFIX);
    for (char **e = environ; *e; e++) {
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
            return;
        }
        strcpy(renamed, CLRIE_PM_ENV_CLRIE_PREFIX);
        strcat(renamed, *e + own_len);
        view[n++] = renamed;
    }
    engine_environment = view;
}

char *const *clrie_pm_env_engine(void)
{
    pthread_once(&engine_once, build_engine_environment);
    /* Without a view, environ as it is now: a setenv since the first call may have moved the
     * array, and the one seen then would be freed memory. */
    return engine_environment ? engine_environment : environ;
}
