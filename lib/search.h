/* How a search of a range ends: the one vocabulary of the kernels that hash
 * a range and of the ring that hands ranges out and takes them back, so a
 * kernel's result goes to the ring as it is, never translated. */
#ifndef REVHASH_SEARCH_H
#define REVHASH_SEARCH_H

enum search_result {
	SEARCH_STOPPED = -1, /* the stop word was seen: [lo, *found) held no match */
	SEARCH_NONE = 0,     /* no value in [lo, hi] matches */
	SEARCH_FOUND = 1,    /* *found is the lowest match in [lo, hi] */
};

#endif
