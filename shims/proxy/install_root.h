/* Where the proxy looks for engines when it is not in an install's own Proxy\v<MAJOR> folder:
 * the system's install location, which only Windows has (CLRIE's
 * %ProgramFiles%\Microsoft CLR Instrumentation Engine, %ProgramFiles(x86)% for a 32-bit proxy on
 * a 64-bit system). One file per system: install_root_posix.c, install_root_win32.c. */
#ifndef CLRIE_PROXY_INSTALL_ROOT_H
#define CLRIE_PROXY_INSTALL_ROOT_H

#include <stddef.h>

/* The system's install root, malloc'd in *root: 0; -ENOENT when the system has none (POSIX:
 * the proxy's own location is the only rule) or the variable that names it is not set, with
 * *root NULL and why[] saying which; -ENOMEM. */
int proxy_install_root(char **root, char *why, size_t why_size);

#endif
