# shellcheck shell=bash
# Endpoint mappings through crashes (issue 27, docs/DATAPATH.md "Endpoint mappings at scale"),
# sourced by datapath_test.sh (manager_ha_checks.sh's helpers) with c2 and c3 joined to c1,
# which was initialised with --pod-cidr 10.241.0.0/16 (its cluster CIDR), so its ExternalCIDR
# is a /16. A backlog of 10 000 EndpointMappings for c2 is posted while c1's managers are
# scaled to 0, so the managers start with all of it at once; while it is being mapped the
# leading manager's process is SIGKILLed, then the gateway agent's on c1/node1, and a tenth of
# the mappings is deleted. Afterwards every mapping is Ready once, no address is given twice,
# and c1's gateway holds exactly one DNAT entry per mapping (an element of its nftables map;
# no legacy iptables rule): none twice, none of a deleted one.
# Then all are deleted at once and every address, block and rule goes.

CRASH_MAPPINGS=${FED_E2E_CRASH_MAPPINGS:-10000}

# crash_post N: posts EndpointMappings crash-0 … crash-(N-1) for c2 (labelled crash=1 and
# crash-chunk=I/(N/10), ten chunks; endpoints in 10.210.0.0/16, no cluster's pods) straight to
# c1's API server: eight curls, each posting its share over one kept-alive connection (kubectl
# create posts about 60 a second here, all of it CPU; curl's own --parallel fails some
# transfers at start, exit code 2). Prints how many the API server created.
crash_post() {
  local n=$1 kc=$work/crash-kubeconfig.json server i streams=8 posters=()
  kubectl --kubeconfig "$("$TESTBED" kubeconfig c1)" config view --raw --minify -o json >"$kc"
  jq -r '.clusters[0].cluster["certificate-authority-data"]' "$kc" | base64 -d >"$work/crash-ca.crt"
  jq -r '.users[0].user["client-certificate-data"]' "$kc" | base64 -d >"$work/crash-client.crt"
  jq -r '.users[0].user["client-key-data"]' "$kc" | base64 -d >"$work/crash-client.key"
  server=$(jq -r '.clusters[0].cluster.server' "$kc")
  rm -f "$work"/crash-post-*.cfg
  for ((i = 0; i < n; i++)); do
    # (curl's config: "next" separates transfers; none before a file's first.)
    [ "$i" -lt "$streams" ] || echo next >>"$work/crash-post-$((i % streams)).cfg"
    printf 'url = "%s/apis/fed.kubectl-fed.io/v1alpha1/endpointmappings"\ncacert = "%s"\ncert = "%s"\nkey = "%s"\nheader = "Content-Type: application/json"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\ndata = "{\\"apiVersion\\": \\"fed.kubectl-fed.io/v1alpha1\\", \\"kind\\": \\"EndpointMapping\\", \\"metadata\\": {\\"name\\": \\"crash-%d\\", \\"labels\\": {\\"crash\\": \\"1\\", \\"crash-chunk\\": \\"%d\\"}}, \\"spec\\": {\\"clusterID\\": \\"c2\\", \\"endpoint\\": \\"10.210.%d.%d\\"}}"\n' \
      "$server" "$work/crash-ca.crt" "$work/crash-client.crt" "$work/crash-client.key" "$i" $((i / (n / 10))) $((i / 250)) $((i % 250 + 1)) \
      >>"$work/crash-post-$((i % streams)).cfg"
  done
  for i in "$work"/crash-post-*.cfg; do
    curl -sS -K "$i" >"$i.codes" 2>&1 &
    posters+=($!)
  done
  wait "${posters[@]}" || true
  cat "$work"/crash-post-*.cfg.codes | grep -c '^201$' || true
}
# "<address> <endpoint>" of every Ready crash mapping, sorted.
crash_ready() {
  k c1 get endpointmappings -l crash=1 -o json |
    jq -r '.items[] | select(.status.conditions // [] | any(.type == "Ready" and .status == "True")) | "\(.status.address) \(.spec.endpoint)"' | sort
}
# "<address> <endpoint>" of every DNAT to 10.210.0.0/16 in c1's gateway, sorted (duplicates kept):
# the elements of the agent's nftables maps, plus any legacy iptables DNAT rule (none may be left).
crash_rules() {
  {
    "$TESTBED" exec c1 node1 -- nft list table ip fed 2>/dev/null |
      tr ',{}' '\n\n\n' | awk '$2 == ":" && $3 ~ /^10\.210\./ { print $1, $3 }'
    "$TESTBED" exec c1 node1 -- iptables-legacy-save -t nat |
      awk '/-j DNAT --to-destination 10\.210\./ { for (i = 1; i <= NF; i++) { if ($i == "-d") d = $(i + 1); if ($i == "--to-destination") t = $(i + 1) }; sub("/32", "", d); print d, t }'
  } | sort
}
crash_live() {
  k c1 get natmappings -l kubectl-fed.io/cluster-id=c2 -o json |
    jq '[.items[] | select(.status.observedGeneration == .metadata.generation) | .status.applied] | add // 0'
}
live_at_least() { [ "$(crash_live)" -ge "$1" ]; }
ready_count_is() { [ "$(crash_ready | wc -l)" = "$1" ]; }
rules_match_mappings() { [ "$(crash_rules)" = "$(crash_ready)" ]; }
# How many endpoints c1's IpamBlocks hold: a cheap gauge (a few dozen objects) to wait on before
# the checks that list every mapping, which would otherwise take CPU from the manager each second.
ipam_entries() { k c1 get ipamblocks -o json | jq '[.items[].spec.endpointMappings // {} | length] | add // 0'; }
ipam_entries_at_least() { [ "$(ipam_entries)" -ge "$1" ]; }
ipam_entries_are() { [ "$(ipam_entries)" = "$1" ]; }
crash_mappings_count_is() { [ "$(k c1 get endpointmappings -l crash=1 -o name | wc -l)" = "$1" ]; }
all_unmapped() { crash_mappings_count_is 0 && [ -z "$(crash_rules)" ]; }
gateway_agent_pid() { fed_agent_pid node netns=fedtb-c1-node1; }

