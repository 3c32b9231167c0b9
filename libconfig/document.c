/* One document being parsed: where each of its nodes and bytes is (line and column), and
 * its problems, kept to a bounded number. The libxml2 side (parse.c) and the element checks
 * (check.c) both report through it. */
#include "document.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool clrie_config__document_gave_up(const struct document *doc)
{
    return doc->r->diag_count >= MAX_PROBLEMS_PER_FILE || doc->r->out_of_memory;
}

void clrie_config__document_report(struct document *doc, enum clrie_config_severity severity,
                                   struct position at, const char *fmt, ...)
{
    struct file_result *r = doc->r;
    if (severity == CLRIE_CONFIG_ERROR && r->diag_count >= MAX_PROBLEMS_PER_FILE) {
        r->errors++;
        return;
    }
    if (r->diag_count >= MAX_PROBLEMS_PER_FILE)
        return;
    va_list ap;
    va_start(ap, fmt);
    clrie_config__file_result_vreport(r, severity, at.line, at.column, fmt, ap);
    va_end(ap);
    if (r->diag_count == MAX_PROBLEMS_PER_FILE) {
        r->truncated = true;
        clrie_config__file_result_report(r, CLRIE_CONFIG_ERROR, at.line, at.column,
                                         "too many problems; the rest of this file is not checked");
    }
}

/* --- positions ------------------------------------------------------------------------- */

static bool index_lines(struct document *doc)
{
    size_t count = 1;
    for (size_t i = 0; i < doc->len; i++)
        if (doc->data[i] == '\n' ||
            (doc->data[i] == '\r' && (i + 1 == doc->len || doc->data[i + 1] != '\n')))
            count++;
    doc->line_starts = malloc(count * sizeof(*doc->line_starts));
    if (!doc->line_starts)
        return false;
    size_t n = 0;
    doc->line_starts[n++] = 0;
    for (size_t i = 0; i < doc->len; i++)
        if (doc->data[i] == '\n' ||
            (doc->data[i] == '\r' && (i + 1 == doc->len || doc->data[i + 1] != '\n')))
            doc->line_starts[n++] = i + 1;
    doc->line_count = n;
    return true;
}

bool clrie_config__document_init(struct document *doc, struct file_result *r, const char *data,
                                 size_t len, const char *base_dir,
                                 const struct clrie_config_options *opts)
{
    *doc = (struct document){
        .r = r,
        .data = data,
        .len = len,
        .base_dir = base_dir,
        .opts = opts,
    };
    return index_lines(doc);
}

void clrie_config__document_finish(struct document *doc)
{
    free(doc->line_starts);
    doc->line_starts = NULL;
}

struct position clrie_config__document_position_at(struct document *doc, size_t offset)
{
    size_t lo = 0, hi = doc->line_count;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (doc->line_starts[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    size_t column = 1, start = doc->line_starts[lo];
    if (start == 0 && doc->len >= 3 && memcmp(doc->data, "\xEF\xBB\xBF", 3) == 0)
        start = 3; /* a byte-order mark is no character of the line */
    if (doc->cached && doc->cached_line == lo && doc->cached_offset >= start &&
        doc->cached_offset <= offset) {
        start = doc->cached_offset;
        column = doc->cached_column;
    }
    for (size_t i = start; i < offset; i++)
        if (((unsigned char)doc->data[i] & 0xC0) != 0x80)
            column++;
    doc->cached = true;
    doc->cached_line = lo;
    doc->cached_offset = offset;
    doc->cached_column = column;
    struct position p = {
        .line = lo + 1 > UINT_MAX ? UINT_MAX : (unsigned)(lo + 1),
        .column = column > UINT_MAX ? UINT_MAX : (unsigned)column,
    };
    return p;
}

static struct position text_position(struct document *doc, const xmlNode *node);

/* A line libxml2 gives (a long, 32 bits on Windows) as a position's line: 0 when unknown or
 * too large. */
static unsigned line_of(long line)
{
    return line > 0 && (unsigned long)line <= UINT_MAX ? (unsigned)line : 0;
}

struct position clrie_config__document_node_position(struct document *doc, const xmlNode *node)
{
    if (node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE)
        return text_position(doc, node);
    uintptr_t stored = (uintptr_t)node->_private;
    if (stored != 0 && doc->line_starts)
        return clrie_config__document_position_at(doc, (size_t)(stored - 1));
    struct position p = {.line = line_of(xmlGetLineNo((xmlNode *)node))};
    return p;
}

/* Where the first non-blank character of a text node is. libxml2 gives a text node the line
 * it ends on; counting back the newlines after its first non-blank character gives that
 * character's line, and finding the start of the text on that line of the input gives the
 * column (0 when the text is not there byte for byte, as with entity references). */
static struct position text_position(struct document *doc, const xmlNode *node)
{
    struct position p = {0};
    long end_line = xmlGetLineNo((xmlNode *)node);
    const char *text = (const char *)node->content;
    if (end_line <= 0 || !text)
        return p;
    const char *first = text;
    while (*first && clrie_config__is_xml_space(*first))
        first++;
    long line = end_line;
    for (const char *c = first; *c; c++)
        line -= *c == '\n';
    if (line <= 0)
        return p;
    p.line = line_of(line);
    if (!doc->line_starts || (size_t)line > doc->line_count)
        return p;
    size_t want = 0;
    while (want < 16 && first[want] && !clrie_config__is_xml_space(first[want]))
        want++;
    size_t begin = doc->line_starts[line - 1];
    size_t end = (size_t)line < doc->line_count ? doc->line_starts[line] : doc->len;
    for (size_t at = begin; want > 0 && at + want <= end; at++) {
        if (memcmp(doc->data + at, first, want) == 0)
            return clrie_config__document_position_at(doc, at);
    }
    return p;
}
