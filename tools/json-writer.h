/* A small pretty-printing JSON writer, for cushim-info's --json. */
#ifndef CUSHIM_TOOLS_JSON_WRITER_H
#define CUSHIM_TOOLS_JSON_WRITER_H

#include <stdbool.h>
#include <stdio.h>

/* A pretty-printing writer that only has to remember whether a comma is due. */
typedef struct json {
    FILE *out;
    int depth;
    bool first; /* nothing written yet in the innermost object or array */
} json;

/* Writes s as a JSON string. Bytes that are not UTF-8 (a path may hold any byte) become U+FFFD,
 * so that the output always parses. */
void json_string(FILE *out, const char *s);

/* Starts a member (key given) or an array element (key NULL) on its own line. */
void json_member(json *j, const char *key);

/* Opens an object ('{') or an array ('['), as a member or an element, and closes it. */
void json_open(json *j, const char *key, char bracket);
void json_close(json *j, char bracket);

/* A string member, null when s is NULL; an integer member. */
void json_str(json *j, const char *key, const char *s);
void json_int(json *j, const char *key, long long v);

#endif
