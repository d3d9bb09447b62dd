#ifndef DOCVER_CLIBGIT2_SHIM_H
#define DOCVER_CLIBGIT2_SHIM_H

#include <git2.h>
#include <git2/sys/merge.h>

/* git_libgit2_opts is variadic, which Swift cannot call. */
static inline int docver_disable_strict_hash_verification(void) {
    return git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
}

/* Swift cannot read the size macros as typed constants. */
static inline int docver_oid_raw_size(void) { return GIT_OID_RAWSZ; }

#endif
