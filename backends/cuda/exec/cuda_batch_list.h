/*
 * The batches the module keeps for ensembles between calls (the members' device table,
 * sums, counters), found by the ensemble's member array, which is their key: a list under
 * a mutex. A call takes its batch out of the list and puts it back when done, so that two
 * threads never use one batch at once; the destruction of its first member (an ensemble
 * destroys its members in order) takes it out for good.
 * A batch's struct starts with its struct cuda_batch_link.
 */
#ifndef LATMC_CUDA_BATCH_LIST_H
#define LATMC_CUDA_BATCH_LIST_H

#include <pthread.h>
#include <stddef.h>

#include "internal.h" /* latmc_sim */

struct cuda_batch_link {
    struct cuda_batch_link *next;
    latmc_sim *const *key; /* the ensemble's member array */
    const latmc_sim *lead; /* its member 0 when the batch was made */
};

struct cuda_batch_list {
    pthread_mutex_t lock;
    struct cuda_batch_link *head;
};

#define CUDA_BATCH_LIST_INIT { PTHREAD_MUTEX_INITIALIZER, NULL }

/* Remove and return the first batch of `key` (key not NULL) or made with `lead` as member
 * 0 (NULL when there is none). */
static inline struct cuda_batch_link *cuda_batch_list_take_first(struct cuda_batch_list *l,
                                                                 latmc_sim *const *key,
                                                                 const latmc_sim *lead)
{
    pthread_mutex_lock(&l->lock);
    struct cuda_batch_link **p = &l->head, *b = NULL;
    while (*p && (key ? (*p)->key != key : (*p)->lead != lead))
        p = &(*p)->next;
    if (*p) {
        b = *p;
        *p = b->next;
        b->next = NULL;
    }
    pthread_mutex_unlock(&l->lock);
    return b;
}

/* The batch of `key`, removed (NULL when there is none). */
static inline struct cuda_batch_link *cuda_batch_list_take(struct cuda_batch_list *l,
                                                           latmc_sim *const *key)
{
    return cuda_batch_list_take_first(l, key, NULL);
}

/* A batch made with `lead` as member 0, removed (NULL when there is none). */
static inline struct cuda_batch_link *cuda_batch_list_take_led(struct cuda_batch_list *l,
                                                               const latmc_sim *lead)
{
    return cuda_batch_list_take_first(l, NULL, lead);
}

static inline void cuda_batch_list_put(struct cuda_batch_list *l, struct cuda_batch_link *b)
{
    pthread_mutex_lock(&l->lock);
    b->next = l->head;
    l->head = b;
    pthread_mutex_unlock(&l->lock);
}

#endif
