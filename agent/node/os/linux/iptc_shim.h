/* A C shim over libiptc (like osquery's iptc_proxy.c): the kernel's x_tables headers do not
 * compile as C++, so only this file sees them. The handle is opaque; rules cross the boundary
 * as flat structs holding what the agent models. Functions return 1 on success and 0 with
 * errno set on failure (libiptc's convention); fed_iptc_strerror() explains errno. */
#ifndef FED_IPTC_SHIM_H
#define FED_IPTC_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fed_iptc fed_iptc;

enum fed_iptc_action {
  FED_IPTC_OTHER = 0,
  FED_IPTC_JUMP = 1,
  FED_IPTC_DNAT = 2,
  FED_IPTC_SNAT = 3,
  FED_IPTC_NETMAP = 4,
  FED_IPTC_RETURN = 5,
};

#define FED_IPTC_NAME_LEN 32
#define FED_IPTC_COMMENT_LEN 256

/* One rule. Addresses and masks in host byte order; a zero mask means "any". */
struct fed_iptc_rule {
  uint32_t src, src_mask, dst, dst_mask;
  int src_inverted, dst_inverted;
  int action;                         /* enum fed_iptc_action */
  char target[FED_IPTC_NAME_LEN];     /* target or jump name as libiptc reports it */
  uint32_t to_min, to_max;            /* NAT range (DNAT/SNAT/NETMAP) */
  char comment[FED_IPTC_COMMENT_LEN]; /* empty: no comment match */
  int unmodelled;                     /* other matches, protocol, interfaces, other revisions */
};

/* Snapshot of `table` in the current network namespace; NULL with errno on failure. */
fed_iptc* fed_iptc_open(const char* table);
void fed_iptc_close(fed_iptc* h);
const char* fed_iptc_strerror(int err);

/* Chain iteration; NULL at the end. */
const char* fed_iptc_first_chain(fed_iptc* h);
const char* fed_iptc_next_chain(fed_iptc* h);
int fed_iptc_is_builtin(fed_iptc* h, const char* chain);
int fed_iptc_is_chain(fed_iptc* h, const char* chain);

/* Calls `fn` for each rule of `chain` in order; returns 0 if the chain does not exist. */
int fed_iptc_read_rules(fed_iptc* h, const char* chain,
                        void (*fn)(void* ctx, const struct fed_iptc_rule* rule), void* ctx);

int fed_iptc_create_chain(fed_iptc* h, const char* chain);
int fed_iptc_flush_chain(fed_iptc* h, const char* chain);
int fed_iptc_delete_chain(fed_iptc* h, const char* chain);
int fed_iptc_append(fed_iptc* h, const char* chain, const struct fed_iptc_rule* rule);
int fed_iptc_insert(fed_iptc* h, const char* chain, const struct fed_iptc_rule* rule,
                    unsigned position);
int fed_iptc_delete_at(fed_iptc* h, const char* chain, unsigned position);
/* Replaces the kernel's table with the handle's; the handle stays usable only for close. */
int fed_iptc_commit(fed_iptc* h);

#ifdef __cplusplus
}
#endif

#endif /* FED_IPTC_SHIM_H */
