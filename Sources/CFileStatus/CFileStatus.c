#include "CFileStatus.h"
#include <sys/stat.h>

static void courier_fill(const struct stat *from, courier_file_status *to) {
    to->size = (int64_t)from->st_size;
#if defined(__APPLE__)
    to->modifiedSeconds = (int64_t)from->st_mtimespec.tv_sec;
    to->modifiedNanoseconds = (int64_t)from->st_mtimespec.tv_nsec;
#else
    to->modifiedSeconds = (int64_t)from->st_mtim.tv_sec;
    to->modifiedNanoseconds = (int64_t)from->st_mtim.tv_nsec;
#endif
    to->device = (uint64_t)from->st_dev;
    to->inode = (uint64_t)from->st_ino;
    to->owner = (uint32_t)from->st_uid;
    to->isRegularFile = S_ISREG(from->st_mode) ? 1 : 0;
}

int courier_fstat(int descriptor, courier_file_status *status) {
    struct stat raw;
    if (fstat(descriptor, &raw) != 0) return -1;
    courier_fill(&raw, status);
    return 0;
}

int courier_stat(const char *path, courier_file_status *status) {
    struct stat raw;
    if (stat(path, &raw) != 0) return -1;
    courier_fill(&raw, status);
    return 0;
}

int courier_lstat(const char *path, courier_file_status *status) {
    struct stat raw;
    if (lstat(path, &raw) != 0) return -1;
    courier_fill(&raw, status);
    return 0;
}
