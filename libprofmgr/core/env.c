#define _DEFAULT_SOURCE /* strcasecmp */
#include "env.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

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
