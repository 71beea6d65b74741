/* The clip's cold start in C, for sharelog-bench: a fresh process opens a
 * store, fetches one share by record name and exits.
 *
 *   sharelog-cold-c lmdb|sqlite DIRECTORY RECORD-NAME NOW-MS
 *   sharelog-cold-c noop        (process start and exit only)
 *
 * Prints live, expired or missing. Exit codes as the sharelog CLI's: 0 live,
 * 3 not found, 4 expired, 1 failure, 2 usage. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbaseline.h"

/* Reads a UUID in its 36-character form (either case) into 16 bytes. */
static int parse_name(const char *text, unsigned char name[16]) {
    if (strlen(text) != 36) return -1;
    int n = 0;
    for (const char *p = text; *p && n < 32; p++) {
        if (*p == '-') continue;
        char digit[2] = {*p, 0};
        char *end;
        long value = strtol(digit, &end, 16);
        if (*end != 0) return -1;
        if (n % 2 == 0) name[n / 2] = (unsigned char)(value << 4);
        else name[n / 2] |= (unsigned char)value;
        n++;
    }
    return n == 32 ? 0 : -1;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "noop") == 0) return 0;
    unsigned char name[16];
    if (argc != 5 || parse_name(argv[3], name) != 0) {
        fprintf(stderr, "usage: sharelog-cold-c lmdb|sqlite DIRECTORY RECORD-NAME NOW-MS | noop\n");
        return 2;
    }
    long long now_ms = strtoll(argv[4], NULL, 10);
    char error[512] = "";
    int status;
    if (strcmp(argv[1], "lmdb") == 0) {
        status = cb_lmdb_cold_fetch(argv[2], name, now_ms, error, sizeof error);
    } else if (strcmp(argv[1], "sqlite") == 0) {
        status = cb_sqlite_cold_fetch(argv[2], name, now_ms, error, sizeof error);
    } else {
        fprintf(stderr, "sharelog-cold-c: unknown store kind '%s'\n", argv[1]);
        return 2;
    }
    switch (status) {
    case 0: puts("live"); return 0;
    case 1: puts("expired"); return 4;
    case 2: puts("missing"); return 3;
    default: fprintf(stderr, "sharelog-cold-c: %s\n", error); return 1;
    }
}
