#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/random.h>
#endif
#include <sys/syscall.h>
#include <unistd.h>
#include "CFrostboxSystem.h"

int frostbox_ioprio_set_idle(void) {
#if defined(__linux__) && defined(SYS_ioprio_set)
    const int who_process = 1;  /* IOPRIO_WHO_PROCESS; with 0: the calling thread */
    const int class_idle = 3;   /* IOPRIO_CLASS_IDLE */
    return (int)syscall(SYS_ioprio_set, who_process, 0, class_idle << 13);
#else
    return -1;
#endif
}

int frostbox_write_back(int fd) {
#if defined(__linux__)
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
#else
    return fsync(fd);
#endif
}

int frostbox_release_free_memory(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}

int frostbox_random_bytes(void *buffer, size_t count) {
#if defined(__linux__)
    unsigned char *next = buffer;
    while (count > 0) {
        ssize_t got = getrandom(next, count, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        next += got;
        count -= (size_t)got;
    }
    return 0;
#elif defined(__APPLE__)
    arc4random_buf(buffer, count);
    return 0;
#else
    errno = ENOSYS;
    return -1;
#endif
}
