/* See iptc_shim.h. Builds and parses ipt_entry blobs: ip header match, an optional comment
 * match, and a standard, DNAT (revision 2), SNAT or NETMAP (revision 0) target. */
#include "agent/node/os/linux/iptc_shim.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libiptc/libiptc.h>
#include <linux/netfilter/nf_nat.h>
#include <linux/netfilter/xt_comment.h>
#include <stdlib.h>
#include <string.h>

struct fed_iptc {
  struct xtc_handle* h;
};

fed_iptc* fed_iptc_open(const char* table) {
  struct xtc_handle* h = iptc_init(table);
  if (h == NULL) return NULL;
  fed_iptc* f = malloc(sizeof *f);
  if (f == NULL) {
    iptc_free(h);
    errno = ENOMEM;
    return NULL;
  }
  f->h = h;
  return f;
}

void fed_iptc_close(fed_iptc* f) {
  if (f == NULL) return;
  if (f->h != NULL) iptc_free(f->h);
  free(f);
}

const char* fed_iptc_strerror(int err) {
  return iptc_strerror(err);
}
const char* fed_iptc_first_chain(fed_iptc* f) {
  return iptc_first_chain(f->h);
}
const char* fed_iptc_next_chain(fed_iptc* f) {
  return iptc_next_chain(f->h);
}
int fed_iptc_is_builtin(fed_iptc* f, const char* chain) {
  return iptc_builtin(chain, f->h);
}
int fed_iptc_is_chain(fed_iptc* f, const char* chain) {
  return iptc_is_chain(chain, f->h);
}

/* Reads the address range of a NAT target: revision 0 (IPv4 compat, NETMAP and old rules),
 * 1 (nf_nat_range) or 2 (nf_nat_range2, what iptables writes for DNAT/SNAT today). */

/* Copies a NUL-terminated string of at most src_size bytes into dst, always terminating it and
 * truncating to dst_size - 1 characters (strncpy warns under -O2 and may not terminate). */
static void copy_cstr(char* dst, size_t dst_size, const char* src, size_t src_size) {
  size_t n = strnlen(src, src_size);
  if (n >= dst_size) n = dst_size - 1;
  memcpy(dst, src, n);
  dst[n] = '\0';
}

static void parse_nat_range(const struct xt_entry_target* t, struct fed_iptc_rule* r) {
  size_t have = t->u.target_size - sizeof *t;
  unsigned flags = 0;
  if (t->u.user.revision == 0) {
    const struct nf_nat_ipv4_multi_range_compat* mr = (const void*)t->data;
    if (have < sizeof *mr || mr->rangesize != 1) {
      r->unmodelled = 1;
      return;
    }
    flags = mr->range[0].flags;
    r->to_min = ntohl(mr->range[0].min_ip);
    r->to_max = ntohl(mr->range[0].max_ip);
  } else if (t->u.user.revision == 1 || t->u.user.revision == 2) {
    const struct nf_nat_range* nr = (const void*)t->data;
    if (have < sizeof *nr) {
      r->unmodelled = 1;
      return;
    }
    flags = nr->flags;
    r->to_min = ntohl(nr->min_addr.ip);
    r->to_max = ntohl(nr->max_addr.ip);
  } else {
    r->unmodelled = 1;
    return;
  }
  if ((flags & ~(unsigned)NF_NAT_RANGE_MAP_IPS) != 0) r->unmodelled = 1;
}

static void parse_entry(const struct ipt_entry* e, struct xtc_handle* h, struct fed_iptc_rule* r) {
  memset(r, 0, sizeof *r);
  r->src = ntohl(e->ip.src.s_addr);
  r->src_mask = ntohl(e->ip.smsk.s_addr);
  r->dst = ntohl(e->ip.dst.s_addr);
  r->dst_mask = ntohl(e->ip.dmsk.s_addr);
  r->src_inverted = (e->ip.invflags & IPT_INV_SRCIP) != 0;
  r->dst_inverted = (e->ip.invflags & IPT_INV_DSTIP) != 0;
  if (e->ip.proto != 0 || e->ip.iniface[0] != '\0' || e->ip.outiface[0] != '\0' ||
      e->ip.flags != 0 || (e->ip.invflags & ~(IPT_INV_SRCIP | IPT_INV_DSTIP)) != 0) {
    r->unmodelled = 1;
  }
  for (unsigned off = sizeof *e; off < e->target_offset;) {
    const struct xt_entry_match* m = (const void*)((const char*)e + off);
    if (strcmp(m->u.user.name, "comment") == 0 && m->u.user.revision == 0) {
      const struct xt_comment_info* c = (const void*)m->data;
      copy_cstr(r->comment, sizeof r->comment, c->comment, sizeof c->comment);
    } else {
      r->unmodelled = 1;
    }
    if (m->u.match_size == 0) break;
    off += m->u.match_size;
  }
  const char* name = iptc_get_target(e, h);
  strncpy(r->target, name != NULL ? name : "", sizeof r->target - 1);
  const struct xt_entry_target* t = ipt_get_target((struct ipt_entry*)e);
  if (strcmp(r->target, "DNAT") == 0 || strcmp(r->target, "SNAT") == 0 ||
      strcmp(r->target, "NETMAP") == 0) {
    r->action = r->target[0] == 'D'   ? FED_IPTC_DNAT
                : r->target[0] == 'S' ? FED_IPTC_SNAT
                                      : FED_IPTC_NETMAP;
    parse_nat_range(t, r);
  } else if (strcmp(r->target, IPTC_LABEL_RETURN) == 0) {
    r->action = FED_IPTC_RETURN;
  } else if (iptc_is_chain(r->target, h)) {
    r->action = FED_IPTC_JUMP;
  } else {
    r->action = FED_IPTC_OTHER;
  }
}

