/* What a module must be before anyone dlopens it: a complete ELF shared object of this
 * machine (a file cut short during an upgrade makes dlopen's mappings fault with SIGBUS), and,
 * when asked, a file the trust rule (trust.c) accepts. */
#define _DEFAULT_SOURCE /* realpath */
#include "config_private.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#define NATIVE_MACHINE_NAME "x86-64"
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#define NATIVE_MACHINE_NAME "AArch64"
#else
#error "clrie knows the ELF machine of x86_64 and aarch64 only"
#endif
#if __SIZEOF_POINTER__ != 8 || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "clrie's module check expects a 64-bit little-endian machine"
#endif

/* More program headers than any real shared object has; a header claiming more is refused
 * before a table that large is read. */
#define MAX_PROGRAM_HEADERS 4096

/* The file being checked: open on fd, or held in memory. */
struct image {
    int fd;
    const unsigned char *data;
    uint64_t size;
};

/* Reads exactly len bytes at offset. Returns 0, -ENOEXEC when the file ends first, or the
 * negative errno of pread. */
static int read_at(const struct image *img, uint64_t offset, void *buf, size_t len)
{
    if (offset > img->size || len > img->size - offset)
        return -ENOEXEC;
    if (img->data) {
        memcpy(buf, img->data + offset, len);
        return 0;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t got = pread(img->fd, (char *)buf + done, len - done, (off_t)(offset + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -errno;
        if (got == 0)
            return -ENOEXEC; /* shrank since it was measured */
        done += (size_t)got;
    }
    return 0;
}

/* Whether offset + count * entry_size fits in size, without overflow. */
static bool table_fits(uint64_t offset, uint64_t count, uint64_t entry_size, uint64_t size)
{
    if (offset > size)
        return false;
    return entry_size == 0 || count <= (size - offset) / entry_size;
}

static int refuse(char *why, size_t why_len, const char *what, uint64_t size)
{
    clrie_config__why(why, why_len,
                      "not a complete ELF shared object for this machine: %s "
                      "(the file has %llu bytes)",
                      what, (unsigned long long)size);
    return -ENOEXEC;
}

static int check_header(const Elf64_Ehdr *h, uint64_t size, char *why, size_t why_len)
{
    char what[200];
    if (memcmp(h->e_ident, ELFMAG, SELFMAG) != 0)
        return refuse(why, why_len, "no ELF magic number", size);
    if (h->e_ident[EI_CLASS] != ELFCLASS64)
        return refuse(why, why_len, "not a 64-bit ELF file", size);
    if (h->e_ident[EI_DATA] != ELFDATA2LSB)
        return refuse(why, why_len, "not little-endian", size);
    if (h->e_ident[EI_VERSION] != EV_CURRENT || h->e_version != EV_CURRENT)
        return refuse(why, why_len, "an unknown ELF version", size);
    if (h->e_machine != NATIVE_MACHINE) {
        snprintf(what, sizeof(what), "built for ELF machine %u, not " NATIVE_MACHINE_NAME,
                 (unsigned)h->e_machine);
        return refuse(why, why_len, what, size);
    }
    if (h->e_type != ET_DYN) {
        snprintf(what, sizeof(what), "ELF type %u, not a shared object (ET_DYN)",
                 (unsigned)h->e_type);
        return refuse(why, why_len, what, size);
    }
    if (h->e_phnum == 0 || h->e_phentsize != sizeof(Elf64_Phdr))
        return refuse(why, why_len, "no program headers of the expected size", size);
    if (h->e_phnum > MAX_PROGRAM_HEADERS)
        return refuse(why, why_len, "implausibly many program headers", size);
    if (!table_fits(h->e_phoff, h->e_phnum, h->e_phentsize, size))
        return refuse(why, why_len, "the program headers lie past the end of the file", size);
    if (h->e_shoff != 0) {
        /* With e_shnum 0 the count is in the first section header: that one must be there. */
        uint64_t count = h->e_shnum ? h->e_shnum : 1;
        if (h->e_shentsize != sizeof(Elf64_Shdr))
            return refuse(why, why_len, "section headers of an unexpected size", size);
        if (!table_fits(h->e_shoff, count, h->e_shentsize, size))
            return refuse(why, why_len, "cut short: the section headers lie past the end", size);
    }
    return 0;
}

static int check_image(const struct image *img, char *why, size_t why_len)
{
    Elf64_Ehdr h;
    int r = read_at(img, 0, &h, sizeof(h));
    if (r == -ENOEXEC)
        return refuse(why, why_len, "shorter than an ELF header", img->size);
    if (r != 0)
        goto read_error;
    if ((r = check_header(&h, img->size, why, why_len)) != 0)
        return r;
    unsigned loads = 0;
    for (unsigned i = 0; i < h.e_phnum; i++) {
        Elf64_Phdr ph;
        if ((r = read_at(img, h.e_phoff + (uint64_t)i * sizeof(ph), &ph, sizeof(ph))) != 0)
            goto read_error;
        if (ph.p_type != PT_LOAD)
            continue;
        loads++;
        if (!table_fits(ph.p_offset, 1, ph.p_filesz, img->size)) {
            char what[200];
            snprintf(what, sizeof(what), "cut short: loadable segment %u needs bytes up to %llu", i,
                     (unsigned long long)(ph.p_offset + ph.p_filesz));
            return refuse(why, why_len, what, img->size);
        }
    }
    if (loads == 0)
        return refuse(why, why_len, "no loadable segment", img->size);
    return 0;

read_error:
    if (r == -ENOEXEC) /* only a file that shrank while it was read */
        return refuse(why, why_len, "cut short while it was read", img->size);
    char buf[128];
    clrie_config__why(why, why_len, "cannot read the file: %s",
                      clrie_config__strerror(-r, buf, sizeof(buf)));
    return r;
}

int clrie_config_elf_check_memory(const void *data, size_t size, char *why, size_t why_len)
{
    if (!data && size > 0)
        return -EINVAL;
    static const unsigned char empty[1];
    struct image img = {.fd = -1, .data = data ? data : empty, .size = size};
    return check_image(&img, why, why_len);
}

int clrie_config_elf_check_fd(int fd, char *why, size_t why_len)
{
    struct stat st;
    int r = clrie_config__fstat(fd, &st, why, why_len);
    if (r)
        return r;
    struct image img = {.fd = fd, .size = st.st_size > 0 ? (uint64_t)st.st_size : 0};
    return check_image(&img, why, why_len);
}

int clrie_config_module_check(const char *path, unsigned checks, char **canonical, char *why,
                              size_t why_len)
{
    char buf[128];
    if (!path) {
        clrie_config__why(why, why_len, "no path");
        return -EINVAL;
    }
    char *resolved = realpath(path, NULL);
    if (!resolved) {
        int err = errno;
        clrie_config__why(why, why_len, "%s", clrie_config__strerror(err, buf, sizeof(buf)));
        return -err;
    }
    int ret = 0;
    int fd = open(resolved, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        ret = -errno;
        clrie_config__why(why, why_len, "cannot open '%s': %s", resolved,
                          clrie_config__strerror(-ret, buf, sizeof(buf)));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        ret = -EINVAL;
        clrie_config__why(why, why_len, "'%s' is not a regular file", resolved);
        goto out;
    }
    if ((checks & CLRIE_CONFIG_CHECK_TRUST) &&
        (ret = clrie_config__trust_stat(&st, resolved, why, why_len)) != 0)
        goto out;
    if (checks & CLRIE_CONFIG_CHECK_ELF) {
        struct image img = {.fd = fd, .size = st.st_size > 0 ? (uint64_t)st.st_size : 0};
        ret = check_image(&img, why, why_len);
    }
out:
    if (fd >= 0)
        close(fd);
    if (ret == 0 && canonical)
        *canonical = resolved;
    else
        free(resolved);
    return ret;
}
