#define _GNU_SOURCE
#include "libgit2_startup.h"

#include <dlfcn.h>
#include <git2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* mbedTLS's prototype, with the chain opaque: docver never looks inside it. */
typedef int (*parse_file_function)(void *chain, const char *path);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int deferring = 0;      /* set only while git_libgit2_init runs, under `lock` */
static void *deferred_chain = NULL;
static char *deferred_path = NULL;

static parse_file_function real_parse_file(void) {
    /* The next definition after this program's: mbedTLS's own. */
    return (parse_file_function)dlsym(RTLD_NEXT, "mbedtls_x509_crt_parse_file");
}

/* Exported by the program (Swift links executables with --export-dynamic), so libgit2's
   reference binds here first. */
__attribute__((visibility("default")))
int mbedtls_x509_crt_parse_file(void *chain, const char *path) {
    /* `deferring` is only ever set by the thread that holds `lock` and runs git_libgit2_init,
       which is the thread that makes this call; other threads read 0. */
    if (__atomic_load_n(&deferring, __ATOMIC_ACQUIRE) && deferred_chain == NULL && chain != NULL && path != NULL) {
        char *copy = strdup(path);
        if (copy != NULL) {
            deferred_chain = chain;
            deferred_path = copy;
            return 0;
        }
    }
    parse_file_function real = real_parse_file();
    /* MBEDTLS_ERR_X509_FEATURE_UNAVAILABLE: no mbedTLS behind us (cannot happen when libgit2
       calls this, since libgit2 then links mbedTLS). */
    return real ? real(chain, path) : -0x2080;
}

int docver_libgit2_init_deferring_certificates(void) {
    pthread_mutex_lock(&lock);
    __atomic_store_n(&deferring, 1, __ATOMIC_RELEASE);
    int result = git_libgit2_init();
    __atomic_store_n(&deferring, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
    return result;
}

int docver_load_deferred_certificates(void) {
    pthread_mutex_lock(&lock);
    int result = 0;
    if (deferred_chain != NULL) {
        parse_file_function real = real_parse_file();
        result = real ? real(deferred_chain, deferred_path) : -0x2080;
        /* Once, success or not: libgit2 too parses the bundle once. */
        deferred_chain = NULL;
        free(deferred_path);
        deferred_path = NULL;
    }
    pthread_mutex_unlock(&lock);
    return result < 0 ? result : 0;
}

int docver_certificates_deferred(void) {
    pthread_mutex_lock(&lock);
    int result = deferred_chain != NULL;
    pthread_mutex_unlock(&lock);
    return result;
}
