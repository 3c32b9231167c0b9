/* SHA-1 (FIPS 180-4), for the one thing the engine needs it for: a strong-name public key token
 * (the last 8 bytes of the key's SHA-1, reversed). Not for anything security-related. */
#ifndef CLRIE_PM_SHA1_H
#define CLRIE_PM_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define CLRIE_PM_SHA1_SIZE 20

void clrie_pm_sha1(const void *data, size_t size, uint8_t digest[CLRIE_PM_SHA1_SIZE]);

#endif
