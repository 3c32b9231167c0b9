/* Paths clrie-attach hands to the process it attaches to, which has its own working folder:
 * paths_posix.c, paths_win32.c. Paths are UTF-8 (UTF-16 at the Windows calls). */
#ifndef CLRIE_ATTACH_PATHS_H
#define CLRIE_ATTACH_PATHS_H

/* The engine installed with clrie-attach, malloc'd in *out: on POSIX the one this build
 * installs (a path fixed at build time); on Windows the one beside the Tools folder the
 * program sits in (<version>\Instrumentation64\Tools\clrie-attach.exe loads
 * <version>\Instrumentation64\MicrosoftInstrumentationEngine_x64.dll). 0 or a negative errno
 * value. */
int attach_default_engine(char **out);

/* path made absolute against the current folder (it need not exist), malloc'd in *out;
 * an absolute path comes back as it is. 0 or a negative errno value. */
int attach_path_absolute(const char *path, char **out);

#endif
