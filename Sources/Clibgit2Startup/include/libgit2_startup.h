#ifndef DOCVER_LIBGIT2_STARTUP_H
#define DOCVER_LIBGIT2_STARTUP_H

/* libgit2's start-up without its most expensive step for local work.

   Debian's libgit2 1.5.1 is built with mbedTLS, and git_libgit2_init parses the whole system
   CA bundle (/etc/ssl/certs/ca-certificates.crt, about 140 certificates) into the TLS
   configuration it keeps for HTTPS: about 3 ms of CPU in every process, half of what a
   one-document `docver versions` costs. Only a transfer over HTTPS reads that configuration.

   libgit2 1.5 has no option to skip or defer the parse, so docver defers it itself: this
   target defines mbedtls_x509_crt_parse_file, which the program exports, so libgit2's call
   binds to it before mbedTLS's own (ordinary ELF symbol interposition). While
   docver_libgit2_init_deferring_certificates runs git_libgit2_init, the one call it makes is
   recorded (the certificate chain it fills and the bundle's path) and reported a success
   with the chain still empty. docver_load_deferred_certificates, which every fetch and push
   calls first, makes the real parse into that same chain, once. Every other call goes to
   mbedTLS unchanged.

   Safe by construction: if the interposition does not bind (libgit2 built with OpenSSL, or
   mbedTLS linked statically), the parse happens at start-up as before; if a transfer forgot
   to load the chain, HTTPS would find no CA and refuse the server (fail closed), never accept
   it. The start-up test (StartupTests) watches which files commands open. */

/* git_libgit2_init, with the CA bundle's parse deferred; returns what git_libgit2_init returns. */
int docver_libgit2_init_deferring_certificates(void);

/* Parses the CA bundle into libgit2's TLS configuration if start-up deferred it and it has
   not been parsed yet (thread-safe; later calls return at once). Returns 0, or mbedTLS's
   negative error code when the bundle could not be read (HTTPS then trusts only pinned
   certificates, as libgit2 does when its own parse fails). */
int docver_load_deferred_certificates(void);

/* 1 while a deferred parse is still pending, else 0 (for tests and diagnostics). */
int docver_certificates_deferred(void);

#endif
