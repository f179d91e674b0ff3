/* `make man`: master/master.1 on stdin, the page with its synopsis and
 * OPTIONS made anew from the option table on stdout. */
#include "master/options.h"

int main(void)
{
	return options_man(stdin, stdout) < 0 ? 1 : 0;
}
