/* clrie/os/module.h: loading a module (a shared object, a DLL) and finding what it exports.
 *
 * Modules are loaded with everything bound at once and their symbols kept to themselves
 * (RTLD_NOW | RTLD_LOCAL); on Windows the folder of the module comes first when its own
 * dependencies are looked for (LOAD_WITH_ALTERED_SEARCH_PATH), so a plugin's libraries are
 * found beside it. Paths are UTF-8 (UTF-16 at the Windows calls). A struct clrie_os_module *
 * is the system's own handle: no memory is allocated for it.
 *
 * Threads: every function may be called from any thread. */
#ifndef CLRIE_OS_MODULE_H
#define CLRIE_OS_MODULE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct clrie_os_module;

/* A function of a module, to be cast to its real type (ISO C converts between function
 * pointer types, not between object and function pointers). */
typedef void (*clrie_os_function)(void);

/* Loads the module at path: 0 and *out, to be released with clrie_os_module_unload; else a
 * negative errno value (-ENOENT, -EACCES, -ENOEXEC for a file the loader does not take, -EIO)
 * and the loader's own words in why (cut to why_len; why may be NULL). */
int clrie_os_module_load(const char *path, struct clrie_os_module **out, char *why, size_t why_len);

/* The module already loaded under the name name (no folder: an ELF module's DT_SONAME or file
 * name, a DLL's file name), with one more reference:
 * 0 and *out; -ENOENT when no such module is loaded. Nothing is loaded. */
int clrie_os_module_find(const char *name, struct clrie_os_module **out);

/* The function module exports as name, or NULL. */
clrie_os_function clrie_os_module_function(struct clrie_os_module *module, const char *name);

/* Drops one reference; the system unloads the module with its last. NULL is fine. */
void clrie_os_module_unload(struct clrie_os_module *module);

/* The path of the file of the module that holds address (code or data of it), malloc'd in
 * *out: 0, -ENOENT when no module holds it, -ENOMEM. */
int clrie_os_module_path_of(const void *address, char **out);

/* Keeps the module that holds address loaded until the process ends, whatever unloads it
 * later (its threads and handlers may outlive every reference): 0 or a negative errno. */
int clrie_os_module_pin(const void *address);

#ifdef __cplusplus
}
#endif

#endif
