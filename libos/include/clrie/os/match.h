/* clrie/os/match.h: shell patterns, as POSIX fnmatch with no flags (the C library of Windows
 * has none): '*' matches any run of characters, '?' any one, "[...]" one of a set with ranges
 * ("[a-z]") and negation ("[!...]" or "[^...]"), '\' makes the next character literal. '/'
 * and a leading '.' are ordinary characters. Characters are bytes: a UTF-8 character outside
 * ASCII matches '?' once per byte, and its bytes literally.
 *
 * Threads: pure functions. */
#ifndef CLRIE_OS_MATCH_H
#define CLRIE_OS_MATCH_H

#ifdef __cplusplus
extern "C" {
#endif

enum clrie_os_match_flags {
    CLRIE_OS_MATCH_CASEFOLD = 1 << 0, /* ASCII letters match either case */
};

/* Whether text matches pattern: 1 or 0. A '[' that opens no complete set ("[a") is an
 * ordinary character, as POSIX says. */
int clrie_os_match(const char *pattern, const char *text, unsigned flags);

#ifdef __cplusplus
}
#endif

#endif
