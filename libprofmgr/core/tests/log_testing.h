/* What the log's tests share: test_log.c (what every system does) and test_log_posix.c or
 * test_log_win32.c (the kinds of file each system has). */
#ifndef CLRIE_PM_TESTS_LOG_TESTING_H
#define CLRIE_PM_TESTS_LOG_TESTING_H

#include <stddef.h>

#define GUID_A "0D92A8D9-6645-4803-B94B-06A1C4F4E633"
#define GUID_B "11111111-2222-3333-4444-555555555555"

/* The end of the line saying why a log file was refused for what it is. */
#define NOT_A_FILE ", not a regular file or a character device"

/* "name=value", malloc'd. */
char *log_test_env_entry(const char *name, const char *value);

/* How many times needle occurs in text, none of them overlapping. */
size_t log_test_count(const char *text, const char *needle);

/* Starts a log whose FileLogPath is path and whose LogLevel is level (NULL: Errors), with
 * stderr captured, and writes the error line "after"; returns what reached stderr (malloc'd).
 * *fd_out (may be NULL) gets the descriptor the log opened, -1 for none. */
char *log_test_to(const char *path, const char *level, int *fd_out);

/* Fails the test unless text (stderr) has exactly one line saying that the log file path was
 * refused for why, and the line "after" after it, as the log then still works on stderr. */
void log_test_assert_refused(const char *text, const char *path, const char *why);

#endif
