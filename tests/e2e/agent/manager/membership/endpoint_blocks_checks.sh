# shellcheck shell=bash
# Endpoint mappings kept in blocks (issue 27, docs/DATAPATH.md "Endpoint mappings at scale"),
# sourced by membership_test.sh while c2 is peered with c1 and the manager runs with
# --ipam-block-length 28: 16 addresses a block, so a few hundred mappings stand for the tens of
# thousands one object could not hold.
# - 600 EndpointMappings: all Ready with distinct addresses, in 38 IpamBlocks and 38 NatMappings
#   of c2 of at most 16 entries each; IpamState ipam holds none;
# - 100 deleted: their addresses and entries go, the 6 blocks they emptied are removed;
# - an older release's format (every mapping in IpamState ipam, one NatMapping c2) is moved into
#   blocks by the manager at start, with every address kept;
# - one EndpointMapping with an older release's finalizer is deleted: the manager releases it and
#   takes the finalizer off;
# - the manager SIGKILLed in the middle of a backlog of 1000: afterwards every mapping is Ready
#   once, no address is given twice, and the NatMappings hold exactly the IPAM's entries;
# - 50 deleted while no manager runs: the next one releases what they held (its sweep).

# endpoint I: an address outside c1's PodCIDR, so it takes an ExternalCIDR address.
endpoint() { echo "10.200.$(($1 / 250)).$(($1 % 250 + 1))"; }
# manifests FROM TO: EndpointMappings em-FROM … em-(TO-1) for c2.
manifests() {
  local i
  for ((i = $1; i < $2; i++)); do
    printf 'apiVersion: fed.kubectl-fed.io/v1alpha1\nkind: EndpointMapping\nmetadata: {name: em-%d}\nspec: {clusterID: c2, endpoint: "%s"}\n---\n' "$i" "$(endpoint "$i")"
  done
}
# create_mappings FROM TO: those, in four request streams (kubectl, not the API server, is
# what limits one stream).
create_mappings() {
  local step=$((($2 - $1 + 3) / 4)) s pids=()
  for ((s = $1; s < $2; s += step)); do
    manifests "$s" $((s + step < $2 ? s + step : $2)) | k c1 create -f - >/dev/null &
    pids+=($!)
  done
  wait "${pids[@]}"
}
ready_count() {
  k c1 get endpointmappings -o json |
    jq '[.items[] | select(.status.conditions // [] | any(.type == "Ready" and .status == "True"))] | length'
}
# Every EndpointMapping's endpoint and address, sorted.
addresses() { k c1 get endpointmappings -o json | jq -c '[.items[] | [.spec.endpoint, .status.address]] | sort'; }
# The endpoints of every IpamBlock with their address, as c2 sees it through c1's view of it.
block_entries() { k c1 get ipamblocks -o json | jq -c '[.items[].spec.endpointMappings // {} | to_entries[] | [.key, .value.ip]] | sort'; }
# c2's NatMapping entries (newIP as c2 sees it, endpoint), over all its objects, sorted.
nat_entries() {
  k c1 get natmappings -l kubectl-fed.io/cluster-id=c2 -o json |
    jq -c '[.items[].spec.mappings // {} | to_entries[] | [.value, .key]] | sort'
}
# "<objects> <largest entry count> <entries>" of IpamBlocks / c2's NatMappings.
shape() {
  case $1 in
    blocks) k c1 get ipamblocks -o json | jq -r '[.items[] | .spec.endpointMappings // {} | length] | "\(length) \(max // 0) \(add // 0)"' ;;
    nat) k c1 get natmappings -l kubectl-fed.io/cluster-id=c2 -o json | jq -r '[.items[] | .spec.mappings // {} | length] | "\(length) \(max // 0) \(add // 0)"' ;;
  esac
}
all_ready() { [ "$(ready_count)" = "$1" ]; }
shape_is() { [ "$(shape "$1")" = "$2" ]; }
# Whether the IpamBlocks hold endpoint ENDPOINT.
held() { k c1 get ipamblocks -o json | jq -e --arg e "$1" '[.items[].spec.endpointMappings // {} | has($e)] | any' >/dev/null; }
not_held() { ! held "$1"; }
# c2's NatMapping entries as the IpamBlocks say they must be: each endpoint at its address moved
# into c2's view of c1's ExternalCIDR (both chose 10.0.0.0/16, so c2 sees c1's elsewhere).
expected_nat() {
  local ext view
  ext=$(k c1 get ipamstate ipam -o jsonpath='{.spec.externalCIDR}')
  view=$(k c1 get ipamstate ipam -o jsonpath='{.spec.clusterSubnets.c2.localRemappedExternalCIDR}')
  [ "$view" = None ] && view=$ext
  block_entries | python3 -c 'import ipaddress, json, sys
ext, view = ipaddress.ip_network(sys.argv[1]), ipaddress.ip_network(sys.argv[2])
moved = lambda ip: str(view.network_address + (int(ipaddress.ip_address(ip)) - int(ext.network_address)))
print(json.dumps(sorted([e, moved(ip)] for e, ip in json.load(sys.stdin)), separators=(",", ":")))' "$ext" "$view"
}
nat_matches_ipam() { [ "$(nat_entries)" = "$(expected_nat)" ]; }
# The names of the N EndpointMappings holding the lowest addresses.
lowest() {
  k c1 get endpointmappings -o json | jq -r --argjson n "$1" \
    '[.items[] | {name: .metadata.name, a: (.status.address | split(".") | map(tonumber))}] | sort_by(.a) | .[:$n][] | .name'
}

