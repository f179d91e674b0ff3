/* What the kernels that hash NWAY messages side by side, each in its own
 * registers, share (kernel_armv8.c, kernel_shani_block.h); the includer
 * defines NWAY. */
#ifndef REVHASH_KERNEL_NWAY_H
#define REVHASH_KERNEL_NWAY_H

/* For each of the NWAY messages j, unrolled into straight-line code. */
#define EACH(stmt)                                                           \
	do {                                                                 \
		_Pragma("GCC unroll 8") for (int j = 0; j < NWAY; j++) {     \
			stmt;                                                \
		}                                                            \
	} while (0)

#endif
