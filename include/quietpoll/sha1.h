/* SHA-1, only to name inputs the way libFuzzer names its artifacts
 * (crash-<sha1 of the input>). Not for security. */
#ifndef QUIETPOLL_SHA1_H
#define QUIETPOLL_SHA1_H

#include <stddef.h>
#include <stdint.h>

/* Writes 40 lowercase hex digits and a NUL into hex. */
void qp_sha1_hex(const uint8_t *data, size_t size, char hex[41]);

#endif