mapping_crashes() {
  local mode=$1 n=$CRASH_MAPPINGS pid deleted kept
  k c1 -n kubectl-fed-system scale deployment fed-manager --replicas 0 >/dev/null
  k c1 -n kubectl-fed-system wait --for=delete pod -l app.kubernetes.io/name=fed-manager --timeout 120s >/dev/null
  expect_eq "$mode: crash: a backlog of $n EndpointMappings posted with the managers stopped" "$(crash_post "$n")" "$n"
  k c1 -n kubectl-fed-system scale deployment fed-manager --replicas 2 >/dev/null
  eventually 120 "$mode: crash: the backlog of $n is being mapped" ipam_entries_at_least $((n / 4))
  pid=$(fed_agent_pid manager "pod=$(leader_pods)") || fail "$mode: crash: no process of the leading manager"
  kill -9 "$pid"
  eventually 120 "$mode: crash: the gateway has half of it live" live_at_least $((n / 2))
  pid=$(gateway_agent_pid) || fail "$mode: crash: no gateway agent process on c1/node1"
  kill -9 "$pid"
  # A tenth deleted meanwhile: chunk 0, crash-0 … crash-(N/10-1), in one deletecollection.
  deleted=$((n / 10))
  k c1 delete --raw "/apis/fed.kubectl-fed.io/v1alpha1/endpointmappings?labelSelector=crash%3D1,crash-chunk%3D0" >/dev/null
  kept=$((n - deleted))
  eventually 240 "$mode: crash: c1's IPAM holds the $kept mappings left" ipam_entries_are "$kept"
  eventually 120 "$mode: crash: the $kept mappings left are Ready" ready_count_is "$kept"
  expect_eq "$mode: crash: $kept distinct addresses" "$(crash_ready | cut -d' ' -f1 | sort -u | wc -l)" "$kept"
  eventually 30 "$mode: crash: the deleted mappings are gone" crash_mappings_count_is "$kept"
  eventually 120 "$mode: crash: c1's gateway holds one DNAT rule per mapping, none twice, none of a deleted one" \
    rules_match_mappings
  expect_eq "$mode: crash: both managers and the gateway agent run again" \
    "$(k c1 -n kubectl-fed-system get deploy fed-manager -o jsonpath='{.status.readyReplicas}') $(gateway_agent_pid >/dev/null && echo agent)" "2 agent"

  # Everything unmapped at once (a deletecollection per chunk: one of 9 000 outlasts the API
  # server's 60 s request timeout): addresses, blocks and rules go.
  local chunk
  for ((chunk = 1; chunk <= 10; chunk++)); do  # (10: the remainder when N is not a multiple of 10)
    k c1 delete --raw "/apis/fed.kubectl-fed.io/v1alpha1/endpointmappings?labelSelector=crash%3D1,crash-chunk%3D$chunk" >/dev/null
  done
  eventually 180 "$mode: crash: unmapped, c1's gateway holds none of the rules" all_unmapped
  expect_eq "$mode: crash: no NatMapping of c2 and no IpamBlock entry of the backlog left" \
    "$(k c1 get natmappings -l kubectl-fed.io/cluster-id=c2 -o name | wc -l) $(k c1 get ipamblocks -o json | jq '[.items[].spec.endpointMappings // {} | keys[] | select(startswith("10.210."))] | length')" "0 0"
}
