#ifndef COURIER_FILE_STATUS_H
#define COURIER_FILE_STATUS_H

#include <stdint.h>

/// What Courier reads of a file's status, in fields of fixed width. Swift never sees `struct stat`:
/// which module owns that C struct depends on which header included `<sys/stat.h>` first, and
/// with MemberImportVisibility a file could then fail to compile in one build order but not another.
typedef struct {
    int64_t size;
    int64_t modifiedSeconds;
    int64_t modifiedNanoseconds;
    uint64_t device;
    uint64_t inode;
    uint32_t owner;
    /// 1 for a regular file, 0 for anything else (a folder, a link, a device).
    int32_t isRegularFile;
} courier_file_status;

/// The status of an open descriptor; 0 on success, -1 with `errno` set.
int courier_fstat(int descriptor, courier_file_status *status);
/// The status of the file at `path`, following a link; 0 on success, -1 with `errno` set.
int courier_stat(const char *path, courier_file_status *status);
/// The status of `path` itself, not following a link; 0 on success, -1 with `errno` set.
int courier_lstat(const char *path, courier_file_status *status);

#endif
