#include "agent/manager/membership/network_exchange.hpp"

namespace fed::federation {

Result<ExchangeResult> exchange_networks(const ExchangeSide& a, const ExchangeSide& b) {
  ExchangeResult r;
  FED_ASSIGN_OR_RETURN(r.a_view_of_b, a.ipam.get_or_remap_networks(b.cluster_id, b.local.pod_cidr,
                                                                   b.local.external_cidr));
  FED_ASSIGN_OR_RETURN(r.b_view_of_a, b.ipam.get_or_remap_networks(a.cluster_id, a.local.pod_cidr,
                                                                   a.local.external_cidr));
  FED_TRY(a.ipam.set_local_remaps(b.cluster_id,
                                  {r.b_view_of_a.pod_remap(), r.b_view_of_a.external_remap()}));
  FED_TRY(b.ipam.set_local_remaps(a.cluster_id,
                                  {r.a_view_of_b.pod_remap(), r.a_view_of_b.external_remap()}));
  return r;
}

}  // namespace fed::federation
