/* The master's one call that takes the ring's lock (see ring_master.h),
 * run once no worker lives: nobody of ours is inside the lock or waits
 * on a semaphore, so both are made again, and the new lock taken without
 * waiting (one not free at once was taken by someone not ours). */
#include "shm/ring_master.h"
#include "shm/ring_slot.h"
#include "shm/ring_worker.h"

#include <errno.h>
#include <unistd.h>

int ring_reset(struct ring *r)
{
	int rc = ring_make_sync(r);

	if (rc)
		return rc;
	rc = pthread_mutex_trylock(&r->lock);
	if (rc == EOWNERDEAD) /* taken and left by someone not ours: ours now */
		pthread_mutex_consistent(&r->lock);
	else if (rc)
		return -rc;
	publish(r->lock_owner, (int32_t)getpid());
	r->repairs++;
	ring_repair(r);
	ring_unlock(r);
	return 0;
}
