#ifndef CFROSTBOX_SYSTEM_H
#define CFROSTBOX_SYSTEM_H

/// Linux calls that Swift's Glibc module does not declare: for background work that must
/// yield to the service (a bulk place import), for memory kept after a notify run, and for
/// many random bytes in one call.

#include <stddef.h>

/// Puts the calling thread (and threads it starts afterwards) in the idle I/O class: the
/// block layer serves its reads and the writeback it starts only when no one else waits.
/// Returns 0, or -1 with errno set (e.g. where I/O priorities are unsupported).
int frostbox_ioprio_set_idle(void);

/// Writes back the dirty pages of `fd` and waits for them (sync_file_range with
/// WAIT_BEFORE | WRITE | WAIT_AFTER over the whole file): data only, no journal commit.
/// Returns 0, or -1 with errno set.
int frostbox_write_back(int fd);

/// Hands the free memory of every malloc arena back to the system (glibc's malloc_trim(0)):
/// after a burst of allocations (a notify run) glibc keeps freed pages in its arenas, and
/// the process's resident size would stay at the burst's peak. Returns 1 if memory was
/// released, 0 if not (or where the C library has no such call).
int frostbox_release_free_memory(void);

/// Fills `count` bytes at `buffer` from the system's CSPRNG in as few calls as it takes
/// (getrandom(2) on Linux, retried when a signal cut it short; arc4random_buf on Apple
/// systems): the generator Swift's `SystemRandomNumberGenerator` reads, which gives 8 bytes
/// a call. Returns 0, or -1 with errno set (then the buffer's contents are not random).
int frostbox_random_bytes(void *buffer, size_t count);

#endif