endpoint_blocks() {
  create_mappings 0 600
  eventually 120 "blocks: 600 EndpointMappings are Ready" all_ready 600
  expect_eq "blocks: 600 distinct addresses" \
    "$(k c1 get endpointmappings -o json | jq '[.items[].status.address] | unique | length')" 600
  expect_eq "blocks: 38 IpamBlocks of at most 16 entries hold the 600" "$(shape blocks)" "38 16 600"
  eventually 30 "blocks: c2's 38 NatMappings of at most 16 entries hold the 600" \
    bash -c "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get natmappings -l kubectl-fed.io/cluster-id=c2 -o json | jq -r '[.items[] | .spec.mappings // {} | length] | \"\(length) \(max) \(add)\"')\" = '38 16 600' ]"
  expect_eq "blocks: every NatMapping entry is an IpamBlock entry" "$(nat_matches_ipam && echo same)" same
  expect_eq "blocks: IpamState ipam holds the networks and the block length only" \
    "$(k c1 get ipamstate ipam -o json | jq -c '[.spec.endpointMappings, .spec.endpointBlockLength]')" "[null,28]"
  expect_eq "blocks: NatMappings are named <peer>.<block>, IpamBlocks <block>" \
    "$(k c1 get natmappings -l kubectl-fed.io/cluster-id=c2 -o json | jq -r '[.items[].metadata.name | select(test("^c2\\.[0-9]+-[0-9]+-[0-9]+-[0-9]+-28$") | not)] | length') $(k c1 get ipamblock -o json | jq -r '[.items[] | select(.metadata.name != (.spec.cidr | gsub("[./]"; "-")))] | length')" "0 0"

  # The lowest 100 addresses go: blocks 0 (15 usable) to 5 empty, block 6 keeps 11.
  local names
  mapfile -t names < <(lowest 100)
  k c1 delete endpointmappings "${names[@]}" --wait=false >/dev/null
  eventually 30 "unmap: 100 deleted, 6 emptied IpamBlocks removed" shape_is blocks "32 16 500"
  eventually 30 "unmap: c2's NatMappings of the emptied blocks removed" \
    bash -c "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get natmappings -l kubectl-fed.io/cluster-id=c2 -o json | jq -r '[.items[] | .spec.mappings // {} | length] | \"\(length) \(add)\"')\" = '32 500' ]"
  expect_eq "unmap: every NatMapping entry is an IpamBlock entry" "$(nat_matches_ipam && echo same)" same

  legacy_migration
  crash_in_backlog

  k c1 delete --raw /apis/fed.kubectl-fed.io/v1alpha1/endpointmappings >/dev/null  # one request
  eventually 120 "unmap all: the EndpointMappings are gone" \
    bash -c "[ -z \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get endpointmappings -o name)\" ]"
  eventually 60 "unmap all: no IpamBlock and no NatMapping of c2 left" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get ipamblocks,natmappings -o name | wc -l)\" = 0 ]"
}

