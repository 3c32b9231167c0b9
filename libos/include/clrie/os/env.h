/* clrie/os/env.h: the process environment, as UTF-8 on every system (Windows keeps it in
 * UTF-16; the C runtime's narrow copy there is in the ANSI code page, which loses characters).
 *
 * Threads: reading the environment while another thread changes it is the caller's race, as
 * with getenv. */
#ifndef CLRIE_OS_ENV_H
#define CLRIE_OS_ENV_H

#ifdef __cplusplus
extern "C" {
#endif

/* The separator of a list of paths in one variable (PATH's). */
#ifdef _WIN32
#define CLRIE_OS_PATH_LIST_SEPARATOR ';'
#else
#define CLRIE_OS_PATH_LIST_SEPARATOR ':'
#endif

/* The value of the variable name, malloc'd in *value: 0, -ENOENT when it is not set,
 * -ENOMEM, -EILSEQ. */
int clrie_os_env_get(const char *name, char **value);

/* The environment as it is now, as "NAME=VALUE" strings in UTF-8 ending with NULL, owned by
 * the system or libos and never freed: on POSIX environ itself; on Windows a UTF-8 copy of the
 * UTF-16 block, made again when the block has changed since the last call (the copies made
 * before stay, as a caller may still read one). NULL only when out of memory. */
char *const *clrie_os_environ(void);

/* The rest of the "NAME=VALUE" entry after prefix when the entry starts with it, as the system
 * compares variable names, else NULL: exactly on POSIX; on Windows, where names differ only in
 * letter case are one variable (Path and PATH), ignoring the case of ASCII letters. With a
 * variable's whole name as prefix, the rest starts with '=' for that variable. */
const char *clrie_os_env_entry_after(const char *entry, const char *prefix);

/* The value of the variable name in envp (an array of "NAME=VALUE" entries ending with NULL),
 * names compared as clrie_os_env_entry_after does; the first match, as getenv finds it. NULL
 * when it is not there. */
const char *clrie_os_env_lookup(char *const *envp, const char *name);

/* A copy of the whole environment: a malloc'd array of "NAME=VALUE" strings ending with NULL,
 * in *out, to be freed with clrie_os_env_block_free. */
int clrie_os_env_block(char ***out);

void clrie_os_env_block_free(char **block);

#ifdef __cplusplus
}
#endif

#endif