int fed_iptc_read_rules(fed_iptc* f, const char* chain,
                        void (*fn)(void* ctx, const struct fed_iptc_rule* rule), void* ctx) {
  if (!iptc_is_chain(chain, f->h)) {
    errno = ENOENT;
    return 0;
  }
  struct fed_iptc_rule r;
  for (const struct ipt_entry* e = iptc_first_rule(chain, f->h); e != NULL;
       e = iptc_next_rule(e, f->h)) {
    parse_entry(e, f->h, &r);
    fn(ctx, &r);
  }
  return 1;
}

int fed_iptc_create_chain(fed_iptc* f, const char* chain) {
  return iptc_create_chain(chain, f->h);
}
int fed_iptc_flush_chain(fed_iptc* f, const char* chain) {
  return iptc_flush_entries(chain, f->h);
}
int fed_iptc_delete_chain(fed_iptc* f, const char* chain) {
  return iptc_delete_chain(chain, f->h);
}

/* Builds the entry for `r` in a fresh allocation the caller frees; NULL on bad input. */
static struct ipt_entry* build_entry(const struct fed_iptc_rule* r) {
  size_t match_size = r->comment[0] != '\0'
                          ? XT_ALIGN(sizeof(struct xt_entry_match) + sizeof(struct xt_comment_info))
                          : 0;
  /* The revisions iptables-legacy 1.8.9 itself writes, so that `iptables-legacy-save` prints
   * the rules (it shows "[unsupported revision]" for any other): DNAT 2, SNAT 0, NETMAP 0. */
  size_t target_size = XT_ALIGN(sizeof(struct xt_standard_target));
  if (r->action == FED_IPTC_DNAT) {
    target_size = XT_ALIGN(sizeof(struct xt_entry_target) + sizeof(struct nf_nat_range2));
  } else if (r->action == FED_IPTC_SNAT || r->action == FED_IPTC_NETMAP) {
    target_size = XT_ALIGN(sizeof(struct xt_entry_target) +
                           sizeof(struct nf_nat_ipv4_multi_range_compat));
  }
  size_t size = XT_ALIGN(sizeof(struct ipt_entry)) + match_size + target_size;
  struct ipt_entry* e = calloc(1, size);
  if (e == NULL) {
    errno = ENOMEM;
    return NULL;
  }
  e->ip.src.s_addr = htonl(r->src & r->src_mask);
  e->ip.smsk.s_addr = htonl(r->src_mask);
  e->ip.dst.s_addr = htonl(r->dst & r->dst_mask);
  e->ip.dmsk.s_addr = htonl(r->dst_mask);
  if (r->src_inverted) e->ip.invflags |= IPT_INV_SRCIP;
  if (r->dst_inverted) e->ip.invflags |= IPT_INV_DSTIP;
  e->target_offset = (uint16_t)(XT_ALIGN(sizeof(struct ipt_entry)) + match_size);
  e->next_offset = (uint16_t)size;
  if (match_size != 0) {
    struct xt_entry_match* m = (void*)e->elems;
    m->u.user.match_size = (uint16_t)match_size;
    strcpy(m->u.user.name, "comment");
    struct xt_comment_info* c = (void*)m->data;
    copy_cstr(c->comment, XT_MAX_COMMENT_LEN, r->comment, sizeof r->comment);
  }
  struct xt_entry_target* t = (void*)((char*)e + e->target_offset);
  t->u.user.target_size = (uint16_t)target_size;
  switch (r->action) {
    case FED_IPTC_JUMP:
      copy_cstr(t->u.user.name, sizeof t->u.user.name, r->target, sizeof r->target);
      break;
    case FED_IPTC_RETURN:
      strcpy(t->u.user.name, IPTC_LABEL_RETURN);
      break;
    case FED_IPTC_DNAT: {
      strcpy(t->u.user.name, "DNAT");
      t->u.user.revision = 2;
      struct nf_nat_range2* nr = (void*)t->data;
      nr->flags = NF_NAT_RANGE_MAP_IPS;
      nr->min_addr.ip = htonl(r->to_min);
      nr->max_addr.ip = htonl(r->to_max);
      break;
    }
    case FED_IPTC_SNAT:
    case FED_IPTC_NETMAP: {
      strcpy(t->u.user.name, r->action == FED_IPTC_SNAT ? "SNAT" : "NETMAP");
      struct nf_nat_ipv4_multi_range_compat* mr = (void*)t->data;
      mr->rangesize = 1;
      mr->range[0].flags = NF_NAT_RANGE_MAP_IPS;
      mr->range[0].min_ip = htonl(r->to_min);
      mr->range[0].max_ip = htonl(r->to_max);
      break;
    }
    default:
      free(e);
      errno = EINVAL;
      return NULL;
  }
  return e;
}

int fed_iptc_append(fed_iptc* f, const char* chain, const struct fed_iptc_rule* r) {
  struct ipt_entry* e = build_entry(r);
  if (e == NULL) return 0;
  int ok = iptc_append_entry(chain, e, f->h);
  free(e);
  return ok;
}

int fed_iptc_insert(fed_iptc* f, const char* chain, const struct fed_iptc_rule* r,
                    unsigned position) {
  struct ipt_entry* e = build_entry(r);
  if (e == NULL) return 0;
  int ok = iptc_insert_entry(chain, e, position, f->h);
  free(e);
  return ok;
}

int fed_iptc_delete_at(fed_iptc* f, const char* chain, unsigned position) {
  return iptc_delete_num_entry(chain, position, f->h);
}

int fed_iptc_commit(fed_iptc* f) {
  return iptc_commit(f->h);
}
