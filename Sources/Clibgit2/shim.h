#ifndef DOCVER_CLIBGIT2_SHIM_H
#define DOCVER_CLIBGIT2_SHIM_H

#include <git2.h>
#include <git2/sys/merge.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/mempack.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
/* SHA-1 for the packs docver writes itself (Git/PackWriter.swift): mbed TLS comes with
   libgit2-dev on Debian (libmbedtls-dev is one of its dependencies). */
#include <mbedtls/sha1.h>

/* git_libgit2_opts is variadic, which Swift cannot call. */
static inline int docver_disable_strict_hash_verification(void) {
    return git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
}

/* libgit2 caches only objects up to 4 KB (commits, trees) by default. An integration commit
   that records thousands of conflict versions is hundreds of KB, and a folder of 1,000
   documents is a 40 KB tree: both were inflated again at every lookup (once per document
   when a join describes its changes). Larger limits keep them in the cache, which stays
   bounded by its total size (256 MB by default). Blobs are still never cached.
   Trees up to 64 MB: a folder of 200,000 documents is a 7 MB tree, and above the limit
   every lookup of one of its documents from the root (git_tree_entry_bypath) inflated all
   of it again, which made receiving such a folder quadratic (issue 26). 64 MB is a folder
   of about 1.7 million documents. */
static inline int docver_cache_large_commits_and_trees(void) {
    int result = git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_COMMIT, (size_t)16 * 1024 * 1024);
    if (result < 0) return result;
    return git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, (size_t)64 * 1024 * 1024);
}

/* libgit2 1.5 inflates a truncated loose object forever (100% CPU, no error). This reads the
   file at `path` through zlib to the end of its stream, writing nothing: 1 when the stream is
   complete or there is no such file (a packed or missing object, left to libgit2), 0 when it
   is truncated or corrupt. zlib's macros (inflateInit) are not callable from Swift. */
static inline int docver_loose_object_is_complete(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) return 1;
    /* The buffers (80 KB) live on the heap: this runs at the bottom of deep tree walks, on
       threads whose stack may be 512 KB in all. */
    enum { input_size = 16384, output_size = 65536 };
    unsigned char *input = malloc(input_size + output_size);
    if (!input) { fclose(file); return 1; }
    unsigned char *output = input + input_size;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit(&stream) != Z_OK) { free(input); fclose(file); return 0; }
    int result = Z_OK, complete = 0;
    do {
        stream.avail_in = (uInt)fread(input, 1, input_size, file);
        if (ferror(file) || stream.avail_in == 0) break;
        stream.next_in = input;
        do {
            stream.avail_out = output_size;
            stream.next_out = output;
            result = inflate(&stream, Z_NO_FLUSH);
            if (result == Z_NEED_DICT || result == Z_DATA_ERROR || result == Z_MEM_ERROR || result == Z_STREAM_ERROR) goto done;
        } while (stream.avail_out == 0 && result != Z_STREAM_END);
    } while (result != Z_STREAM_END);
    complete = result == Z_STREAM_END;
done:
    inflateEnd(&stream);
    free(input);
    fclose(file);
    return complete;
}

/* Reads the loose object at `path` whole, inflating it once: 1 with the object in `data`
   (allocated for `backend`, NUL-terminated as libgit2's own loose reader leaves it), `length`
   and `type`; -1 when there is no such file (a packed or missing object, left to libgit2); 0
   for anything else (a truncated or damaged stream, a header that disagrees with the
   contents): the caller then decides with docver_loose_object_is_complete. */
