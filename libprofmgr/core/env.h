/* Reading CLRIE's environment variables, once for the engine and the proxy alike.
 *
 * Every function takes the environment as NAME=VALUE strings (NULL-terminated, as environ;
 * NULL reads as empty), so a caller decides which environment counts and tests pass their
 * own. Values returned point into that environment and stay valid as long as it does.
 *
 * The kinds of value:
 *   text    any value, "" included                  clrie_pm_env_lookup
 *   path    a value that names something; "" is unset  clrie_pm_env_path
 *   switch  "1"/"true" on, "0"/"false"/"" or unset off   clrie_pm_env_switch
 *   level   Errors|Messages|Dumps|All|None words     clrie_pm_log_parse_kinds (log.h)
 *
 * Thread safety: none of these keeps state; they are as safe as reading envp is. */
#ifndef CLRIE_PM_ENV_H
#define CLRIE_PM_ENV_H

#include <stdbool.h>

/* The value of name, or NULL when it is not set (names compared as the system does:
 * clrie_os_env_lookup). */
const char *clrie_pm_env_lookup(char *const *envp, const char *name);

/* The value of name, or NULL when it is unset or empty (an empty path names nothing). */
const char *clrie_pm_env_path(char *const *envp, const char *name);

/* Reads a switch: *on is true for "1" or "true", false for unset, "", "0" or "false" (words
 * in any case). Anything else leaves *on false and returns -EINVAL, so the caller can say
 * which value it ignored; otherwise returns 0. */
int clrie_pm_env_switch(char *const *envp, const char *name, bool *on);

/* CLRIE's variables start with CLRIE_PM_ENV_CLRIE_PREFIX. Variables starting with
 * CLRIE_PM_ENV_OWN_PREFIX are clrie's own names for the same settings
 * (ClrieEngine_ConfigPath64_X, ClrieEngine_LogLevel, ClrieEngine_FileLogPath, ...). */
#define CLRIE_PM_ENV_CLRIE_PREFIX "MicrosoftInstrumentationEngine_"
#define CLRIE_PM_ENV_OWN_PREFIX "ClrieEngine_"

/* The environment the engine and the proxy read: environ itself when no variable's name starts
 * with CLRIE_PM_ENV_OWN_PREFIX; otherwise a copy in which each such variable stands for
 * CLRIE's name with the same ending and CLRIE's own variables are left out, so that clrie and
 * another engine that reads CLRIE's names (Microsoft's CLRIE as the raw profiler hook, say)
 * each have their own configuration and log. The answer reflects the environment when asked (a
 * view is built again when environ changed) and stays valid for the process's life; out of
 * memory, environ itself. */
char *const *clrie_pm_env_engine(void);

#endif
