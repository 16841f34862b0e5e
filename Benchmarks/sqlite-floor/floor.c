// SQLite's own cost of the cache's write, without Swift or GRDB: the thread CPU a row takes when
// rows like the bench's miss + store scenario (3 KB bodies, batches of 55) go into the cache's
// schema, and into variants of it. docs/performance.md quotes its figures.
//
//   gcc -O2 -o /tmp/sqlite-floor Benchmarks/sqlite-floor/floor.c -lsqlite3
//   /tmp/sqlite-floor <variant> [page_size] [wal_autocheckpoint]
//
// <variant> is "base" (the schema as Courier creates it) or any of these words joined by "-":
// notrig (no insert trigger on totals: one update a batch), noauto (no AUTOINCREMENT), nofk (no
// foreign key checks), inline (the body in the entry row), hash (the unique index on a 64-bit
// hash of the key). The file is /tmp/sqlite-floor.db; it is replaced on every run.
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *path = "/tmp/sqlite-floor.db";

static double threadMicroseconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void run(sqlite3 *db, const char *sql) {
    char *error = 0;
    if (sqlite3_exec(db, sql, 0, 0, &error) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, error);
        exit(1);
    }
}

static void step(sqlite3 *db, sqlite3_stmt *statement) {
    if (sqlite3_step(statement) != SQLITE_DONE) {
        fprintf(stderr, "%s\n", sqlite3_errmsg(db));
        exit(1);
    }
    sqlite3_reset(statement);
}

