/* Shell patterns (clrie/os/match.h): one implementation for every system, iterative, with the
 * classic single backtrack point of the last '*' (linear in practice, never recursive). */
#include "clrie/os/match.h"

#include <stdbool.h>
#include <stddef.h>

static unsigned char fold(unsigned char c, unsigned flags)
{
    if ((flags & CLRIE_OS_MATCH_CASEFOLD) && c >= 'A' && c <= 'Z')
        return (unsigned char)(c - 'A' + 'a');
    return c;
}

/* Matches c against the set that starts after '[' at *p. On success sets *end after the
 * closing ']' and returns 1 (in the set) or 0; returns -1 when the set has no ']' (then '['
 * is an ordinary character). */
static int in_set(const char *p, unsigned char c, unsigned flags, const char **end)
{
    bool negate = *p == '!' || *p == '^';
    if (negate)
        p++;
    bool found = false, first = true;
    c = fold(c, flags);
    while (*p && (first || *p != ']')) {
        first = false;
        unsigned char lo = (unsigned char)*p++;
        if (lo == '\\' && *p)
            lo = (unsigned char)*p++;
        unsigned char hi = lo;
        if (p[0] == '-' && p[1] && p[1] != ']') {
            p++;
            hi = (unsigned char)*p++;
            if (hi == '\\' && *p)
                hi = (unsigned char)*p++;
        }
        lo = fold(lo, flags);
        hi = fold(hi, flags);
        if (lo <= c && c <= hi)
            found = true;
    }
    if (*p != ']')
        return -1;
    *end = p + 1;
    return found != negate;
}

int clrie_os_match(const char *pattern, const char *text, unsigned flags)
{
    const char *p = pattern, *t = text;
    const char *star_p = NULL, *star_t = NULL; /* where to resume after the last '*' */
    for (;;) {
        if (*p == '*') {
            while (*p == '*')
                p++;
            star_p = p;
            star_t = t;
            continue;
        }
        if (*t) {
            bool one = false;
            const char *next = p + 1;
            if (*p == '?') {
                one = true;
            } else if (*p == '[') {
                const char *end = NULL;
                int r = in_set(p + 1, (unsigned char)*t, flags, &end);
                if (r >= 0) {
                    one = r == 1;
                    next = end;
                } else {
                    one = '[' == *t;
                }
            } else if (*p == '\\' && p[1]) {
                one = fold((unsigned char)p[1], flags) == fold((unsigned char)*t, flags);
                next = p + 2;
            } else if (*p) {
                one = fold((unsigned char)*p, flags) == fold((unsigned char)*t, flags);
            }
            if (one) {
                p = next;
                t++;
                continue;
            }
        } else if (!*p) {
            return 1;
        }
        /* A mismatch, or the text ended first: let the last '*' take one more character. */
        if (!star_p || !*star_t)
            return 0;
        p = star_p;
        t = ++star_t;
    }
}
