/* SHA-1 (FIPS 180-4 section 6.1), one-shot. */
#include "sha1.h"

#include <string.h>

static uint32_t rol(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

static void compress(uint32_t h[5], const uint8_t block[64])
{
    uint32_t w[80];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 |
               (uint32_t)block[4 * t + 2] << 8 | (uint32_t)block[4 * t + 3];
    for (int t = 16; t < 80; t++)
        w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);

    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int t = 0; t < 80; t++) {
        uint32_t f, k;
        if (t < 20)
            f = (b & c) | (~b & d), k = 0x5A827999;
        else if (t < 40)
            f = b ^ c ^ d, k = 0x6ED9EBA1;
        else if (t < 60)
            f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDC;
        else
            f = b ^ c ^ d, k = 0xCA62C1D6;
        uint32_t temp = rol(a, 5) + f + e + k + w[t];
        e = d;
        d = c;
        c = rol(b, 30);
        b = a;
        a = temp;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

void clrie_pm_sha1(const void *data, size_t size, uint8_t digest[CLRIE_PM_SHA1_SIZE])
{
    uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    const uint8_t *p = data;
    size_t left = size;
    for (; left >= 64; p += 64, left -= 64)
        compress(h, p);

    /* Padding: 0x80, zeros, the message length in bits as 64-bit big-endian. */
    uint8_t tail[128] = {0};
    if (left)
        memcpy(tail, p, left);
    tail[left] = 0x80;
    size_t tail_size = left < 56 ? 64 : 128;
    uint64_t bits = (uint64_t)size * 8;
    for (int i = 0; i < 8; i++)
        tail[tail_size - 1 - i] = (uint8_t)(bits >> (8 * i));
    compress(h, tail);
    if (tail_size == 128)
        compress(h, tail + 64);

    for (int i = 0; i < 5; i++) {
        digest[4 * i] = (uint8_t)(h[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(h[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(h[i] >> 8);
        digest[4 * i + 3] = (uint8_t)h[i];
    }
}
