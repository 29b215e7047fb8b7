// A file that asks which system it is built for: the check must name it.
#include <unistd.h>
#ifdef _WIN32
int on_windows = 1;
#endif
