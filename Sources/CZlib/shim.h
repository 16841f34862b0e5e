// zlib, the system's (Linux: zlib1g-dev; Apple platforms: the SDK's), for gzip request bodies.
#include <zlib.h>
