/* A binary heap over positions (see heap.h): position 0 is the best, and
 * the children of p are 2p + 1 and 2p + 2. */
#include "lib/heap.h"

/* Move the element at pos up while it ranks before its parent. */
static uint32_t sift_up(const struct heap_ops *ops, void *set, uint32_t pos)
{
	while (pos > 0) {
		uint32_t parent = (pos - 1) / 2;
		if (!ops->before(set, pos, parent))
			break;
		ops->swap(set, pos, parent);
		pos = parent;
	}
	return pos;
}

/* Move the element at pos down while a child ranks before it. */
static void sift_down(const struct heap_ops *ops, void *set, uint32_t n, uint32_t pos)
{
	for (;;) {
		uint32_t c = 2 * pos + 1;
		if (c >= n)
			return;
		if (c + 1 < n && ops->before(set, c + 1, c))
			c++;
		if (!ops->before(set, c, pos))
			return;
		ops->swap(set, pos, c);
		pos = c;
	}
}

void heap_fix(const struct heap_ops *ops, void *set, uint32_t n, uint32_t pos)
{
	sift_down(ops, set, n, sift_up(ops, set, pos));
}

uint32_t heap_second(const struct heap_ops *ops, const void *set, uint32_t n)
{
	return n > 2 && ops->before(set, 2, 1) ? 2 : 1;
}

void heap_remove(const struct heap_ops *ops, void *set, uint32_t n, uint32_t pos)
{
	if (pos == n - 1)
		return;
	ops->swap(set, pos, n - 1);
	heap_fix(ops, set, n - 1, pos);
}