static inline int docver_read_loose_object(git_odb_backend *backend, const char *path,
                                           void **data, size_t *length, git_object_t *type) {
    FILE *file = fopen(path, "rb");
    if (!file) return -1;
    if (fseek(file, 0, SEEK_END) != 0) { fclose(file); return 0; }
    long file_size = ftell(file);
    /* A large file is left to the streaming check and libgit2, as before: read whole here, it
       would be in memory twice (compressed and inflated). */
    if (file_size <= 0 || file_size > (8 << 20) || fseek(file, 0, SEEK_SET) != 0) { fclose(file); return 0; }
    unsigned char *input = malloc((size_t)file_size);
    if (!input) { fclose(file); return 0; }
    size_t read_size = fread(input, 1, (size_t)file_size, file);
    fclose(file);
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit(&stream) != Z_OK) { free(input); return 0; }
    stream.next_in = input;
    stream.avail_in = (uInt)read_size;
    /* The header, "<type> <size>\0", and the start of the contents. */
    unsigned char header[64];
    stream.next_out = header;
    stream.avail_out = sizeof header;
    int result = inflate(&stream, Z_NO_FLUSH);
    int outcome = 0;
    unsigned char *contents = NULL;
    if (result != Z_OK && result != Z_STREAM_END) goto done;
    size_t produced = sizeof header - stream.avail_out;
    if (result != Z_STREAM_END && stream.avail_out > 0) goto done; /* the input ended first */
    unsigned char *nul = memchr(header, 0, produced);
    unsigned char *space = nul ? memchr(header, ' ', (size_t)(nul - header)) : NULL;
    if (!space) goto done;
    *space = 0;
    git_object_t kind = git_object_string2type((const char *)header);
    if (kind != GIT_OBJECT_COMMIT && kind != GIT_OBJECT_TREE && kind != GIT_OBJECT_BLOB && kind != GIT_OBJECT_TAG) goto done;
    size_t size = 0;
    for (unsigned char *digit = space + 1; digit < nul; digit++) {
        if (*digit < '0' || *digit > '9' || size > (SIZE_MAX - 9) / 10) goto done;
        size = size * 10 + (size_t)(*digit - '0');
    }
    if (nul == space + 1 || size >= UINT32_MAX) goto done;
    size_t already = produced - (size_t)(nul + 1 - header);
    if (already > size) goto done;
    contents = git_odb_backend_data_alloc(backend, size + 1);
    if (!contents) goto done;
    memcpy(contents, nul + 1, already);
    if (result != Z_STREAM_END) {
        /* One byte of room more than the contents: a stream longer than its header says fills it. */
        stream.next_out = contents + already;
        stream.avail_out = (uInt)(size - already + 1);
        if (inflate(&stream, Z_FINISH) != Z_STREAM_END) goto done;
        already = size + 1 - stream.avail_out;
    }
    if (already != size) goto done;
    contents[size] = 0;
    *data = contents;
    *length = size;
    *type = kind;
    contents = NULL;
    outcome = 1;
done:
    if (contents) git_odb_backend_data_free(backend, contents);
    inflateEnd(&stream);
    free(input);
    return outcome;
}

/* An object database backend placed before the loose-object backend: it reads each loose
   object itself, inflating it once, and hands it to libgit2 (which used to inflate it again
   after this check); a truncated or corrupt one is refused through `check` (a negative code,
   with git_error_set_str), so also the reads libgit2 makes on its own (history walks, merge
   bases, checkouts, diffs) end in an error instead of inflating a truncated loose object
   forever. For every other object it answers GIT_PASSTHROUGH and the next backend reads it.
   A C struct with function pointers that libgit2 frees: simpler to build here than in Swift. */
typedef int (*docver_object_check)(void *payload, const git_oid *id);

struct docver_checking_backend {
    git_odb_backend parent;
    docver_object_check check;
    void *payload;
    char objects[4096]; /* the objects folder, with a trailing slash */
};

