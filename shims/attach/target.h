/* The process clrie-attach loads the engine into, as the system knows it, and what clrie-attach
 * makes for it: target_posix.c (/proc, the process's user id), target_win32.c (a process
 * handle, the process's user's SID). */
#ifndef CLRIE_ATTACH_TARGET_H
#define CLRIE_ATTACH_TARGET_H

/* 0 when process pid runs; -ESRCH when no process has that id (or it has ended). */
int attach_target_exists(unsigned long pid);

/* A new empty file for the engine's log in the temporary folder (POSIX: $TMPDIR, else /tmp;
 * Windows: GetTempPathW's), named clrie-attach-<pid>-<random>.log, that the user process pid
 * runs as can write: 0 and its path (UTF-8, malloc'd) in *path, or a negative errno value. */
int attach_target_log_create(unsigned long pid, char **path);

/* Removes the log file at path (from attach_target_log_create); NULL is fine. */
void attach_target_log_remove(const char *path);

#endif
