#ifndef DOCVER_CLIBGIT2_SHIM_H
#define DOCVER_CLIBGIT2_SHIM_H

#include <git2.h>
#include <git2/sys/merge.h>
#include <git2/sys/odb_backend.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* git_libgit2_opts is variadic, which Swift cannot call. */
static inline int docver_disable_strict_hash_verification(void) {
    return git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
}

/* libgit2 caches only objects up to 4 KB (commits, trees) by default. An integration commit
   that records thousands of conflict versions is hundreds of KB, and a folder of 1,000
   documents is a 40 KB tree: both were inflated again at every lookup (once per document
   when a join describes its changes). Larger limits keep them in the cache, which stays
   bounded by its total size (256 MB by default). Blobs are still never cached. */
static inline int docver_cache_large_commits_and_trees(void) {
    int result = git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_COMMIT, (size_t)16 * 1024 * 1024);
    if (result < 0) return result;
    return git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, (size_t)4 * 1024 * 1024);
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

/* An object database backend that reads nothing: placed before the loose-object backend, it
   lets `check` refuse an object (return a negative code, with git_error_set_str) before
   libgit2 reads it, so also the reads libgit2 makes on its own (history walks, merge bases,
   checkouts, diffs) end in an error instead of inflating a truncated loose object forever.
   For every other object it answers GIT_PASSTHROUGH and the next backend reads it. A C
   struct with function pointers that libgit2 frees: simpler to build here than in Swift. */
typedef int (*docver_object_check)(void *payload, const git_oid *id);

struct docver_checking_backend {
    git_odb_backend parent;
    docver_object_check check;
    void *payload;
};

static inline int docver_checking_read(void **data, size_t *length, git_object_t *type,
                                       git_odb_backend *backend, const git_oid *id) {
    (void)data; (void)length; (void)type;
    struct docver_checking_backend *self = (struct docver_checking_backend *)backend;
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
static inline int docver_add_checking_backend(git_odb *odb, docver_object_check check, void *payload) {
    struct docver_checking_backend *backend = calloc(1, sizeof *backend);
    if (!backend) return -1;
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

/* Swift cannot read the size macros as typed constants. */
static inline int docver_oid_raw_size(void) { return GIT_OID_RAWSZ; }

#endif
