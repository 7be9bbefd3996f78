/* Tapes on disk: raw bytes, at most QP_TAPE_MAX_BYTES of them used. */
#include <stdio.h>

#include "quietpoll/prop.h"

bool qp_tape_buf_read(qp_tape_buf *buf, const char *path)
{
    FILE *in = fopen(path, "rb");
    if (in == NULL)
        return false;
    buf->size = fread(buf->data, 1, sizeof buf->data, in);
    bool ok = !ferror(in);
    fclose(in);
    return ok;
}

bool qp_tape_buf_write(const qp_tape_buf *buf, const char *path)
{
    FILE *out = fopen(path, "wb");
    if (out == NULL)
        return false;
    bool ok = fwrite(buf->data, 1, buf->size, out) == buf->size;
    return fclose(out) == 0 && ok;
}

void qp_tape_buf_print_hex(FILE *out, const qp_tape_buf *buf, const char *indent)
{
    if (buf->size == 0)
        fprintf(out, "%s(empty)\n", indent);
    for (size_t i = 0; i < buf->size; i++)
        fprintf(out, "%s%02x%s", i % 32 == 0 ? indent : "", buf->data[i],
                i % 32 == 31 || i + 1 == buf->size ? "\n" : " ");
}
