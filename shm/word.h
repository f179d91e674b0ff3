/* Words of the segment that one process writes and others read as they
 * change (the master's counters, figures and names): atomic stores, never
 * torn, and relaxed, since no reader derives one from another or
 * addresses anything by it (docs/architecture.md, "Memory order"). */
#ifndef REVHASH_SHM_WORD_H
#define REVHASH_SHM_WORD_H

#include <stdint.h>

/* Show v in a word others read. */
#define shm_show(lhs, v) __atomic_store_n(&(lhs), (v), __ATOMIC_RELAXED)
/* The word as it is now. */
#define shm_read(lhs) __atomic_load_n(&(lhs), __ATOMIC_RELAXED)
/* Add n to a counter this process alone writes: a load of its own word
 * and a store, not a locked add (a ++ costs no more). */
#define shm_count(lhs, n) shm_show(lhs, (lhs) + (n))
/* Put a word this process owns back to v where another wrote over it: 1
 * when it had to, else 0. */
#define shm_restore(lhs, v) (shm_read(lhs) != (v) ? (shm_show(lhs, v), 1) : 0)
/* A word of the segment whatever its declared type (a name's bytes, a
 * slot's). */
typedef uint64_t __attribute__((may_alias)) shm_word;

#endif
