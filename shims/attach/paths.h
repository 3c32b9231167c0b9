/* The engine clrie-attach hands to the process it attaches to, unless --engine names one:
 * paths_posix.c, paths_win32.c. Paths are UTF-8. */
#ifndef CLRIE_ATTACH_PATHS_H
#define CLRIE_ATTACH_PATHS_H

/* The engine installed with clrie-attach, malloc'd in *out: on POSIX the one this build
 * installs (a path fixed at build time); on Windows the one beside the Tools folder the
 * program sits in (<version>\Instrumentation64\Tools\clrie-attach.exe loads
 * <version>\Instrumentation64\MicrosoftInstrumentationEngine_x64.dll). 0 or a negative errno
 * value. */
int attach_default_engine(char **out);

#endif