static inline int docver_checking_read(void **data, size_t *length, git_object_t *type,
                                       git_odb_backend *backend, const git_oid *id) {
    struct docver_checking_backend *self = (struct docver_checking_backend *)backend;
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, id);
    char path[4096 + GIT_OID_HEXSZ + 2];
    snprintf(path, sizeof path, "%s%.2s/%s", self->objects, hex, hex + 2);
    int read = docver_read_loose_object(backend, path, data, length, type);
    if (read == 1) return 0;
    if (read < 0) return GIT_PASSTHROUGH;
    /* Not read here: `check` refuses a truncated or damaged file with its message; anything
       else is left to libgit2's own reader. */
    int result = self->check(self->payload, id);
    return result < 0 ? result : GIT_PASSTHROUGH;
}

/* git_odb_foreach calls every backend's foreach without checking for NULL. */
static inline int docver_checking_foreach(git_odb_backend *backend, git_odb_foreach_cb callback, void *payload) {
    (void)backend; (void)callback; (void)payload;
    return 0;
}

static inline void docver_checking_free(git_odb_backend *backend) { free(backend); }

/* Adds the checking backend to `odb` with a priority above the loose backend's (1), so it
   runs before any loose read. It ties with the pack backend (2): either order is right. */
static inline int docver_add_checking_backend(git_odb *odb, const char *objects, docver_object_check check, void *payload) {
    if (strlen(objects) >= sizeof ((struct docver_checking_backend *)0)->objects) return -1;
    struct docver_checking_backend *backend = calloc(1, sizeof *backend);
    if (!backend) return -1;
    strcpy(backend->objects, objects);
    git_odb_init_backend(&backend->parent, GIT_ODB_BACKEND_VERSION);
    backend->parent.read = docver_checking_read;
    backend->parent.foreach = docver_checking_foreach;
    backend->parent.free = docver_checking_free;
    backend->check = check;
    backend->payload = payload;
    int result = git_odb_add_backend(odb, &backend->parent, 2);
    if (result < 0) free(backend);
    return result;
}

/* A last object database backend, for a container that joined on demand (a partial clone:
   docs/ARCHITECTURE.md, "Documents on demand"): when no other backend has an object, `fetch`
   brings it from the promisor remote into a new pack and answers 0. The backend then still
   answers GIT_ENOTFOUND: libgit2 refreshes its pack list after a miss and reads again from
   the backends that can refresh, which finds the new pack (this one cannot refresh, so it is
   not asked twice). A failed fetch answers its negative code, with git_error_set_str. libgit2
   calls backends with its object database's lock held, which is also why this backend does
   not refresh the database itself. */
typedef int (*docver_object_fetch)(void *payload, const git_oid *id);

struct docver_promisor_backend {
    git_odb_backend parent;
    docver_object_fetch fetch;
    void *payload;
};

static inline int docver_promisor_read(void **data, size_t *length, git_object_t *type,
                                       git_odb_backend *backend, const git_oid *id) {
    (void)data; (void)length; (void)type;
    struct docver_promisor_backend *self = (struct docver_promisor_backend *)backend;
    int result = self->fetch(self->payload, id);
    return result < 0 ? result : GIT_ENOTFOUND;
}

static inline void docver_promisor_free(git_odb_backend *backend) { free(backend); }

/* Adds the fetching backend to `odb` below every other (priority -1000: alternates are 1 and
   below, the loose and pack backends 1 and 2). */
static inline int docver_add_promisor_backend(git_odb *odb, docver_object_fetch fetch, void *payload) {
    struct docver_promisor_backend *backend = calloc(1, sizeof *backend);
    if (!backend) return -1;
    git_odb_init_backend(&backend->parent, GIT_ODB_BACKEND_VERSION);
    backend->parent.read = docver_promisor_read;
    backend->parent.foreach = docver_checking_foreach;
    backend->parent.free = docver_promisor_free;
    backend->fetch = fetch;
    backend->payload = payload;
    int result = git_odb_add_backend(odb, &backend->parent, -1000);
    if (result < 0) free(backend);
    return result;
}

/* Swift cannot read the size macros as typed constants. */
static inline int docver_oid_raw_size(void) { return GIT_OID_RAWSZ; }

#endif
