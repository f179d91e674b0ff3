/* The one binary heap of the project, best first, behind every ranked set
 * (the ring's leasable jobs, the master's backlog). It knows positions
 * only: the set says how two compare and how to exchange them, so each
 * element can note its own place as it moves (O(log n) updates and
 * removals), and nothing of the set's memory needs to be a pointer. */
#ifndef REVHASH_HEAP_H
#define REVHASH_HEAP_H

#include <stdint.h>

struct heap_ops {
	/* Does the element at a rank before the one at b? A strict order. */
	int (*before)(const void *set, uint32_t a, uint32_t b);
	/* Exchange the elements at a and b. */
	void (*swap)(void *set, uint32_t a, uint32_t b);
};

/* The element at pos of the n in the heap changed rank, or was just added
 * at pos = n - 1: move it where it belongs. */
void heap_fix(const struct heap_ops *ops, void *set, uint32_t n, uint32_t pos);
/* The position of the second best of the n (n > 1): the better child of
 * the top. */
uint32_t heap_second(const struct heap_ops *ops, const void *set, uint32_t n);
/* Take the element at pos out of the n: it goes to position n - 1, which
 * the caller then drops, and the others are put back in order. */
void heap_remove(const struct heap_ops *ops, void *set, uint32_t n, uint32_t pos);

#endif