int main(int argc, char **argv) {
    const char *variant = argc > 1 ? argv[1] : "base";
    int pageSize = argc > 2 ? atoi(argv[2]) : 4096;
    int autocheckpoint = argc > 3 ? atoi(argv[3]) : 1000;
    int noTrigger = strstr(variant, "notrig") != 0, noAutoincrement = strstr(variant, "noauto") != 0;
    int noForeignKeys = strstr(variant, "nofk") != 0, inlineBody = strstr(variant, "inline") != 0;
    int hashKey = strstr(variant, "hash") != 0;

    char file[256];
    for (const char *suffix = ""; suffix; suffix = strcmp(suffix, "") == 0 ? "-wal" : strcmp(suffix, "-wal") == 0 ? "-shm" : 0) {
        snprintf(file, sizeof file, "%s%s", path, suffix);
        unlink(file);
    }
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) return 1;

    // The connection settings of CacheStore.configuration().
    char sql[4096];
    snprintf(sql, sizeof sql, "PRAGMA page_size = %d; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
             "PRAGMA cache_size = -8192; PRAGMA journal_size_limit = 16777216; PRAGMA wal_autocheckpoint = %d;"
             "PRAGMA foreign_keys = %s;", pageSize, autocheckpoint, noForeignKeys ? "OFF" : "ON");
    run(db, sql);

    // The schema of CacheStore.migrator, with the variant's changes.
    snprintf(sql, sizeof sql,
             "CREATE TABLE entry (id INTEGER PRIMARY KEY %s, method TEXT NOT NULL, url TEXT NOT NULL,"
             " partitionKey TEXT NOT NULL, varyKey TEXT NOT NULL, vary BLOB NOT NULL, status INTEGER NOT NULL,"
             " headers BLOB NOT NULL, requestTime REAL NOT NULL, responseTime REAL NOT NULL, bodySize INTEGER NOT NULL,"
             " metaSize INTEGER NOT NULL, storedAt REAL NOT NULL, lastAccess REAL NOT NULL, accessOrder INTEGER NOT NULL,"
             " %s%s);"
             "CREATE INDEX entry_accessOrder ON entry(accessOrder);"
             "CREATE TABLE body (entryId INTEGER PRIMARY KEY REFERENCES entry(id) ON DELETE CASCADE, data BLOB NOT NULL);"
             "CREATE TABLE totals (id INTEGER PRIMARY KEY CHECK (id = 1), entries INTEGER NOT NULL, bytes INTEGER NOT NULL);"
             "INSERT INTO totals VALUES (1, 0, 0);",
             noAutoincrement ? "" : "AUTOINCREMENT", inlineBody ? "data BLOB, " : "",
             hashKey ? "keyHash INTEGER, UNIQUE (keyHash, varyKey)" : "UNIQUE (partitionKey, url, method, varyKey)");
    run(db, sql);
    if (!noTrigger) {
        run(db, "CREATE TRIGGER entry_totals_insert AFTER INSERT ON entry BEGIN UPDATE totals SET entries = entries + 1,"
                " bytes = bytes + NEW.bodySize + NEW.metaSize WHERE id = 1; END;");
    }

    sqlite3_stmt *insertEntry, *insertBody, *addToTotals;
    snprintf(sql, sizeof sql,
        "INSERT INTO entry (partitionKey, url, method, varyKey, vary, status, headers, requestTime, responseTime,"
        " bodySize, metaSize, storedAt, lastAccess, accessOrder%s%s)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
        " (SELECT COALESCE(MAX(accessOrder), 0) + 1 FROM entry)%s%s)",
        inlineBody ? ", data" : "", hashKey ? ", keyHash" : "", inlineBody ? ", ?14" : "", hashKey ? ", ?15" : "");
    if (sqlite3_prepare_v2(db, sql, -1, &insertEntry, 0) != SQLITE_OK) {
        fprintf(stderr, "%s\n", sqlite3_errmsg(db));
        return 1;
    }
    sqlite3_prepare_v2(db, "INSERT INTO body (entryId, data) VALUES (?1, ?2)", -1, &insertBody, 0);
    sqlite3_prepare_v2(db, "UPDATE totals SET entries = entries + ?1, bytes = bytes + ?2 WHERE id = 1", -1, &addToTotals, 0);

    char body[3072], headers[300];
    for (int i = 0; i < (int)sizeof body; i++) body[i] = 'a' + (i * 7) % 26;
    memset(headers, 'h', sizeof headers);
    const int warmUp = 2000, rows = 20000, batch = 55;
    double spent = 0;
    for (int first = 0; first < warmUp + rows; first += batch) {
        double start = threadMicroseconds();
        run(db, "BEGIN IMMEDIATE");
        long bytes = 0;
        for (int n = first; n < first + batch; n++) {
            char url[128];
            snprintf(url, sizeof url, "http://127.0.0.1:8080/cached.json?n=%d", n);
            unsigned long long hash = 1469598103934665603ULL;
            for (const char *c = url; *c; c++) hash = (hash ^ (unsigned char)*c) * 1099511628211ULL;
            sqlite3_bind_text(insertEntry, 1, "", 0, SQLITE_STATIC);
            sqlite3_bind_text(insertEntry, 2, url, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(insertEntry, 3, "GET", 3, SQLITE_STATIC);
            sqlite3_bind_text(insertEntry, 4, "", 0, SQLITE_STATIC);
            sqlite3_bind_zeroblob(insertEntry, 5, 0);
            sqlite3_bind_int64(insertEntry, 6, 200);
            sqlite3_bind_blob(insertEntry, 7, headers, sizeof headers, SQLITE_STATIC);
            for (int parameter = 8; parameter <= 9; parameter++) sqlite3_bind_double(insertEntry, parameter, 1.7e9 + n);
            sqlite3_bind_int64(insertEntry, 10, sizeof body);
            sqlite3_bind_int64(insertEntry, 11, 400);
            for (int parameter = 12; parameter <= 13; parameter++) sqlite3_bind_double(insertEntry, parameter, 1.7e9 + n);
            if (inlineBody) sqlite3_bind_blob(insertEntry, 14, body, sizeof body, SQLITE_STATIC);
            if (hashKey) sqlite3_bind_int64(insertEntry, 15, (long long)hash);
            step(db, insertEntry);
            if (!inlineBody) {
                sqlite3_bind_int64(insertBody, 1, sqlite3_last_insert_rowid(db));
                sqlite3_bind_blob(insertBody, 2, body, sizeof body, SQLITE_STATIC);
                step(db, insertBody);
            }
            bytes += sizeof body + 400;
        }
        if (noTrigger) {
            sqlite3_bind_int64(addToTotals, 1, batch);
            sqlite3_bind_int64(addToTotals, 2, bytes);
            step(db, addToTotals);
        }
        run(db, "COMMIT");
        if (first >= warmUp) spent += threadMicroseconds() - start;
    }
    printf("%-28s page %5d autocheckpoint %5d: %.1f us a row\n", variant, pageSize, autocheckpoint, spent / rows);
    sqlite3_close(db);
    return 0;
}