# The state an older release leaves: IpamState ipam with every mapping and no block length,
# one NatMapping named c2. Made from the current state with the manager stopped.
legacy_migration() {
  local before_addresses before_nat spec
  before_addresses=$(addresses)
  before_nat=$(nat_entries)
  kill -9 "$manager_pid"; wait "$manager_pid" 2>/dev/null || true
  spec=$(jq -n --argjson s "$(k c1 get ipamstate ipam -o json | jq .spec)" \
    --argjson m "$(k c1 get ipamblocks -o json | jq '[.items[].spec.endpointMappings] | add')" \
    '$s | del(.endpointBlockLength) | .endpointMappings = $m')
  k c1 get ipamstate ipam -o json | jq --argjson s "$spec" '.spec = $s' | k c1 replace -f - >/dev/null
  k c1 delete ipamblocks --all >/dev/null
  k c1 get natmappings -l kubectl-fed.io/cluster-id=c2 -o json | jq '{
    apiVersion: "fed.kubectl-fed.io/v1alpha1", kind: "NatMapping",
    metadata: {name: "c2", labels: {"kubectl-fed.io/cluster-id": "c2"}},
    spec: {clusterID: "c2", externalCIDR: .items[0].spec.externalCIDR,
           mappings: ([.items[].spec.mappings] | add)}}' | k c1 create -f - >/dev/null
  k c1 delete natmappings -l kubectl-fed.io/cluster-id=c2 --field-selector metadata.name!=c2 >/dev/null
  # And its finalizer on each EndpointMapping (here on one).
  local finalized
  finalized=$(k c1 get endpointmappings -o jsonpath='{.items[0].metadata.name}')
  k c1 patch endpointmapping "$finalized" --type merge \
    -p '{"metadata":{"finalizers":["kubectl-fed.io/endpoint-mapping"]}}' >/dev/null
  expect_eq "legacy: IpamState ipam holds the 500 mappings, no IpamBlock, one NatMapping c2" \
    "$(k c1 get ipamstate ipam -o json | jq '.spec.endpointMappings | length') $(k c1 get ipamblocks -o name | wc -l) $(k c1 get natmappings -l kubectl-fed.io/cluster-id=c2 -o name)" \
    "500 0 natmapping.fed.kubectl-fed.io/c2"

  start_manager
  eventually 60 "legacy: the manager moved the mappings into blocks" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get ipamstate ipam -o json | jq -c '[.spec.endpointMappings, .spec.endpointBlockLength]')\" = '[null,28]' ]"
  expect_eq "legacy: the IpamBlocks hold the 500 at the addresses they had" "$(shape blocks)" "32 16 500"
  eventually 30 "legacy: NatMapping c2 replaced by its blocks' NatMappings" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get natmappings -l kubectl-fed.io/cluster-id=c2 -o json | jq -r '[.items[] | .spec.mappings // {} | length] | \"\(length) \(add)\"')\" = '32 500' ] && ! kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get natmapping c2 >/dev/null 2>&1"
  expect_eq "legacy: every endpoint kept its NAT entry" "$(nat_entries)" "$before_nat"
  expect_eq "legacy: every EndpointMapping kept its address" "$(addresses)" "$before_addresses"
  local endpoint
  endpoint=$(k c1 get endpointmapping "$finalized" -o jsonpath='{.spec.endpoint}')
  k c1 delete endpointmapping "$finalized" --wait=false >/dev/null
  eventually 30 "legacy: one with the older release's finalizer is deleted, its address released" \
    not_held "$endpoint"
}

# The manager killed while a backlog of 1000 is being mapped.
crash_in_backlog() {
  create_mappings 600 1600 &
  local creator=$!
  eventually 60 "crash: the backlog is being mapped" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get ipamblocks -o json | jq '[.items[].spec.endpointMappings // {} | length] | add')\" -ge 700 ]"
  kill -9 "$manager_pid"; wait "$manager_pid" 2>/dev/null || true
  local restarted_at
  restarted_at=$(wc -l <"$work/manager.log")
  start_manager
  wait "$creator"
  # 499 before (one deleted by legacy_migration) and the 1000.
  eventually 180 "crash: all 1499 EndpointMappings are Ready after the restart" all_ready 1499
  # On a failure, each address given twice: the mappings whose status says it, each with the
  # address the IpamBlocks hold for its endpoint (what the restarted manager believed).
  local mappings twice
  mappings=$(k c1 get endpointmappings -o json)
  twice=$(jq -r --argjson held "$(block_entries)" \
    '($held | map({(.[0]): .[1]}) | add // {}) as $at
     | [.items[] | {a: .status.address, m: "\(.metadata.name)=\(.spec.endpoint) (blocks: \($at[.spec.endpoint] // "none"))"}]
     | group_by(.a) | map(select(length > 1) | "\(.[0].a): \(map(.m) | join(" "))") | join("; ")' <<<"$mappings")
  expect_eq "crash: 1499 distinct addresses" \
    "$(jq '[.items[].status.address] | unique | length' <<<"$mappings")${twice:+ (twice: $twice)}" 1499
  # Nothing was deleted around the crash: the restarted manager's sweep (what EndpointMappings
  # deleted while no manager ran held) must release nothing, even while mappings keep arriving.
  expect_eq "crash: the restarted manager released nothing as deleted" \
    "$(tail -n +"$((restarted_at + 1))" "$work/manager.log" | grep -c 'deleted while no manager ran' || true)" 0
  expect_eq "crash: the IpamBlocks hold each endpoint once" "$(shape blocks | cut -d' ' -f3) $(block_entries | jq '[.[][1]] | unique | length')" "1499 1499"
  eventually 30 "crash: the NatMappings hold exactly the IPAM's entries" nat_matches_ipam

  # 50 deleted while no manager runs: the restarted one releases what they held.
  kill -9 "$manager_pid"; wait "$manager_pid" 2>/dev/null || true
  local gone
  mapfile -t gone < <(lowest 50)
  local endpoint_of_first
  endpoint_of_first=$(k c1 get endpointmapping "${gone[0]}" -o jsonpath='{.spec.endpoint}')
  k c1 delete endpointmappings "${gone[@]}" --wait=false >/dev/null
  start_manager
  eventually 60 "sweep: the 50 deleted while no manager ran are released" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get ipamblocks -o json | jq '[.items[].spec.endpointMappings // {} | length] | add')\" = 1449 ]"
  expect_eq "sweep: among them ${gone[0]}'s endpoint" "$(not_held "$endpoint_of_first" && echo released)" released
  eventually 30 "sweep: the NatMappings hold exactly the IPAM's entries" nat_matches_ipam
}
