/* SipHash-2-4 (Aumasson and Bernstein): a keyed hash for the tables a
 * network peer fills (the answer cache, the master's index of jobs).
 * Their keys are the peer's to choose, down to every byte; with a key the
 * peer cannot know, it cannot choose them so that they all land in one
 * bucket and turn each lookup into a walk of the whole table. */
#ifndef REVHASH_SIPHASH_H
#define REVHASH_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#define SIPHASH_KEY_LEN 16

/* The hash of the len bytes at data under key. */
uint64_t siphash(const uint8_t key[SIPHASH_KEY_LEN], const void *data, size_t len);
/* A fresh random key (getrandom; the clock and the pid where that fails:
 * then the key is guessable, which costs speed, never correctness). */
void siphash_key(uint8_t key[SIPHASH_KEY_LEN]);

#endif
