#ifndef DOCVER_CLIBGIT2_SHIM_H
#define DOCVER_CLIBGIT2_SHIM_H

#include <git2.h>
#include <git2/sys/merge.h>

/* Swift cannot read the size macros as typed constants. */
static inline int docver_oid_raw_size(void) { return GIT_OID_RAWSZ; }

#endif
