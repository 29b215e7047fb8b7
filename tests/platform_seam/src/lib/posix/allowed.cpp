// One system's side of a seam: allowed.
#include <unistd.h>
#if defined(__linux__)
int on_linux = 1;
#endif
